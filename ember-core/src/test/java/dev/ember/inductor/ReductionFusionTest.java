package dev.ember.inductor;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ember.inductor.Graphs.kernels;
import static dev.ember.inductor.Graphs.call;
import static dev.ember.inductor.Graphs.checkAgainstEager;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Softmax and layer_norm become one kernel over rows; other reductions match eager. */
class ReductionFusionTest {


    @Test
    void softmaxIsOneRowKernelWithNoIntermediateBuffers() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        g.output(call(g, "_softmax.default", x, -1L, false));
        InductorGraph c = checkAgainstEager(new GraphModule(g), 1e-6, Tensor.randn(37, 300).mul(3.0));
        assertEquals(1, kernels(c.sourceCode()), c.sourceCode());
        assertFalse(c.sourceCode().contains("arena["), "max and sum stay in registers:\n" + c.sourceCode());
    }

    @Test
    void layerNormIsOneRowKernel() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), w = g.placeholder("w", null), b = g.placeholder("b", null);
        g.output(call(g, "layer_norm.default", x, new int[] {64}, w, b, 1e-5));
        InductorGraph c = checkAgainstEager(new GraphModule(g), 1e-5, Tensor.randn(4, 9, 64), Tensor.randn(64), Tensor.randn(64));
        assertEquals(1, kernels(c.sourceCode()), c.sourceCode());
        // the float64 statistics on lanes: float32 loads widened to double vectors, not a scalar loop
        assertTrue(c.sourceCode().contains("DoubleVector t") && c.sourceCode().contains("VectorMath.widen("), c.sourceCode());
    }

    /**
     * One row holding two reductions whose terms a later stage recomputes: softmax's {@code exp(x - max)}
     * and layer_norm's own input both appear in the normalized output. Each reduction once stored its
     * terms into that output's buffer, the second over the first (differential fuzzer, seed 2018130).
     */
    @Test
    void twoReductionsNeverStoreTheirTermsIntoOneBuffer() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node weight = call(g, "_softmax.default", x, 0L, false);
        Node input = call(g, "exp.default", call(g, "clamp.default", x, -4.0, 4.0));
        g.output(call(g, "layer_norm.default", input, new int[] {16}, weight, input, 1e-5));
        Tensor.manualSeed(5);
        checkAgainstEager(new GraphModule(g), 1e-5, Tensor.randn(16));
    }

    @Test
    void logSoftmaxOverAnInnerDimOfATransposedInput() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node t = call(g, "transpose.int", x, 0L, 1L);
        g.output(call(g, "_log_softmax.default", t, 1L, false));
        checkAgainstEager(new GraphModule(g), 1e-5, Tensor.randn(20, 6, 5));
    }

    @Test
    void outerAxisReductionsMeanVarAmaxAndFullSum() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node mean0 = call(g, "mean.dim", x, new int[] {0}, false);
        Node var = call(g, "var.correction", x, new int[] {0, 2}, 1.0, true);
        Node amax = call(g, "amax.default", x, new int[] {1}, false);
        Node amin = call(g, "amin.default", call(g, "exp.default", x), new int[] {-1}, true);
        Node sum = call(g, "sum.default", x);
        Node mean = call(g, "mean.default", x);
        g.output(List.of(mean0, var, amax, amin, sum, mean));
        checkAgainstEager(new GraphModule(g), 1e-4, Tensor.randn(7, 5, 33));
    }

    @Test
    void batchNormInEvalModeIsPointwise() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), w = g.placeholder("w", null), b = g.placeholder("b", null);
        Node rm = g.placeholder("rm", null), rv = g.placeholder("rv", null);
        Node bn = call(g, "batch_norm.default", x, w, b, rm, rv, false, 0.1, 1e-5, true);
        g.output(call(g, "relu.default", bn));
        InductorGraph c = checkAgainstEager(new GraphModule(g), 1e-5, Tensor.randn(2, 3, 4, 5), Tensor.randn(3), Tensor.randn(3),
                Tensor.randn(3), Tensor.rand(3).add(0.5));
        assertEquals(1, kernels(c.sourceCode()), c.sourceCode());
    }
}
