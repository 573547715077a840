package dev.ember.passes;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.logging.Logs;
import dev.ember.nn.BatchNorm2d;
import dev.ember.nn.Conv2d;
import dev.ember.nn.Flatten;
import dev.ember.nn.Linear;
import dev.ember.nn.MaxPool2d;
import dev.ember.nn.F;
import dev.ember.nn.Module;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.ops.ConvOps;
import dev.ember.ops.NormOps;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static dev.ember.passes.PreGradHarness.assertClose;
import static dev.ember.passes.PreGradHarness.capture;
import static dev.ember.passes.PreGradHarness.compiled;
import static dev.ember.passes.PreGradHarness.preGrad;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * pre_grad.conv_bn_folding (opt-in, switched on here): an eval-mode Conv2d → BatchNorm2d compiles to one convolution whose
 * weight and bias are folded in the graph, and gives what the unfolded graph gives: in float64 to
 * 1e-12 (the fold only reorders a handful of roundings per output), in float32 to 1e-5 (a product
 * {@code w·s} rounded before the convolution sums it, against the sum scaled after).
 */
class ConvBnFoldingTest {
    private static final String PASS = "pre_grad.conv_bn_folding";
    private final PrintStream stderr = System.err;

    static final class ConvBn extends Module {
        final Conv2d conv;
        final BatchNorm2d bn;

        ConvBn(boolean convBias, boolean affine) {
            conv = new Conv2d(3, 8, 3, 1, 1, 1, 1, convBias);
            bn = new BatchNorm2d(8, 1e-3, 0.1, affine, true);
            bn.runningMean.copy_(Tensor.randn(8));
            bn.runningVar.copy_(Tensor.rand(8).add(0.5));
            if (affine) {
                try (var s = Ember.noGrad()) {
                    bn.weight.copy_(Tensor.randn(8));
                    bn.bias.copy_(Tensor.randn(8));
                }
            }
        }

        @Override
        public Tensor forward(Tensor x) { return bn.forward(conv.forward(x)).relu(); }
    }

    /** The conv's output is also returned: folding would lose it. */
    static final class ConvBnSharedConv extends Module {
        final ConvBn inner = new ConvBn(true, true);

        @Override
        public Tensor forward(Tensor x) {
            Tensor c = inner.conv.forward(x);
            return inner.bn.forward(c).add(c);
        }
    }

    @BeforeAll
    static void register() throws java.io.IOException { PreGradHarness.useInductor(); }

    /** Opt-in (see ConvBnFolding): these tests switch it on, as EMBER_ENABLE_PASSES=pre_grad.conv_bn_folding does. */
    @BeforeEach
    void enable() { PassManager.enable(PASS); }

    @AfterEach
    void reset() {
        Logs.set("");
        Logs.setOutput(stderr);
        PassManager.disable(null);
        PassManager.enable(null);
        Ember.reset();
    }

    /** Not switched on, nothing folds, and inductor gives eager's bits (float64: no kernel tier changes the convolution between the calls). */
    @Test
    void byDefaultNothingFoldsAndInductorGivesEagersBits() {
        PassManager.enable(null);
        dev.ember.tensor.Generator g = new dev.ember.tensor.Generator(650967);
        Tensor x = Tensor.randn(g, 2, 8, 6, 6).to(DType.FLOAT64), w = Tensor.randn(g, 16, 8, 3, 3).to(DType.FLOAT64),
                mean = Tensor.randn(g, 16).to(DType.FLOAT64), var = Tensor.rand(g, 16).add(0.05).to(DType.FLOAT64), gamma = Tensor.randn(g, 16).to(DType.FLOAT64);
        var after = preGrad(captureFunction(new Object[] {x, w, mean, var, gamma}));
        assertFalse(after.changed().contains("conv_bn_folding"), after.changed().toString());
        try (var s = Ember.noGrad()) {
            assertSameBits(convThenEvalBatchNorm(x, w, mean, var, gamma),
                    Ember.compile((dev.ember.Fn5<Tensor, Tensor, Tensor, Tensor, Tensor, Tensor>) ConvBnFoldingTest::convThenEvalBatchNorm,
                            Options.backend("inductor")).apply(x, w, mean, var, gamma));
        }
    }

    private static void assertSameBits(Tensor want, Tensor got) { dev.ember.testing.SameBits.assertSameBits(want, got, "conv → eval batch_norm"); }

    private static void assertFolded(Module m, Tensor x) {
        var after = preGrad(capture(o -> Ember.compile(m, o), x));
        assertTrue(after.changed().contains("conv_bn_folding"), after.changed().toString());
        assertEquals(0, after.count(NormOps.BATCH_NORM), after.graph().code());
        assertEquals(1, after.count(ConvOps.CONV2D), after.graph().code());
    }

