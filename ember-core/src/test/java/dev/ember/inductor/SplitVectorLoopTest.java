package dev.ember.inductor;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import static dev.ember.inductor.Graphs.call;
import static dev.ember.inductor.Graphs.checkAgainstEager;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A vector loop with several VectorMath calls is split into one loop per call over small blocks: same results, every length. */
class SplitVectorLoopTest {
    private static final String SPLIT = "one loop per VectorMath call";

    /** ((x*1.5+2).relu().sin()*x).exp().neg().sigmoid() - 0.5, the benchmark's transcendental chain. */
    private static GraphModule chain() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node v = call(g, "relu.default", call(g, "add.Scalar", call(g, "mul.Scalar", x, 1.5), 2.0));
        v = call(g, "exp.default", call(g, "mul.Tensor", call(g, "sin.default", v), x));
        g.output(call(g, "sub.Scalar", call(g, "sigmoid.default", call(g, "neg.default", v)), 0.5));
        return new GraphModule(g);
    }

    @Test
    void theChainSplitsInThreeLoopsAndMatchesEagerAtEveryLength() {
        // lengths below one vector, inside one 512-block, across blocks with a vector and a scalar tail
        for (int n : new int[] {7, 300, 512, 1000, 3 * 512 + 16 * 5 + 13, 100_003}) {
            InductorGraph c = checkAgainstEager(chain(), 1e-6, Tensor.randn(n));
            String src = c.sourceCode();
            assertTrue(src.contains(SPLIT), src);
            assertEquals(3, vectorMathCalls(loopsOf(src)), "one call per loop:\n" + src);
            assertEquals(3, vectorMathCalls(tailOf(src)), "the masked tail computes the chain once:\n" + src);
        }
    }

    @Test
    void aSubtreeUsedTwiceIsComputedOnceAndLoaded() {
        // exp(x) * sin(exp(x)): exp(x) gets its own loop, the last loop loads it for both uses
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node e = call(g, "exp.default", x);
        g.output(call(g, "mul.Tensor", e, call(g, "sin.default", e)));
        InductorGraph c = checkAgainstEager(new GraphModule(g), 1e-6, Tensor.randn(5000).mul(0.5));
        String src = c.sourceCode();
        assertTrue(src.contains(SPLIT), src);
        assertEquals(2, vectorMathCalls(loopsOf(src)), src);
    }

    private static final String TAIL = "the tail as one masked vector";

    /** The generated source before the masked tail: the split loops. */
    private static String loopsOf(String src) { return src.substring(0, src.indexOf(TAIL)); }

    private static String tailOf(String src) { return src.substring(src.indexOf(TAIL)); }

    private static int vectorMathCalls(String src) { return src.split("VectorMath\\.(EXP|SIN|COS|SIGMOID|SILU|GELU)_F32\\.invokeExact").length - 1; }

    @Test
    void rowsOfABroadcastGraphSplitToo() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), b = g.placeholder("b", null);
        g.output(call(g, "sigmoid.default", call(g, "cos.default", call(g, "add.Tensor", x, b))));
        InductorGraph c = checkAgainstEager(new GraphModule(g), 1e-6, Tensor.randn(37, 1000), Tensor.randn(1000));
        assertTrue(c.sourceCode().contains(SPLIT), c.sourceCode());
    }

    @Test
    void aSingleCallStaysOneLoop() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        g.output(call(g, "mul.Scalar", call(g, "exp.default", call(g, "add.Scalar", x, 1.0)), 2.0));
        InductorGraph c = checkAgainstEager(new GraphModule(g), 1e-6, Tensor.randn(3000));
        assertFalse(c.sourceCode().contains(SPLIT), c.sourceCode());
    }
}
