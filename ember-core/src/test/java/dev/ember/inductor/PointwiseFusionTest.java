package dev.ember.inductor;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ember.inductor.Graphs.kernels;
import static dev.ember.inductor.Graphs.call;
import static dev.ember.inductor.Graphs.checkAgainstEager;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Pointwise chains become one loop; results match eager. */
class PointwiseFusionTest {


    @Test
    void arithmeticChainIsOneKernel() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), y = g.placeholder("y", null);
        Node a = call(g, "mul.Tensor", x, y);
        Node b = call(g, "add.Scalar", a, 1.5);
        Node c = call(g, "relu.default", b);
        Node d = call(g, "sub.Tensor", c, x);
        Node e = call(g, "abs.default", d);
        Node f = call(g, "maximum.default", e, y);
        Node n = call(g, "neg.default", f);
        Node m = call(g, "mul.Scalar", n, 0.25);
        g.output(m);
        Tensor xs = Tensor.randn(300, 257), ys = Tensor.randn(300, 257);
        InductorGraph c1 = checkAgainstEager(new GraphModule(g), 1e-6, xs, ys);
        assertEquals(1, kernels(c1.sourceCode()), c1.sourceCode());
        assertTrue(c1.sourceCode().contains("FloatVector"), "vectorised:\n" + c1.sourceCode());
    }

    @Test
    void transcendentalChainWithBroadcastAndTransposedInput() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), b = g.placeholder("b", null);
        Node t = call(g, "t.default", x);
        Node a = call(g, "mul.Scalar", t, 1.5);
        Node a2 = call(g, "add.Tensor", a, b);
        Node r = call(g, "relu.default", a2);
        Node s = call(g, "sin.default", r);
        Node m = call(g, "mul.Tensor", s, t);
        Node e = call(g, "exp.default", m);
        Node sg = call(g, "sigmoid.default", call(g, "neg.default", e));
        Node out = call(g, "sub.Scalar", sg, 0.5);
        g.output(List.of(out, call(g, "tanh.default", b)));
        checkAgainstEager(new GraphModule(g), 1e-5, Tensor.randn(64, 33), Tensor.randn(64));
    }

    @Test
    void comparisonsWhereCastsAndIntegers() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), i = g.placeholder("i", null);
        Node gt = call(g, "gt.Scalar", x, 0.1);
        Node w = call(g, "where.self", gt, x, call(g, "mul.Scalar", x, 0.01));
        Node sum = call(g, "add.Tensor", w, i);
        Node cl = call(g, "clamp.default", sum, -1.0, 2.0);
        Node ii = call(g, "mul.Scalar", i, 3L);
        Node eq = call(g, "eq.Tensor", ii, i);
        g.output(List.of(cl, ii, eq, call(g, "_to_copy.default", x, DType.INT64)));
        checkAgainstEager(new GraphModule(g), 1e-6, Tensor.randn(5, 6).mul(4.0), Tensor.randint(-3, 3, 6).to(DType.INT32));
    }

    @Test
    void zeroDimAndEmptyTensors() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), s = g.placeholder("s", null), z = g.placeholder("z", null);
        g.output(List.of(call(g, "mul.Tensor", x, s), call(g, "exp.default", s), call(g, "add.Scalar", z, 1.0)));
        checkAgainstEager(new GraphModule(g), 1e-6, Tensor.randn(3, 1, 4), Tensor.scalar(2.5).to(DType.FLOAT32), Tensor.randn(0, 3));
    }

    /**
     * Two chains over different shapes, lowered interleaved (an optimizer's moments of two
     * parameters, then their updates): each stage joins the loop of its own chain, over the other
     * chain's kernel between them, which writes nothing it reads.
     */
    @Test
    void aStageJoinsAnEarlierLoopOfItsShapeOverAKernelThatWritesNothingItReads() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), y = g.placeholder("y", null);
        Node a1 = call(g, "mul.Scalar", x, 2.0);
        Node b1 = call(g, "exp.default", y);
        Node a2 = call(g, "add.Tensor", a1, x);
        Node b2 = call(g, "mul.Tensor", b1, y);
        g.output(List.of(a1, b1, a2, b2));   // every value an output, so each is stored (not recomputed by its reader)
        InductorGraph c = checkAgainstEager(new GraphModule(g), 1e-6, Tensor.randn(64, 32), Tensor.randn(32));
        assertEquals(2, kernels(c.sourceCode()), c.sourceCode());
    }

    /**
     * A flat kernel of several stages whose accesses to what they write are all at the element
     * being computed runs them element by element in one vector loop (its scalar form, block by
     * block): every length (within one block, exactly one, across blocks with vector and masked
     * tails) gives eager's values.
     */
    @Test
    void aFlatKernelOfSeveralStagesRunsThemInOneVectorLoop() {
        for (int n : new int[] {7, 2048, 2049, 3 * 2048 + 16 * 5 + 13, 100_003}) {
            Graph g = new Graph();
            Node x = g.placeholder("x", null), y = g.placeholder("y", null);
            Node a1 = call(g, "add.Tensor", call(g, "mul.Scalar", x, 2.0), y);
            Node a2 = call(g, "mul.Tensor", a1, y);
            g.output(List.of(a1, a2));
            InductorGraph c = checkAgainstEager(new GraphModule(g), 1e-6, Tensor.randn(3, n), Tensor.randn(3, n));
            assertEquals(1, kernels(c.sourceCode()), c.sourceCode());
            assertEquals(1, occurrences(c.sourceCode(), "stages element by element in one loop"), c.sourceCode());
            assertEquals(1, occurrences(c.sourceCode(), "the stages block by block"), c.sourceCode());   // the scalar form's
            // x and y loaded once each in the loop and once in the tail: the second stage takes the
            // first's stored vector and the y already loaded, instead of loading them again
            String simd = c.sourceCode().substring(c.sourceCode().indexOf("static void kernel0("), c.sourceCode().indexOf("static void kernel0_scalar("));
            assertEquals(4, occurrences(simd, "FloatVector.fromArray("), simd);
        }
    }

    /**
     * Float64 stages that both read a float32 input (under its cast): each loads it itself, widened,
     * as the float64 loop must (sharing the load read it as float64 lanes: NoSuchMethodError on the
     * SIMD form's first call; fuzzer seed 982782).
     */
    @Test
    void stagesOfAnotherDtypeThanAnInputTheyShareLoadItUnderItsCast() {
        dev.ember.inductor.runtime.KernelTier.forceForm(true);
        try {
            for (int n : new int[] {5, 2049}) {
                Graph g = new Graph();
                Node x = g.placeholder("x", null), y = g.placeholder("y", null);
                Node a1 = call(g, "mul.Tensor", x, y);
                Node a2 = call(g, "add.Tensor", a1, x);
                g.output(List.of(a1, a2));
                InductorGraph c = checkAgainstEager(new GraphModule(g), 0, Tensor.randn(3, n), Tensor.randn(3, n).to(DType.FLOAT64));
                assertEquals(1, occurrences(c.sourceCode(), "stages element by element in one loop"), c.sourceCode());
            }
        } finally {
            dev.ember.inductor.runtime.KernelTier.forceForm(null);
        }
    }

    /**
     * Stages that call two VectorMath formulas between them keep running block by block (in one
     * loop their constants would spill vector registers), with eager's values at every length.
     */
    @Test
    void aFlatKernelWhoseStagesCallTwoFormulasRunsThemBlockByBlock() {
        for (int n : new int[] {7, 2049, 100_003}) {
            Graph g = new Graph();
            Node x = g.placeholder("x", null), y = g.placeholder("y", null);
            Node a1 = call(g, "add.Tensor", call(g, "exp.default", x), y);
            Node a2 = call(g, "mul.Tensor", call(g, "sin.default", a1), y);
            g.output(List.of(a1, a2));
            InductorGraph c = checkAgainstEager(new GraphModule(g), 1e-5, Tensor.randn(3, n), Tensor.randn(3, n));
            assertEquals(1, kernels(c.sourceCode()), c.sourceCode());
            assertEquals(0, occurrences(c.sourceCode(), "stages element by element in one loop"), c.sourceCode());
            assertTrue(c.sourceCode().contains("the stages block by block"), c.sourceCode());
        }
    }

    private static int occurrences(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) count++;
        return count;
    }
}