    @Test
    void foldsEvalBatchNormIntoTheConvolutionAndMatchesTheUnfoldedGraphInFloat64() {
        for (boolean convBias : new boolean[] {true, false}) {
            for (boolean affine : new boolean[] {true, false}) {
                ConvBn m = new ConvBn(convBias, affine);
                m.to(DType.FLOAT64);
                m.eval();
                Tensor x = Tensor.randn(2, 3, 7, 7).to(DType.FLOAT64);
                String what = "conv bias " + convBias + ", affine " + affine;
                try (var s = Ember.noGrad()) {
                    assertFolded(m, x);
                    Tensor folded = compiled(o -> Ember.compile(m, o), x, null);
                    Tensor unfolded = compiled(o -> Ember.compile(m, o), x, PASS);
                    assertClose(unfolded, folded, 1e-12, what);
                    assertClose(m.forward(x), folded, 1e-12, what + ", against eager");
                }
            }
        }
    }

    /**
     * A parametrized layer's field is null (its tensor moved to {@code parametrizations.weight}):
     * the fold must take the tensors the layers compute (weight_norm's {@code g·v/‖v‖} on the
     * convolution, a doubled weight and bias on the batch norm), not the fields. Both the
     * parametrization ({@code torch.nn.utils.parametrizations.weight_norm}) and the old-style hook
     * ({@code torch.nn.utils.weight_norm}) fold and give eager's result.
     */
    @Test
    void aWeightNormedConvolutionAndAParametrizedBatchNormFoldAndMatchEager() {
        for (boolean oldStyle : new boolean[] {false, true}) {
            ConvBn m = new ConvBn(true, true);
            m.to(DType.FLOAT64);
            if (oldStyle) dev.ember.nn.WeightNorm.weightNorm(m.conv);
            else dev.ember.nn.Parametrizations.weightNorm(m.conv);
            dev.ember.nn.Parametrize.registerParametrization(m.bn, "weight", new Doubled());
            dev.ember.nn.Parametrize.registerParametrization(m.bn, "bias", new Doubled());
            m.eval();
            Tensor x = Tensor.randn(2, 3, 7, 7).to(DType.FLOAT64);
            String what = oldStyle ? "old-style weight_norm" : "weight_norm parametrization";
            try (var s = Ember.noGrad()) {
                assertFolded(m, x);
                Tensor folded = compiled(o -> Ember.compile(m, o), x, null);
                assertClose(m.forward(x), folded, 1e-12, what + ", against eager");
                // and the weights are read afresh: a changed original folds on the next call
                Tensor gain = oldStyle ? m.conv.parameter("weight_g") : dev.ember.nn.Parametrize.parametrizations(m.conv, "weight").originals().get(0);
                Fn1<Tensor, Tensor> f = Ember.compile(m, Options.backend("inductor").fullgraph(true));
                f.apply(x);
                gain.mul_(-1.5);
                assertClose(m.forward(x), f.apply(x), 1e-12, what + ", after the magnitude changed");
                Ember.reset();
            }
        }
    }

    /** A parametrization that doubles its tensor (keeps shape and dtype, so the checked registration accepts it). */
    static final class Doubled extends Module {
        @Override
        public Tensor forward(Tensor original) { return original.mul(2.0); }
    }

    @Test
    void matchesEagerInFloat32AndFollowsParametersUpdatedBetweenCalls() {
        ConvBn m = new ConvBn(true, true);
        m.eval();
        try (var s = Ember.noGrad()) {
            Fn1<Tensor, Tensor> f = Ember.compile(m, Options.backend("inductor").fullgraph(true));
            Tensor x = Tensor.randn(4, 3, 9, 9);
            assertClose(m.forward(x), f.apply(x), 1e-5, "first call");
            // not frozen: new statistics and weights are folded on the next call, without a recompile
            m.bn.runningVar.mul_(3.0);
            m.bn.runningMean.add_(0.5);
            m.conv.weight.mul_(-0.5);
            assertClose(m.forward(x), f.apply(x), 1e-5, "after updating the parameters in place");
        }
    }

