package dev.ember.inductor;

import dev.ember.Ember;
import dev.ember.Options;
import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.nn.Conv2d;
import dev.ember.nn.Module;
import dev.ember.nn.Parameter;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.ember.inductor.Graphs.call;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A convolution whose output only later kernels of the graph read writes it into an arena slot
 * through {@code convolution.out} (MemoryPlan.WRITE_INTO) instead of a fresh array each call; its
 * graph output stays fresh. A slot holds the previous call's values, so each call is checked
 * against eager with new inputs, and an earlier call's result must survive a later call.
 */
class ConvOutputArenaTest {

    private static final int[] ONE = {1, 1};

    /** Conv-BN(eval)-ReLU three times, as the inference benchmark: the first two convolutions' outputs in the arena. */
    @Test
    void convBnReluIntermediatesLiveInTheArena() {
        Graph g = new Graph();
        Node h = g.placeholder("x", null);
        List<Tensor> inputs = new ArrayList<>();
        Tensor.manualSeed(3);
        inputs.add(Tensor.randn(2, 64, 28, 28));
        for (int i = 0; i < 3; i++) {
            Node w = g.placeholder("w" + i, null), gamma = g.placeholder("gamma" + i, null), beta = g.placeholder("beta" + i, null);
            Node mean = g.placeholder("mean" + i, null), var = g.placeholder("var" + i, null);
            h = call(g, "conv2d.default", h, w, null, ONE, ONE);
            h = call(g, "batch_norm.default", h, gamma, beta, mean, var, false, 0.1, 1e-5, true);
            h = call(g, "relu.default", h);
            inputs.addAll(List.of(Tensor.randn(64, 64, 3, 3).mul(1 / 24.0), Tensor.randn(64).mul(0.2).add(1.0), Tensor.randn(64).mul(0.1),
                    Tensor.randn(64).mul(0.1), Tensor.randn(64).abs().add(0.5)));
        }
        g.output(h);
        GraphModule gm = new GraphModule(g);
        InductorGraph compiled = Inductor.compile(gm, inputs, CompileMode.DEFAULT, null);
        String src = Graphs.simdForms(compiled.sourceCode());
        assertEquals(2, src.split("OP_CONVOLUTION_OUT.callTensor").length - 1, "two convolutions write into the arena:\n" + src);
        assertEquals(3, src.split("\\.callTensor\\(").length - 1, "the last, the graph's output, is a fresh result:\n" + src);
        checkCalls(gm, compiled, inputs, 1e-4);
    }

