package dev.ember;

import dev.ember.autograd.Autograd;
import dev.ember.debug.NanReport;
import dev.ember.export.ExportOptions;
import dev.ember.export.ExportedProgram;
import dev.ember.fx.NonFiniteValueError;
import dev.ember.nn.BatchNorm1d;
import dev.ember.nn.F;
import dev.ember.nn.Linear;
import dev.ember.nn.Module;
import dev.ember.nn.Parameter;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.optim.Adam;
import dev.ember.optim.LambdaLR;
import dev.ember.optim.ReduceLROnPlateau;
import dev.ember.optim.SGD;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import ai.djl.ndarray.NDList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.ember.NewUserTrainingSupport.allEntries;
import static dev.ember.NewUserTrainingSupport.mlp;
import static dev.ember.NewUserTrainingSupport.sameTrace;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A third batch of training programs as a new user writes them: compile modes, debug tools, export with autograd. */
class NewUserTraining5cTest {

    @AfterEach
    void reset() {
        Ember.reset();
        System.clearProperty("ember.nan.asserts");
    }

    // ---- reduce-overhead while training: two forwards before one backward (gradient accumulation)

    private static List<float[]> twoForwardsOneBackward(String mode) {
        Tensor.manualSeed(1);
        Sequential net = mlp(4, 8, 1);
        Fn1<Tensor, Tensor> forward = mode == null ? net::call : Ember.compile(net, Options.defaults().mode(mode));
        SGD opt = new SGD(net.parameters(), SGD.options().lr(0.1));
        Generator data = new Generator(2);
        List<float[]> trace = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Tensor x1 = Tensor.randn(data, 5, 4), x2 = Tensor.randn(data, 5, 4);
            opt.zeroGrad();
            Tensor l1 = forward.apply(x1).pow(2).mean();
            Tensor l2 = forward.apply(x2).pow(2).mean();
            l1.add(l2).backward();
            for (Parameter p : net.parameters()) trace.add(p.grad().toFloatArray());
            opt.step();
        }
        return trace;
    }

    @Test
    void reduceOverheadTrainingWithTwoForwardsBeforeBackward() {
        sameTrace(twoForwardsOneBackward(null), twoForwardsOneBackward("reduce-overhead"), 1e-6f, "reduce-overhead");
    }

    @Test
    void maxAutotuneTrainingWithTwoForwardsBeforeBackward() {
        sameTrace(twoForwardsOneBackward(null), twoForwardsOneBackward("max-autotune"), 1e-6f, "max-autotune");
    }

    // ---- reduce-overhead: losses kept across calls for logging are never read with other values

    @Test
    void reduceOverheadLossesKeptForLoggingAreIntactOrRefused() {
        Tensor.manualSeed(3);
        Sequential net = mlp(4, 8, 1);
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) (x, y) -> F.mseLoss(net.forward(x), y), Options.defaults().mode("reduce-overhead"));
        List<Tensor> losses = new ArrayList<>();
        List<Double> values = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Tensor loss = f.apply(Tensor.randn(5, 4), Tensor.randn(5, 1));
            values.add(loss.item());
            loss.backward();
            losses.add(loss);
        }
        for (int i = 0; i < losses.size(); i++) {
            try {
                assertEquals(values.get(i), losses.get(i).item(), 0.0, "loss " + i + " read again");
            } catch (IllegalStateException e) {
                assertTrue(e.getMessage().contains("clone()"), e.getMessage());
            }
        }
    }

    // ---- export: running the program with an input that requires grad

    @Test
    void anExportedProgramRunWithAnInputThatRequiresGrad() {
        Tensor.manualSeed(4);
        Sequential net = mlp(3, 5, 2);
        Tensor x = Tensor.randn(4, 3);
        ExportedProgram ep = Ember.export(net, x);
        Tensor xi = x.clone().requiresGrad(true);
        Tensor out;
        try {
            out = ep.run(xi).getFirst();
        } catch (RuntimeException e) {
            fail("running an exported program on an input that requires grad: " + e);
            return;
        }
        if (out.requiresGrad()) {
            out.sum().backward();
            Tensor xe = x.clone().requiresGrad(true);
            net.forward(xe).sum().backward();
            assertArrayEquals(xe.grad().toFloatArray(), xi.grad().toFloatArray(), 1e-6f);
        } else {
            RuntimeException e = assertThrows(RuntimeException.class, () -> out.sum().backward());
            assertTrue(e.getMessage().contains("does not require grad"), e.getMessage());
        }
    }

    private static void fail(String message) { org.junit.jupiter.api.Assertions.fail(message); }

    @Test
    void compilingAnExportedModule() {
        Tensor.manualSeed(5);
        Sequential net = mlp(3, 5, 2);
        Tensor x = Tensor.randn(4, 3);
        ExportedProgram ep = Ember.export(net, x);
        Module m = ep.module();
        Tensor want = ep.run(x).getFirst();
        assertArrayEquals(want.toFloatArray(), Ember.compile(m).apply(x).toFloatArray(), 1e-6f);
    }

    @Test
    void nonStrictExportOfAModelWithANoGradBlock() {
        Tensor.manualSeed(6);
        Sequential net = mlp(3, 5, 2);
        Fn1<Tensor, Tensor> fn = x -> {
            Tensor h;
            try (var s = Ember.noGrad()) {
                h = net.forward(x);
            }
            return h.softmax(-1);
        };
        Tensor x = Tensor.randn(4, 3);
        for (ExportOptions o : new ExportOptions[] {ExportOptions.defaults(), ExportOptions.nonStrict()}) {
            ExportedProgram ep = Ember.export(o, fn, x);
            assertArrayEquals(fn.apply(x).toFloatArray(), ep.run(x).getFirst().toFloatArray(), 1e-6f, o.toString());
        }
    }

    // ---- a model reloaded from disk under a compiled forward

    @Test
    void aCompiledForwardSeesWeightsLoadedFromDisk(@TempDir Path dir) throws Exception {
        Tensor.manualSeed(7);
        Sequential a = mlp(3, 5, 2), b = mlp(3, 5, 2);
        a.save(dir.resolve("a.safetensors"));
        Fn1<Tensor, Tensor> fb = Ember.compile(b);
        Tensor x = Tensor.randn(4, 3);
        fb.apply(x);
        b.load(dir.resolve("a.safetensors"));
        assertArrayEquals(a.forward(x).toFloatArray(), fb.apply(x).toFloatArray(), 1e-6f);
        assertEquals(1, allEntries(), "loading weights in place needs no recompile");
    }

    // ---- static training sizes up to the recompile limit

    @Test
    void staticSizesHitTheRecompileLimitAndSaySo() {
        Tensor.manualSeed(8);
        Sequential net = mlp(3, 5, 1);
        Fn1<Tensor, Tensor> f = Ember.compile(net, Options.defaults().dynamic(false).recompileLimit(3).failOnRecompileLimitHit(true));
        for (int n = 2; n < 5; n++) f.apply(Tensor.randn(n, 3)).sum().backward();
        RuntimeException e = assertThrows(RuntimeException.class, () -> f.apply(Tensor.randn(9, 3)));
        assertTrue(e.getMessage().contains("recompile") || e.getMessage().contains("limit"), e.getMessage());
        assertTrue(e.getMessage().contains("size mismatch at index 0"), e.getMessage());
    }

    @Test
    void aBatchNormTrainingStepOverManyBatchSizesStaysCorrectPastTheLimit() {
        List<List<float[]>> runs = new ArrayList<>();
        for (boolean compiled : new boolean[] {false, true}) {
            Ember.reset();
            Tensor.manualSeed(9);
            Sequential net = new Sequential(new Linear(3, 6, false), new BatchNorm1d(6), new ReLU(), new Linear(6, 1));
            Fn1<Tensor, Tensor> f = compiled ? Ember.compile(net) : net::call;
            SGD opt = new SGD(net.parameters(), SGD.options().lr(0.05));
            Generator data = new Generator(10);
            List<float[]> trace = new ArrayList<>();
            for (int n = 2; n < 14; n++) {
                Tensor x = Tensor.randn(data, n, 3);
                opt.zeroGrad();
                Tensor loss = f.apply(x).pow(2).mean();
                loss.backward();
                opt.step();
                trace.add(loss.toFloatArray());
                for (Tensor b : net.buffers()) trace.add(b.to(DType.FLOAT32).toFloatArray());
            }
            runs.add(trace);
        }
        sameTrace(runs.get(0), runs.get(1), 2e-6f, "batch norm over 12 batch sizes");
    }

    // ---- cross entropy options against libtorch, with gradients

    static Tensor weightedCe(Tensor logits, Tensor labels, Tensor weight) {
        return F.crossEntropy(logits, labels, weight, "mean", 2, 0.1);
    }

    @Test
    void crossEntropyWithWeightIgnoreIndexAndLabelSmoothing() {
        Tensor logits = Tensor.randn(7, 4).requiresGrad(true);
        Tensor labels = Tensor.of(new long[] {0, 2, 1, 3, 2, 0, 1}, 7);
        Tensor weight = Tensor.of(0.5f, 1f, 2f, 1.5f);
        var f = Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) NewUserTraining5cTest::weightedCe);
        Tensor got = f.apply(logits, labels, weight);
        String expr = "torch.cross_entropy_loss(a, b, c, 1, 2, 0.1)";
        assertClose(got, Torch.call(expr, logits.detach(), labels, weight), "weighted CE");
        got.backward();
        NDList want = Torch.callListWithGrad(Torch.manager(),
                "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([" + expr + "], [a])", logits.detach(), labels, weight);
        assertClose(logits.grad(), want.get(0), "weighted CE gradient");
    }

    // ---- a per-sample loss backward with a gradient of the wrong shape

    static Tensor perSample(Tensor a, Tensor b) { return F.mseLoss(a, b, "none").sum(1, false); }

    @Test
    void backwardWithAGradientOfTheWrongShapeSaysWhatEagerSays() {
        Tensor a = Tensor.randn(4, 3).requiresGrad(true), b = Tensor.randn(4, 3);
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) NewUserTraining5cTest::perSample);
        RuntimeException eager = assertThrows(RuntimeException.class, () -> perSample(a, b).backward(Tensor.ones(3)));
        RuntimeException compiled = assertThrows(RuntimeException.class, () -> f.apply(a, b).backward(Tensor.ones(3)));
        assertEquals(eager.getMessage(), compiled.getMessage());
        Tensor weights = Tensor.of(1f, 0f, 2f, 0.5f);
        f.apply(a, b).backward(weights);
        float[] got = a.grad().toFloatArray();
        a.setGrad(null);
        perSample(a, b).backward(weights);
        assertArrayEquals(a.grad().toFloatArray(), got, 1e-6f);
    }

    // ---- a generator passed in

    static Tensor noisyWith(Tensor x, Generator g) { return x.add(Tensor.randn(g, x.size(0), x.size(1))); }

    @Test
    void aGeneratorArgumentDrawsWhatEagerDraws() {
        Tensor x = Tensor.randn(3, 4);
        Tensor eager = noisyWith(x, new Generator(5));
        var f = Ember.compile((Fn2<Tensor, Generator, Tensor>) NewUserTraining5cTest::noisyWith);
        Generator g = new Generator(5);
        assertArrayEquals(eager.toFloatArray(), f.apply(x, g).toFloatArray(), 0f);
        Tensor second = f.apply(x, g);
        assertFalse(second.allclose(eager), "the generator moved on");
        Generator g2 = new Generator(5);
        noisyWith(x, g2);
        assertArrayEquals(noisyWith(x, g2).toFloatArray(), second.toFloatArray(), 0f);
    }

    // ---- debugNans and NaN asserts on a training loss

    static Tensor logLoss(Tensor p, Tensor target) {
        Tensor q = p.mul(2.0).sub(1.0);
        return q.log().mul(target).neg().mean();
    }

    @Test
    void debugNansNamesTheOpThatMadeTheNan() {
        Tensor p = Tensor.of(0.9f, 0.2f, 0.7f).requiresGrad(true), target = Tensor.of(1f, 0f, 1f);
        NanReport r = Ember.debugNans((Fn2<Tensor, Tensor, Tensor>) NewUserTraining5cTest::logLoss, p, target);
        assertTrue(r.found(), r.toString());
        assertTrue(r.op().contains("log"), r.toString());
        System.setProperty("ember.nan.asserts", "1");
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) NewUserTraining5cTest::logLoss);
        ArithmeticException e = assertThrows(ArithmeticException.class, () -> f.apply(p, target));
        assertTrue(e instanceof NonFiniteValueError, e.toString());
    }

    // ---- LambdaLR and ReduceLROnPlateau with a compiled Adam: one compile

    @Test
    void lambdaLrWarmupWithACompiledAdamCompilesOnce() {
        List<List<float[]>> runs = new ArrayList<>();
        for (boolean compiled : new boolean[] {false, true}) {
            Ember.reset();
            Tensor.manualSeed(11);
            Sequential net = mlp(3, 4, 1);
            Adam opt = new Adam(net.parameters(), Adam.options().lr(1e-2));
            if (compiled) Ember.compile(opt);
            var warmup = new LambdaLR(opt, e -> Math.min(1.0, (e + 1) / 4.0));
            var plateau = new ReduceLROnPlateau(opt, ReduceLROnPlateau.options().patience(0).factor(0.3));
            Generator data = new Generator(12);
            List<float[]> trace = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                opt.zeroGrad();
                Tensor loss = net.forward(Tensor.randn(data, 5, 3)).pow(2).mean();
                loss.backward();
                opt.step();
                if (i < 4) warmup.step();
                else plateau.step(1.0);                        // never improves after the first: the rate drops each epoch
                trace.add(new float[] {(float) opt.paramGroups().get(0).lr()});
                for (Parameter p : net.parameters()) trace.add(p.toFloatArray());
            }
            runs.add(trace);
            if (compiled) assertEquals(1, allEntries(), "the learning rate is an input of the compiled step");
        }
        sameTrace(runs.get(0), runs.get(1), 1e-6f, "LambdaLR then ReduceLROnPlateau");
    }

    // ---- a compiled optimizer over float64 and float32 groups

    @Test
    void aCompiledOptimizerOverFloat64AndFloat32Groups() {
        List<List<float[]>> runs = new ArrayList<>();
        for (boolean compiled : new boolean[] {false, true}) {
            Ember.reset();
            Tensor.manualSeed(13);
            Tensor w32 = Tensor.randn(3, 3).requiresGrad(true);
            Tensor w64 = Tensor.randn(3).to(DType.FLOAT64).requiresGrad(true);
            Adam opt = new Adam(List.of(w32), Adam.options().lr(1e-2).weightDecay(0.01));
            opt.addParamGroup(List.of(w64), o -> o.lr(1e-3));
            if (compiled) Ember.compile(opt);
            List<float[]> trace = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                opt.zeroGrad();
                w32.sum(1, false).to(DType.FLOAT64).mul(w64).sin().sum().backward();
                opt.step();
                trace.add(w32.toFloatArray());
                trace.add(w64.to(DType.FLOAT32).toFloatArray());
                assertEquals(DType.FLOAT64, opt.state(w64).get("exp_avg").dtype());
            }
            runs.add(trace);
        }
        sameTrace(runs.get(0), runs.get(1), 1e-6f, "two dtypes");
    }

    // ---- double backward through a compiled function: what path was taken

    static Tensor cube(Tensor x) { return x.pow(3).sum(); }

    @Test
    void secondDerivativeOfACompiledFunction() {
        Tensor x = Tensor.of(1.0, 2.0, -0.5).requiresGrad(true);
        var f = Ember.compile((Fn1<Tensor, Tensor>) NewUserTraining5cTest::cube);
        Tensor y = f.apply(x);
        Tensor g;
        try {
            g = Autograd.grad(List.of(y), List.of(x), null, true, true, false).get(0);
        } catch (RuntimeException e) {
            assertTrue(String.valueOf(e.getMessage()).contains("double backward"), e.toString());
            return;
        }
        if (!g.requiresGrad()) {
            // the compiled backward did not record: a second grad must refuse clearly, never return zeros
            RuntimeException e = assertThrows(RuntimeException.class, () -> Autograd.grad(g.sum(), x));
            assertTrue(e.getMessage().contains("does not require grad") || e.getMessage().contains("double backward"), e.getMessage());
            return;
        }
        Tensor gg = Autograd.grad(g.sum(), x).get(0);
        NDList want = Torch.callListWithGrad(Torch.manager(),
                "a = a.detach().requires_grad_(True)\ng = torch.autograd.grad([a.pow(3).sum()], [a], create_graph=True)[0]\nassert g is not None\nreturn torch.autograd.grad([g.sum()], [a])", x.detach());
        assertClose(gg, want.get(0), "second derivative through the compiled function");
    }

    // ---- export: a loss function of logits and int64 labels, dynamic batch, saved and loaded

    static List<Tensor> lossAndLogits(Sequential net, Tensor x, Tensor labels) {
        Tensor logits = net.forward(x);
        return List.of(F.crossEntropy(logits, labels), logits.argmax(1, false));
    }

    @Test
    void exportALossFunctionWithLabelsAndADynamicBatch(@TempDir Path dir) throws Exception {
        Tensor.manualSeed(30);
        Sequential net = mlp(4, 6, 3);
        Tensor x = Tensor.randn(5, 4), labels = Tensor.of(new long[] {0, 2, 1, 1, 0}, 5);
        dev.ember.export.Dim batch = dev.ember.export.Dim.of("batch", 2, 128);
        ExportedProgram ep = Ember.export(ExportOptions.defaults().dynamic(1, 0, batch).dynamic(2, 0, batch),
                (Fn3<Sequential, Tensor, Tensor, List<Tensor>>) NewUserTraining5cTest::lossAndLogits, net, x, labels);
        ep.save(dir.resolve("loss.ember"));
        ExportedProgram loaded = ExportedProgram.load(dir.resolve("loss.ember"));
        Tensor x9 = Tensor.randn(9, 4), l9 = Tensor.randint(0, 3, 9);
        List<Tensor> want = lossAndLogits(net, x9, l9);
        List<Tensor> got = loaded.run(x9, l9);
        assertArrayEquals(want.get(0).toFloatArray(), got.get(0).toFloatArray(), 1e-6f);
        assertArrayEquals(want.get(1).toLongArray(), got.get(1).toLongArray());
        RuntimeException dtype = assertThrows(RuntimeException.class, () -> loaded.run(x9, l9.to(DType.INT32)));
        assertTrue(dtype.getMessage().contains("has dtype i32"), dtype.getMessage());
        RuntimeException unequal = assertThrows(RuntimeException.class, () -> loaded.run(x9, Tensor.randint(0, 3, 8)));
        assertTrue(unequal.getMessage().contains("labels"), unequal.getMessage());
    }

    // ---- export of an unrolled recurrent cell over a sequence

    static Tensor unrolled(dev.ember.nn.GRUCell cell, Tensor seq) {
        Tensor h = Tensor.zeros(seq.size(1), 5);
        for (int t = 0; t < seq.size(0); t++) h = cell.forward(seq.select(0, t), h);
        return h;
    }

    @Test
    void exportAnUnrolledGruCellAndRunItInEagerAndInductor() {
        Tensor.manualSeed(31);
        dev.ember.nn.GRUCell cell = new dev.ember.nn.GRUCell(3, 5);
        Tensor seq = Tensor.randn(6, 2, 3);
        ExportedProgram ep = Ember.export((Fn2<dev.ember.nn.GRUCell, Tensor, Tensor>) NewUserTraining5cTest::unrolled, cell, seq);
        Tensor want = unrolled(cell, seq);
        assertArrayEquals(want.toFloatArray(), ep.run(seq).getFirst().toFloatArray(), 1e-6f);
        assertArrayEquals(want.toFloatArray(), ep.withBackend("eager").run(seq).getFirst().toFloatArray(), 1e-6f);
    }

    // ---- non-strict export of a function that draws noise while it is exported

    static Tensor withNoise(Tensor x) { return x.add(Tensor.randn(3).mul(0.01)); }

    @Test
    void nonStrictExportBakesNoiseDrawnAtExportAsAConstant() {
        Tensor x = Tensor.randn(2, 3);
        Tensor.manualSeed(32);
        ExportedProgram ep = Ember.export(ExportOptions.nonStrict(), (Fn1<Tensor, Tensor>) NewUserTraining5cTest::withNoise, x);
        Tensor a = ep.run(x).getFirst(), b = ep.run(x).getFirst();
        assertArrayEquals(a.toFloatArray(), b.toFloatArray(), 0f, "the noise is a constant of the program");
        Tensor.manualSeed(32);
        assertArrayEquals(withNoise(x).toFloatArray(), a.toFloatArray(), 0f, "the numbers drawn at export");
    }
}