    /**
     * examples/TrainCnn's network, trained compiled for two steps and then evaluated compiled
     * (eval() under noGrad, as Training.evaluate does): both Conv-BN pairs fold, the results match
     * eager, and the training graphs fold nothing.
     */
    @Test
    void aCnnTrainedCompiledThenEvaluatedFoldsBothPairsAndMatchesEager() {
        java.util.function.Supplier<Sequential> model = () -> new Sequential(
                new Conv2d(1, 16, 3, 1, 1), new BatchNorm2d(16), new ReLU(), new MaxPool2d(2),
                new Conv2d(16, 32, 3, 1, 1), new BatchNorm2d(32), new ReLU(), new MaxPool2d(2),
                new Flatten(), new Linear(32 * 7 * 7, 128), new ReLU(), new Linear(128, 10));
        Sequential m = model.get(), eager = model.get();
        eager.loadStateDict(m.stateDict());
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Logs.setOutput(new PrintStream(log, true, StandardCharsets.UTF_8));
        Logs.set("pre_grad_graphs");
        Fn1<Tensor, Tensor> f = Ember.compile(m, Options.backend("inductor"));
        for (int step = 0; step < 2; step++) {
            Tensor x = Tensor.randn(8, 1, 28, 28);
            Tensor loss = f.apply(x).pow(2.0).mean(), eagerLoss = eager.forward(x).pow(2.0).mean();
            loss.backward();
            eagerLoss.backward();
            assertEquals(eagerLoss.item(), loss.item(), 1e-4 * Math.abs(eagerLoss.item()), "training step " + step);
            try (var s = Ember.noGrad()) {
                for (var p : m.parameters()) p.sub_(p.grad().mul(0.1));
                for (var p : eager.parameters()) p.sub_(p.grad().mul(0.1));
            }
            m.zeroGrad();
            eager.zeroGrad();
        }
        String training = log.toString(StandardCharsets.UTF_8);
        assertFalse(training.contains("AFTER " + PASS), training);
        m.eval();
        eager.eval();
        try (var s = Ember.noGrad()) {
            Tensor x = Tensor.randn(16, 1, 28, 28);
            assertClose(eager.forward(x), f.apply(x), 1e-4, "evaluation");
        }
        String evaluation = log.toString(StandardCharsets.UTF_8).substring(training.length());
        String folded = entry(evaluation, "AFTER " + PASS);
        assertEquals(2, folded.lines().filter(l -> l.contains("aten.conv2d.default")).count(), folded);
        assertFalse(folded.contains("aten.batch_norm"), folded);
    }

    /** The log entry whose first line holds {@code header}: its lines, up to the next entry's first. */
    private static String entry(String log, String header) {
        List<String> lines = log.lines().toList();
        int first = 0;
        while (!lines.get(first).contains(header)) first++;
        int end = first + 1;
        while (end < lines.size() && !lines.get(end).matches(".*\\] (AFTER|UNCHANGED BY|SKIPPED|BEFORE) .*")) end++;
        return String.join("\n", lines.subList(first, end));
    }

    static Tensor convThenEvalBatchNorm(Tensor x, Tensor w, Tensor mean, Tensor var, Tensor gamma) {
        return F.batchNorm(F.conv2d(x, w, null, 1, 1), mean, var, gamma, null, false, 0.1, 1e-5);
    }

    /**
     * The folded weight is {@code w·(γ/√(var + ε))} computed in float64 and rounded once, as the
     * batch_norm kernel rounds its per-channel scale once: in float32 steps it was rounded three
     * times (rsqrt, times γ, times w), and the folded convolution drifted further from eager's.
     */
    @Test
    void theFoldedWeightIsRoundedOnce() {
        dev.ember.tensor.Generator g = new dev.ember.tensor.Generator(650967);
        Tensor x = Tensor.randn(g, 2, 8, 6, 6), w = Tensor.randn(g, 16, 8, 3, 3), mean = Tensor.randn(g, 16),
                var = Tensor.rand(g, 16).add(0.05), gamma = Tensor.randn(g, 16);
        Object[] inputs = {x, w, mean, var, gamma};
        var after = preGrad(captureFunction(inputs));
        assertTrue(after.changed().contains("conv_bn_folding"), after.changed().toString());
        dev.ember.fx.Node conv = after.graph().graph().findNodes(dev.ember.fx.NodeKind.CALL_FUNCTION, ConvOps.CONV2D).getFirst();
        after.graph().graph().outputNode().setArgs(List.of(conv.arg(1)));   // the graph now returns the folded weight
        Tensor folded = (Tensor) after.graph().run(inputs);
        double[] w64 = w.toDoubleArray(), v64 = var.toDoubleArray(), g64 = gamma.toDoubleArray();
        float[] got = folded.toFloatArray();
        int perChannel = w64.length / 16, differ = 0;
        for (int i = 0; i < w64.length; i++) {
            int c = i / perChannel;
            float want = (float) (w64[i] * (g64[c] / Math.sqrt(v64[c] + 1e-5)));
            if (Float.floatToIntBits(want) != Float.floatToIntBits(got[i])) differ++;
        }
        assertEquals(0, differ, "folded weights not rounded once from float64, of " + w64.length);
    }