    /**
     * Depthwise convolutions without a bias add into their output: convolution.out zeroes an arena
     * slot first, or the second call would add to the first call's values.
     */
    @Test
    void depthwiseConvolutionsStartFromZeroInAReusedSlot() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), w1 = g.placeholder("w1", null), w2 = g.placeholder("w2", null), b = g.placeholder("b", null);
        Node h = call(g, "add.Tensor", call(g, "relu.default", call(g, "conv2d.default", x, w1, null, ONE, ONE, ONE, 16L)), b);
        g.output(call(g, "conv2d.default", h, w2, null, ONE, ONE, ONE, 16L));
        GraphModule gm = new GraphModule(g);
        Tensor.manualSeed(4);
        List<Tensor> inputs = new ArrayList<>(List.of(Tensor.randn(3, 16, 9, 11), Tensor.randn(16, 1, 3, 3), Tensor.randn(16, 1, 3, 3), Tensor.randn(16, 1, 1)));
        InductorGraph compiled = Inductor.compile(gm, inputs, CompileMode.DEFAULT, null);
        assertEquals(1, Graphs.simdForms(compiled.sourceCode()).split("OP_CONVOLUTION_OUT.callTensor").length - 1, compiled.sourceCode());
        checkCalls(gm, compiled, inputs, 0);
    }

    /**
     * Three calls, each with a new input: every result as eager's, and the first call's result still
     * itself after the later calls (a graph output never shares an arena slot).
     */
    private static void checkCalls(GraphModule gm, InductorGraph compiled, List<Tensor> inputs, double tol) {
        Tensor first = null;
        float[] firstValues = null;
        for (int call = 0; call < 3; call++) {
            inputs.set(0, Tensor.randn(inputs.get(0).shape()));
            Object[] in = inputs.toArray();
            Object got = compiled.run(in);
            Graphs.assertSame(gm.run(in), got, tol, "call " + call);
            if (call == 0) {
                first = (Tensor) got;
                firstValues = first.toFloatArray();
            }
        }
        assertArrayEquals(firstValues, first.toFloatArray(), "the first call's output, after two more calls");
    }

    /**
     * Training: in the compiled backward, the gradient flowing into the first convolution's
     * convolution_backward (through ReLU's) is read by no other eager kernel, so it lives in the arena;
     * two steps with different inputs give eager's gradients.
     */
    @Test
    void trainingStepsGiveEagersGradients() {
        Tensor.manualSeed(5);
        Module eager = net(), compiled = net();
        compiled.loadStateDict(eager.stateDict());
        var f = Ember.compile(compiled, Options.backend("inductor"));
        for (int step = 0; step < 2; step++) {
            Tensor x = Tensor.randn(2, 32, 12, 12);
            eager.zeroGrad();
            compiled.zeroGrad();
            eager.forward(x).pow(2.0).mean().backward();
            f.apply(x).pow(2.0).mean().backward();
            List<Parameter> a = eager.parameters(), b = compiled.parameters();
            for (int i = 0; i < a.size(); i++) {
                assertArrayEquals(a.get(i).grad().toFloatArray(), b.get(i).grad().toFloatArray(), 2e-4f, "step " + step + ", parameter " + i);
            }
        }
    }

    /**
     * A training forward graph whose convolution output nothing saves (mul by a constant, then sum:
     * neither backward needs it): the convolution writes it into the forward graph's arena through
     * convolution.out, which autograd would refuse were the graph's kernels recorded; the
     * gradients are eager's.
     */
    @Test
    void aTrainingForwardWritesAnUnsavedConvolutionOutputIntoTheArena() {
        Tensor.manualSeed(6);
        Conv2d eager = new Conv2d(8, 8, 3, 1, 1), compiled = new Conv2d(8, 8, 3, 1, 1);
        compiled.loadStateDict(eager.stateDict());
        java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
        java.io.PrintStream before = dev.ember.logging.Logs.output();
        dev.ember.logging.Logs.setOutput(new java.io.PrintStream(buf, true, java.nio.charset.StandardCharsets.UTF_8));
        Ember.setLogs("output_code");
        try {
            var f = Ember.compile((Tensor x) -> compiled.forward(x).mul(2.0).sum(), Options.backend("inductor"));
            for (int step = 0; step < 2; step++) {
                Tensor x = Tensor.randn(2, 8, 6, 6);
                eager.zeroGrad();
                compiled.zeroGrad();
                eager.forward(x).mul(2.0).sum().backward();
                f.apply(x).backward();
                List<Parameter> a = eager.parameters(), b = compiled.parameters();
                for (int i = 0; i < a.size(); i++) {
                    assertArrayEquals(a.get(i).grad().toFloatArray(), b.get(i).grad().toFloatArray(), 1e-3f, "step " + step + ", parameter " + i);
                }
            }
        } finally {
            dev.ember.logging.Logs.set("");
            dev.ember.logging.Logs.setOutput(before);
            Ember.reset();
        }
        String log = buf.toString(java.nio.charset.StandardCharsets.UTF_8);
        org.junit.jupiter.api.Assertions.assertTrue(log.contains("OP_CONVOLUTION_OUT.callTensor("), log);
    }

    private static Module net() {
        return new Sequential(new Conv2d(32, 32, 3, 1, 1), new ReLU(), new Conv2d(32, 32, 3, 1, 1), new ReLU(), new Conv2d(32, 8, 3, 1, 1));
    }
}