    /**
     * aot_eager runs none of inductor's pre-grad passes (PyTorch runs them in compile_fx only): it
     * computes what eager computes, so that {@code ember bisect} and the fuzzer's aot_eager
     * configuration tell AOT's own differences from a pass's. It folded Conv-BN, and a count of
     * outputs over a threshold differed from eager's by one (fuzzer seed 650967).
     */
    @Test
    void aotEagerFoldsNothingAndGivesEagersBits() {
        dev.ember.tensor.Generator g = new dev.ember.tensor.Generator(650967);
        // float64: no kernel tier changes the convolution's rounding between the two calls
        Tensor x = Tensor.randn(g, 2, 8, 6, 6).to(DType.FLOAT64), w = Tensor.randn(g, 16, 8, 3, 3).to(DType.FLOAT64),
                mean = Tensor.randn(g, 16).to(DType.FLOAT64), var = Tensor.rand(g, 16).add(0.05).to(DType.FLOAT64), gamma = Tensor.randn(g, 16).to(DType.FLOAT64);
        try (var s = Ember.noGrad()) {
            // the pass is switched on (enable()): inductor would fold, aot_eager must not
            assertSameBits(convThenEvalBatchNorm(x, w, mean, var, gamma),
                    Ember.compile((dev.ember.Fn5<Tensor, Tensor, Tensor, Tensor, Tensor, Tensor>) ConvBnFoldingTest::convThenEvalBatchNorm,
                            Options.backend("aot_eager")).apply(x, w, mean, var, gamma));
        }
    }

    /** The one graph Dynamo captures from {@link #convThenEvalBatchNorm} on {@code inputs}. */
    private static dev.ember.fx.GraphModule captureFunction(Object[] inputs) {
        List<dev.ember.fx.GraphModule> graphs = new java.util.ArrayList<>();
        dev.ember.fx.Backend recording = (gm, fakes) -> {
            graphs.add(gm);
            return dev.ember.fx.Backends.EAGER.compile(gm, fakes);
        };
        try {
            Ember.compile((dev.ember.Fn5<Tensor, Tensor, Tensor, Tensor, Tensor, Tensor>) ConvBnFoldingTest::convThenEvalBatchNorm,
                    Options.backend(recording).fullgraph(true)).apply((Tensor) inputs[0], (Tensor) inputs[1], (Tensor) inputs[2], (Tensor) inputs[3], (Tensor) inputs[4]);
        } finally {
            Ember.reset();
        }
        assertEquals(1, graphs.size(), "one graph");
        return graphs.getFirst();
    }

    @Test
    void batchNormInTrainingModeIsNotFolded() {
        ConvBn m = new ConvBn(true, true);      // train() by default: batch statistics, running ones updated
        Tensor x = Tensor.randn(2, 3, 5, 5);
        try (var s = Ember.noGrad()) {
            var after = preGrad(capture(o -> Ember.compile(m, o), x));
            assertFalse(after.changed().contains("conv_bn_folding"), after.changed().toString());
            assertEquals(1, after.count(NormOps.BATCH_NORM));
        }
    }

    @Test
    void aConvolutionWithAnotherUserIsNotFolded() {
        ConvBnSharedConv m = new ConvBnSharedConv();
        m.eval();
        try (var s = Ember.noGrad()) {
            var after = preGrad(capture(o -> Ember.compile(m, o), Tensor.randn(2, 3, 5, 5)));
            assertEquals(1, after.count(NormOps.BATCH_NORM), after.graph().code());
        }
    }

    @Test
    void aGraphCompiledForTrainingIsNotFoldedAndItsGradientsMatchEager() {
        ConvBn compiledModel = new ConvBn(true, true), eagerModel = new ConvBn(true, true);
        eagerModel.loadStateDict(compiledModel.stateDict());
        compiledModel.eval();
        eagerModel.eval();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Logs.setOutput(new PrintStream(log, true, StandardCharsets.UTF_8));
        Logs.set("pre_grad_graphs");
        Tensor x = Tensor.randn(2, 3, 5, 5);
        Fn1<Tensor, Tensor> f = Ember.compile(compiledModel, Options.backend("inductor").fullgraph(true));
        f.apply(x).sum().backward();     // grad mode on and parameters requiring grad: AOTAutograd compiles it for training
        eagerModel.forward(x).sum().backward();
        String text = log.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("SKIPPED " + PASS + " (inference only; this graph is compiled for training)"), text);
        assertFalse(text.contains("AFTER " + PASS), text);
        for (var p : List.of(List.of(eagerModel.conv.weight, compiledModel.conv.weight), List.of(eagerModel.bn.weight, compiledModel.bn.weight))) {
            assertClose(p.get(0).grad(), p.get(1).grad(), 1e-4, "gradient");
        }
    }
}
