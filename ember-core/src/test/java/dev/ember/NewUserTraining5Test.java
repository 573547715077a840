package dev.ember;

import ai.djl.ndarray.NDList;
import dev.ember.autograd.Autograd;
import dev.ember.autograd.CustomFunction;
import dev.ember.dynamo.CompiledFrame;
import dev.ember.dynamo.FrameRegistry;
import dev.ember.dynamo.RecompileError;
import dev.ember.export.ExportedProgram;
import dev.ember.nn.BatchNorm1d;
import dev.ember.nn.ClipGrad;
import dev.ember.nn.Dropout;
import dev.ember.nn.F;
import dev.ember.nn.GRUCell;
import dev.ember.nn.Linear;
import dev.ember.nn.Module;
import dev.ember.nn.Parameter;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.optim.Adam;
import dev.ember.optim.AdamW;
import dev.ember.optim.CosineAnnealingLR;
import dev.ember.optim.OneCycleLR;
import dev.ember.optim.Optimizer;
import dev.ember.optim.ReduceLROnPlateau;
import dev.ember.optim.SGD;
import dev.ember.optim.StepLR;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
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
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Training programs as a Java developer new to Ember writes them from README.md, docs/training.md,
 * docs/autograd.md, docs/dynamic.md, docs/export.md, docs/compile.md and docs/stances.md: training
 * loops, optimizers and schedulers, autograd, export, dynamic batch sizes, compile options and
 * stances. Each runs eagerly and compiled and compares (and, where an op's numbers matter, checks
 * against libtorch), and each bad input gives the message eager (or libtorch) gives.
 */
class NewUserTraining5Test {

    @AfterEach
    void reset() { Ember.reset(); }

    // ------------------------------------------------------------------ helpers

    private static int entriesOf(Options opts) {
        return FrameRegistry.frames().stream().filter(f -> f.options() == opts).mapToInt(f -> f.entries().size()).sum();
    }

    private static void addParams(List<float[]> trace, Module m) {
        for (Parameter p : m.parameters()) trace.add(p.toFloatArray());
    }

    // ------------------------------------------------------------------ 1. gradient accumulation + clip_grad_norm

    private static List<float[]> accumulate(boolean compiled) {
        Tensor.manualSeed(3);
        Sequential net = mlp(6, 16, 2);
        SGD opt = new SGD(net.parameters(), SGD.options().lr(0.05).momentum(0.9));
        Fn1<Tensor, Tensor> forward = compiled ? Ember.compile(net) : net::call;
        Generator data = new Generator(7);
        List<float[]> trace = new ArrayList<>();
        int microBatches = 4;
        for (int step = 0; step < 3; step++) {
            opt.zeroGrad();
            for (int micro = 0; micro < microBatches; micro++) {
                Tensor x = Tensor.randn(data, 8, 6), y = Tensor.randn(data, 8, 2);
                Tensor loss = F.mseLoss(forward.apply(x), y).div(microBatches);
                loss.backward();
                trace.add(loss.toFloatArray());
            }
            Tensor norm = ClipGrad.clipGradNorm_(net.parameters(), 0.5);
            trace.add(norm.toFloatArray());
            opt.step();
            addParams(trace, net);
        }
        return trace;
    }

    @Test
    void gradientAccumulationOverMicroBatchesWithClipping() {
        sameTrace(accumulate(false), accumulate(true), 1e-6f, "accumulated SGD steps");
    }

    // ------------------------------------------------------------------ 2. SGD momentum + StepLR, compiled step

    private static List<float[]> sgdStepLr(boolean compiledStep, List<Double> lrs) {
        Tensor.manualSeed(5);
        Sequential net = mlp(4, 8, 1);
        SGD opt = new SGD(net.parameters(), SGD.options().lr(0.1).momentum(0.9).nesterov(true).dampening(0));
        if (compiledStep) Ember.compile(opt);
        StepLR sched = new StepLR(opt, 2, 0.5);
        Generator data = new Generator(1);
        List<float[]> trace = new ArrayList<>();
        for (int epoch = 0; epoch < 6; epoch++) {
            lrs.add(opt.paramGroups().get(0).lr());
            Tensor x = Tensor.randn(data, 16, 4), y = Tensor.randn(data, 16, 1);
            opt.zeroGrad();
            Tensor loss = net.forward(x).sub(y).pow(2).mean();
            loss.backward();
            opt.step();
            sched.step();
            trace.add(loss.toFloatArray());
            addParams(trace, net);
        }
        return trace;
    }

    @Test
    void sgdWithMomentumAndStepLrCompiledStepMatchesEager() {
        List<Double> eagerLrs = new ArrayList<>(), compiledLrs = new ArrayList<>();
        List<float[]> eager = sgdStepLr(false, eagerLrs);
        List<float[]> compiled = sgdStepLr(true, compiledLrs);
        sameTrace(eager, compiled, 0f, "SGD nesterov + StepLR");
        for (int epoch = 0; epoch < 6; epoch++) {
            assertEquals(0.1 * Math.pow(0.5, epoch / 2), eagerLrs.get(epoch), 1e-15, "StepLR closed form at epoch " + epoch);
        }
        assertEquals(eagerLrs, compiledLrs);
        assertTrue(allEntries() <= 2, "the compiled step compiles once per group shape, not per learning rate: " + allEntries());
    }

    // ------------------------------------------------------------------ 3. Adam + CosineAnnealingLR; weight decay on some groups only

    private static List<float[]> adamGroups(boolean compiledStep) {
        Tensor.manualSeed(9);
        Linear body = new Linear(5, 7), head = new Linear(7, 3);
        Sequential net = new Sequential(body, new ReLU(), head);
        List<Tensor> weights = List.of(body.weight, head.weight);
        List<Tensor> biases = List.of(body.bias, head.bias);
        Adam opt = new Adam(weights, Adam.options().lr(1e-2).weightDecay(0.1));
        opt.addParamGroup(biases, o -> o.weightDecay(0.0));
        if (compiledStep) Ember.compile(opt);
        CosineAnnealingLR sched = new CosineAnnealingLR(opt, 5);
        Generator data = new Generator(2);
        List<float[]> trace = new ArrayList<>();
        for (int step = 0; step < 5; step++) {
            Tensor x = Tensor.randn(data, 12, 5);
            Tensor y = Tensor.randint(data, 0, 3, 12);
            opt.zeroGrad();
            Tensor loss = F.crossEntropy(net.forward(x), y);
            loss.backward();
            opt.step();
            sched.step();
            trace.add(loss.toFloatArray());
            trace.add(new float[] {(float) opt.paramGroups().get(0).lr(), (float) opt.paramGroups().get(1).lr()});
            addParams(trace, net);
        }
        return trace;
    }

    @Test
    void adamWithWeightDecayOnWeightsOnlyAndCosineAnnealing() {
        List<float[]> eager = adamGroups(false);
        sameTrace(eager, adamGroups(true), 2e-7f, "Adam, two groups");
        // the rate after each step is CosineAnnealingLR's closed form, the same for both groups
        for (int step = 0; step < 5; step++) {
            double want = 1e-2 * (1 + Math.cos(Math.PI * (step + 1) / 5)) / 2;
            float[] lrs = eager.get(step * 6 + 1);
            assertEquals(want, lrs[0], 1e-9, "lr after step " + step);
            assertEquals(want, lrs[1], 1e-9, "lr after step " + step);
        }
    }

    @Test
    void weightDecayOfOneGroupLeavesTheOtherGroupAsPlainAdam() {
        Tensor.manualSeed(4);
        Tensor w = Tensor.randn(3, 3).requiresGrad(true), b = Tensor.randn(3).requiresGrad(true);
        Tensor w2 = w.detach().clone().requiresGrad(true), b2 = b.detach().clone().requiresGrad(true);
        Adam grouped = new Adam(List.of(w), Adam.options().lr(0.1).weightDecay(0.5));
        grouped.addParamGroup(List.of(b), o -> o.weightDecay(0));
        Adam plain = new Adam(List.of(w2, b2), Adam.options().lr(0.1));
        Tensor x = Tensor.randn(4, 3);
        for (int i = 0; i < 3; i++) {
            grouped.zeroGrad();
            plain.zeroGrad();
            x.matmul(w).tanh().sum().add(b.sin().sum()).backward();       // the bias's gradient does not depend on w
            x.matmul(w2).tanh().sum().add(b2.sin().sum()).backward();
            grouped.step();
            plain.step();
        }
        assertArrayEquals(b2.toFloatArray(), b.toFloatArray(), 0f, "the bias group has no weight decay");
        assertFalse(w.allclose(w2), "the weight group decays");
    }

    // ------------------------------------------------------------------ 4. zeroGrad semantics

    @Test
    void zeroGradSetToNoneAndInPlaceWithACompiledForward() {
        Tensor.manualSeed(2);
        Sequential net = mlp(3, 4, 1);
        Fn1<Tensor, Tensor> forward = Ember.compile(net);
        SGD opt = new SGD(net.parameters(), SGD.options().lr(0.1));
        Tensor x = Tensor.randn(5, 3);
        forward.apply(x).sum().backward();
        List<Tensor> first = net.parameters().stream().map(p -> p.grad().clone()).toList();
        opt.zeroGrad(false);                                   // zeros, in place
        for (Parameter p : net.parameters()) {
            assertNotNull(p.grad());
            assertEquals(0.0, p.grad().abs().sum().item());
        }
        forward.apply(x).sum().backward();                     // accumulates into the zeros
        for (int i = 0; i < first.size(); i++) assertArrayEquals(first.get(i).toFloatArray(), net.parameters().get(i).grad().toFloatArray(), 1e-6f);
        forward.apply(x).sum().backward();                     // and again: twice the gradient
        for (int i = 0; i < first.size(); i++) assertArrayEquals(first.get(i).mul(2).toFloatArray(), net.parameters().get(i).grad().toFloatArray(), 1e-6f);
        opt.zeroGrad();                                        // back to null
        for (Parameter p : net.parameters()) assertNull(p.grad());
        float[] before = net.parameters().get(0).toFloatArray();
        opt.step();                                            // parameters without a gradient are skipped
        assertArrayEquals(before, net.parameters().get(0).toFloatArray(), 0f);
    }

    // ------------------------------------------------------------------ 5. eval under noGrad between epochs (BN, dropout)

    private static List<float[]> trainEval(Options opts) {
        Tensor.manualSeed(21);
        Sequential net = new Sequential(new Linear(6, 12), new BatchNorm1d(12), new ReLU(), new Dropout(0.3), new Linear(12, 2));
        Fn1<Tensor, Tensor> forward = opts == null ? net::call : Ember.compile(net, opts);
        // SGD, not Adam: the first layer's bias has a gradient of rounding noise only (batch norm removes
        // the mean), which Adam would normalize into steps of lr, in whatever direction the noise points
        SGD opt = new SGD(net.parameters(), SGD.options().lr(0.1).momentum(0.9));
        Generator data = new Generator(3);
        Tensor xVal = Tensor.randn(data, 10, 6);
        List<float[]> trace = new ArrayList<>();
        for (int epoch = 0; epoch < 2; epoch++) {
            net.train();
            for (int step = 0; step < 3; step++) {
                Tensor x = Tensor.randn(data, 8, 6), y = Tensor.randint(data, 0, 2, 8);
                opt.zeroGrad();
                Tensor loss = F.crossEntropy(forward.apply(x), y);
                loss.backward();
                opt.step();
                trace.add(loss.toFloatArray());
            }
            net.eval();
            try (var s = Ember.noGrad()) {
                Tensor out = forward.apply(xVal);
                assertFalse(out.requiresGrad());
                trace.add(out.toFloatArray());
            }
            for (Tensor b : net.buffers()) trace.add(b.to(DType.FLOAT32).toFloatArray());
        }
        return trace;
    }

    @Test
    void evalUnderNoGradBetweenTrainingEpochsSwitchesBatchNormAndDropout() {
        List<float[]> eager = trainEval(null);
        Options opts = Options.backend("inductor");
        sameTrace(eager, trainEval(opts), 2e-6f, "train/eval epochs");
        assertEquals(2, entriesOf(opts), "one training graph and one eval graph, reused by the second epoch");
    }

    // ------------------------------------------------------------------ 6. a custom autograd function, compiled

    static final class ScaledSoftsign extends CustomFunction {
        final double scale;

        ScaledSoftsign(double scale) { this.scale = scale; }

        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) {
            ctx.saveForBackward(in[0]);
            return new Tensor[] {in[0].div(in[0].abs().add(1.0)).mul(scale)};
        }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) {
            Tensor x = ctx.savedTensors().get(0);
            Tensor d = x.abs().add(1.0).pow(2).reciprocal().mul(scale);
            return new Tensor[] {grad[0].mul(d)};
        }
    }

    static Tensor customLoss(Tensor x, Tensor w) {
        return new ScaledSoftsign(2.0).apply(x.matmul(w)).pow(2).mean();
    }

    @Test
    void aCustomAutogradFunctionTrainsCompiledAsEager() {
        Tensor.manualSeed(8);
        Tensor x = Tensor.randn(6, 4);
        Tensor w = Tensor.randn(4, 3).requiresGrad(true);
        customLoss(x, w).backward();
        Tensor eagerGrad = w.grad().clone();
        w.setGrad(null);
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) NewUserTraining5Test::customLoss);
        Tensor loss = f.apply(x, w);
        loss.backward();
        assertArrayEquals(eagerGrad.toFloatArray(), w.grad().toFloatArray(), 1e-6f);
        // the formula itself, against libtorch's autograd of the same softsign
        NDList want = Torch.callListWithGrad(Torch.manager(),
                "b = b.detach().requires_grad_(True)\nz = a @ b\ny = (2.0 * z / (1.0 + z.abs())).pow(2).mean()\nreturn torch.autograd.grad([y], [b])", x, w.detach());
        assertClose(w.grad(), want.get(0), "custom function gradient");
    }

    // ------------------------------------------------------------------ 7. grad of grad

    static Tensor cubicSum(Tensor x) { return x.pow(3).mul(x.sin()).sum(); }

    @Test
    void gradOfGradEagerlyMatchesLibtorch() {
        Tensor x = Tensor.randn(5).to(DType.FLOAT64).requiresGrad(true);
        Tensor g = Autograd.grad(List.of(cubicSum(x)), List.of(x), null, true, true, false).get(0);
        Tensor gg = Autograd.grad(g.sum(), x).get(0);
        NDList want = Torch.callListWithGrad(Torch.manager(),
                "a = a.detach().requires_grad_(True)\ny = (a.pow(3) * a.sin()).sum()\ng = torch.autograd.grad([y], [a], create_graph=True)[0]\nassert g is not None\nreturn torch.autograd.grad([g.sum()], [a])", x.detach());
        assertClose(gg, want.get(0), "second derivative");
    }

    @Test
    void gradOfGradThroughACompiledFunctionIsRightOrRefusedClearly() {
        Tensor x = Tensor.randn(5).to(DType.FLOAT64).requiresGrad(true);
        Tensor g = Autograd.grad(List.of(cubicSum(x)), List.of(x), null, true, true, false).get(0);
        Tensor eager = Autograd.grad(g.sum(), x).get(0);
        var f = Ember.compile((Fn1<Tensor, Tensor>) NewUserTraining5Test::cubicSum);
        try {
            Tensor cg = Autograd.grad(List.of(f.apply(x)), List.of(x), null, true, true, false).get(0);
            Tensor cgg = Autograd.grad(cg.sum(), x).get(0);
            assertArrayEquals(eager.toDoubleArray(), cgg.toDoubleArray(), 1e-12);
        } catch (RuntimeException e) {
            String msg = e.getMessage();
            assertTrue(msg != null && (msg.contains("double backward") || msg.contains("createGraph") || msg.contains("create_graph")),
                    "a clear refusal naming double backward, got: " + e);
        }
    }

    // ------------------------------------------------------------------ 8. retainGraph twice

    static Tensor twoLayerLoss(Tensor x, Tensor w1, Tensor w2) { return x.matmul(w1).tanh().matmul(w2).pow(2).mean(); }

    @Test
    void backwardTwiceWithRetainGraphAccumulatesAsEager() {
        Tensor.manualSeed(12);
        Tensor x = Tensor.randn(5, 4), w1 = Tensor.randn(4, 6).requiresGrad(true), w2 = Tensor.randn(6, 2).requiresGrad(true);
        Tensor eagerLoss = twoLayerLoss(x, w1, w2);
        eagerLoss.backward(null, true);
        eagerLoss.backward(null, true);
        float[] g1 = w1.grad().toFloatArray(), g2 = w2.grad().toFloatArray();
        RuntimeException eagerThird;
        eagerLoss.backward();                                 // frees the graph
        eagerThird = assertThrows(RuntimeException.class, eagerLoss::backward);
        w1.setGrad(null);
        w2.setGrad(null);
        var f = Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) NewUserTraining5Test::twoLayerLoss);
        Tensor loss = f.apply(x, w1, w2);
        loss.backward(null, true);
        loss.backward(null, true);
        assertArrayEquals(g1, w1.grad().toFloatArray(), 1e-6f);
        assertArrayEquals(g2, w2.grad().toFloatArray(), 1e-6f);
        loss.backward();
        RuntimeException compiledThird = assertThrows(RuntimeException.class, loss::backward);
        assertTrue(compiledThird.getMessage().contains("Trying to backward through the graph a second time"), compiledThird.getMessage());
        assertTrue(eagerThird.getMessage().contains("Trying to backward through the graph a second time"), eagerThird.getMessage());
    }

    // ------------------------------------------------------------------ 9. truncated BPTT on a GRU cell

    private static List<float[]> bptt(boolean compiled) {
        Tensor.manualSeed(30);
        GRUCell cell = new GRUCell(3, 5);
        Linear readout = new Linear(5, 1);
        List<Tensor> params = new ArrayList<>(cell.parameters());
        params.addAll(readout.parameters());
        Adam opt = new Adam(params, Adam.options().lr(5e-3));
        Fn2<Tensor, Tensor, Tensor> step = compiled ? Ember.compile((Fn2<Tensor, Tensor, Tensor>) cell::forward) : cell::forward;
        Generator data = new Generator(4);
        Tensor seq = Tensor.randn(data, 12, 2, 3), target = Tensor.randn(data, 12, 2, 1);
        Tensor h = Tensor.zeros(2, 5);
        List<float[]> trace = new ArrayList<>();
        int k = 4;
        for (int chunk = 0; chunk < 3; chunk++) {
            h = h.detach();                                   // truncate: no gradient into the previous chunk
            opt.zeroGrad();
            Tensor loss = Tensor.zeros();
            for (int t = chunk * k; t < (chunk + 1) * k; t++) {
                h = step.apply(seq.select(0, t), h);
                loss = loss.add(F.mseLoss(readout.forward(h), target.select(0, t)));
            }
            loss.backward();
            opt.step();
            trace.add(loss.toFloatArray());
            trace.add(h.toFloatArray());
        }
        for (Tensor p : params) trace.add(p.toFloatArray());
        return trace;
    }

    @Test
    void truncatedBackpropThroughTimeOnAGruCell() {
        sameTrace(bptt(false), bptt(true), 2e-6f, "GRU cell BPTT");
    }

    // ------------------------------------------------------------------ 10. checkpoint and resume

    private static List<Float> trainSteps(Sequential net, Optimizer opt, Fn1<Tensor, Tensor> forward, Generator data, int steps) {
        List<Float> losses = new ArrayList<>();
        for (int i = 0; i < steps; i++) {
            Tensor x = Tensor.randn(data, 16, 4), y = Tensor.randn(data, 16, 2);
            opt.zeroGrad();
            Tensor loss = F.mseLoss(forward.apply(x), y);
            loss.backward();
            opt.step();
            losses.add((float) loss.item());
        }
        return losses;
    }

    @Test
    void stateDictSaveLoadAndResumedTrainingGivesTheSameLosses(@TempDir Path dir) throws Exception {
        Tensor.manualSeed(41);
        Sequential net = mlp(4, 8, 2);
        AdamW opt = new AdamW(net.parameters(), AdamW.options().lr(1e-2));
        Fn1<Tensor, Tensor> forward = Ember.compile(net);
        Generator data = new Generator(10);
        trainSteps(net, opt, forward, data, 3);
        net.save(dir.resolve("model.safetensors"));
        opt.save(dir.resolve("optim.safetensors"));
        List<Float> continued = trainSteps(net, opt, forward, new Generator(20), 3);

        Tensor.manualSeed(1234);                               // other initial weights, overwritten by the load
        Sequential restored = mlp(4, 8, 2);
        restored.load(dir.resolve("model.safetensors"));
        AdamW restoredOpt = new AdamW(restored.parameters(), AdamW.options());
        restoredOpt.load(dir.resolve("optim.safetensors"));
        assertEquals(1e-2, restoredOpt.paramGroups().get(0).lr());
        List<Float> resumed = trainSteps(restored, restoredOpt, Ember.compile(restored), new Generator(20), 3);
        assertEquals(continued, resumed);
        for (int i = 0; i < net.parameters().size(); i++) {
            assertArrayEquals(net.parameters().get(i).toFloatArray(), restored.parameters().get(i).toFloatArray(), 0f);
        }
    }

    @Test
    void loadingAStateDictOfAnotherShapeSaysWhichKey() {
        Sequential a = mlp(4, 8, 2), b = mlp(4, 9, 2);
        RuntimeException e = assertThrows(RuntimeException.class, () -> b.loadStateDict(a.stateDict()));
        assertTrue(e.getMessage().contains("Error(s) in loading state_dict for Sequential"), e.getMessage());
        assertTrue(e.getMessage().contains("0.weight"), e.getMessage());
        AdamW optA = new AdamW(a.parameters(), AdamW.options());
        a.forward(Tensor.randn(2, 4)).sum().backward();
        optA.step();
        AdamW optB = new AdamW(b.parameters(), AdamW.options());
        RuntimeException o = assertThrows(RuntimeException.class, () -> optB.loadStateDict(optA.stateDict()));
        assertNotNull(o.getMessage());
        assertTrue(o.getMessage().contains("shape") || o.getMessage().contains("size"), o.getMessage());
    }

    // ------------------------------------------------------------------ 11. a whole train step compiled

    static final class Trainer {
        final Sequential net;
        final SGD opt;

        Trainer(Sequential net) {
            this.net = net;
            this.opt = new SGD(net.parameters(), SGD.options().lr(0.05).momentum(0.5));
        }

        Tensor trainStep(Tensor x, Tensor y) {
            opt.zeroGrad();
            Tensor loss = F.mseLoss(net.forward(x), y);
            loss.backward();
            opt.step();
            return loss.detach();
        }
    }

    private static List<float[]> trainerRun(boolean compiled) {
        Tensor.manualSeed(50);
        Trainer t = new Trainer(mlp(3, 6, 1));
        Fn2<Tensor, Tensor, Tensor> step = compiled ? Ember.compile((Fn2<Tensor, Tensor, Tensor>) t::trainStep) : t::trainStep;
        Generator data = new Generator(6);
        List<float[]> trace = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Tensor x = Tensor.randn(data, 10, 3), y = Tensor.randn(data, 10, 1);
            trace.add(step.apply(x, y).toFloatArray());
            addParams(trace, t.net);
        }
        return trace;
    }

    @Test
    void aWholeTrainStepWithBackwardAndStepInsideTheCompiledFunction() {
        sameTrace(trainerRun(false), trainerRun(true), 1e-6f, "compiled train step");
    }

    // ------------------------------------------------------------------ 12. optimizer.step(closure)

    @Test
    void stepWithAClosureThatRunsACompiledForward() {
        Tensor.manualSeed(13);
        Sequential net = mlp(2, 4, 1);
        Sequential twin = mlp(2, 4, 1);
        twin.loadStateDict(net.stateDict());
        Fn1<Tensor, Tensor> forward = Ember.compile(net);
        SGD opt = new SGD(net.parameters(), SGD.options().lr(0.1));
        SGD twinOpt = new SGD(twin.parameters(), SGD.options().lr(0.1));
        Tensor x = Tensor.randn(7, 2), y = Tensor.randn(7, 1);
        for (int i = 0; i < 3; i++) {
            Tensor loss = opt.step(() -> {
                opt.zeroGrad();
                Tensor l = F.mseLoss(forward.apply(x), y);
                l.backward();
                return l;
            });
            Tensor twinLoss = twinOpt.step(() -> {
                twinOpt.zeroGrad();
                Tensor l = F.mseLoss(twin.forward(x), y);
                l.backward();
                return l;
            });
            assertEquals(twinLoss.item(), loss.item(), 1e-6);
        }
        assertArrayEquals(twin.parameters().get(0).toFloatArray(), net.parameters().get(0).toFloatArray(), 1e-6f);
    }

    // ------------------------------------------------------------------ 13. export a trained model

    @Test
    void exportATrainedModelAndRunTheSavedProgram(@TempDir Path dir) throws Exception {
        Tensor.manualSeed(60);
        Sequential net = new Sequential(new Linear(4, 8), new BatchNorm1d(8), new ReLU(), new Linear(8, 3));
        AdamW opt = new AdamW(net.parameters(), AdamW.options().lr(1e-2));
        Fn1<Tensor, Tensor> forward = Ember.compile(net);
        for (int i = 0; i < 3; i++) {
            Tensor x = Tensor.randn(8, 4), y = Tensor.randint(0, 3, 8);
            opt.zeroGrad();
            F.crossEntropy(forward.apply(x), y).backward();
            opt.step();
        }
        net.eval();
        Tensor probe = Tensor.randn(8, 4);
        Tensor want;
        try (var s = Ember.noGrad()) {
            want = net.forward(probe);
        }
        ExportedProgram ep = Ember.export(net, probe);
        assertArrayEquals(want.toFloatArray(), ep.run(probe).getFirst().toFloatArray(), 1e-6f);
        ep.save(dir.resolve("net.ember"));
        ExportedProgram loaded = ExportedProgram.load(dir.resolve("net.ember"));
        assertArrayEquals(want.toFloatArray(), loaded.run(probe).getFirst().toFloatArray(), 1e-6f);
        RuntimeException e = assertThrows(RuntimeException.class, () -> loaded.run(Tensor.randn(8, 5)));
        assertTrue(e.getMessage().contains("input 'input' dimension 1 is 5, but the program was exported for 4"), e.getMessage());
        RuntimeException d = assertThrows(RuntimeException.class, () -> loaded.run(probe.to(DType.FLOAT64)));
        assertTrue(d.getMessage().contains("dtype f64"), d.getMessage());
    }

    @Test
    void exportOfAModelInTrainingModeThenEvalKeepsWhatWasExported() {
        Tensor.manualSeed(61);
        Sequential net = new Sequential(new Linear(4, 6), new BatchNorm1d(6));
        Tensor x = Tensor.randn(5, 4);
        net.eval();
        ExportedProgram ep = Ember.export(net, x);
        Tensor before = ep.run(x).getFirst();
        // training the module afterwards does not change the exported program
        net.train();
        SGD opt = new SGD(net.parameters(), SGD.options().lr(0.5));
        net.forward(x).pow(2).sum().backward();
        opt.step();
        assertArrayEquals(before.toFloatArray(), ep.run(x).getFirst().toFloatArray(), 0f);
    }

    // ------------------------------------------------------------------ 14. dynamic batch sizes in eval and in training

    @Test
    void dynamicBatchSizesInEvalCompileTwice() {
        Tensor.manualSeed(70);
        Sequential net = new Sequential(new Linear(6, 10), new BatchNorm1d(10), new ReLU(), new Linear(10, 3));
        net.eval();
        Options opts = Options.backend("inductor");
        Fn1<Tensor, Tensor> forward = Ember.compile(net, opts);
        try (var s = Ember.noGrad()) {
            for (int n : new int[] {4, 7, 2, 19, 33, 5}) {
                Tensor x = Tensor.randn(n, 6);
                assertArrayEquals(net.forward(x).toFloatArray(), forward.apply(x).toFloatArray(), 1e-5f, "batch " + n);
            }
        }
        assertEquals(2, entriesOf(opts), "the first size, then one graph for all");
    }

    private static List<float[]> dynamicTrain(Options opts) {
        Tensor.manualSeed(71);
        Sequential net = mlp(5, 9, 1);
        SGD opt = new SGD(net.parameters(), SGD.options().lr(0.05).momentum(0.9));
        Fn1<Tensor, Tensor> forward = opts == null ? net::call : Ember.compile(net, opts);
        Generator data = new Generator(8);
        List<float[]> trace = new ArrayList<>();
        for (int n : new int[] {8, 8, 3, 12, 5, 31}) {
            Tensor x = Tensor.randn(data, n, 5), y = Tensor.randn(data, n, 1);
            opt.zeroGrad();
            Tensor loss = F.l1Loss(forward.apply(x), y, "sum");
            loss.backward();
            opt.step();
            trace.add(loss.toFloatArray());
            addParams(trace, net);
        }
        return trace;
    }

    @Test
    void dynamicBatchSizesInTrainingWithASumLoss() {
        Options opts = Options.backend("inductor");
        sameTrace(dynamicTrain(null), dynamicTrain(opts), 5e-6f, "dynamic batch training");
        assertEquals(2, entriesOf(opts), "the first size, then one generic pair");
    }

    @Test
    void failOnRecompileAfterWarmupHoldsForEveryBatchSize() {
        Tensor.manualSeed(72);
        Sequential net = mlp(5, 9, 1);
        Fn1<Tensor, Tensor> forward = Ember.compile(net);
        forward.apply(Tensor.randn(4, 5)).sum().backward();
        forward.apply(Tensor.randn(6, 5)).sum().backward();    // the recompile that makes the batch a symbol
        try (var s = Ember.stance(Stance.FAIL_ON_RECOMPILE)) {
            for (int n : new int[] {3, 17, 40}) forward.apply(Tensor.randn(n, 5)).sum().backward();
            RecompileError e = assertThrows(RecompileError.class, () -> forward.apply(Tensor.randn(4, 5).to(DType.FLOAT64)));
            assertTrue(e.getMessage().contains("would recompile, and the stance is fail_on_recompile"), e.getMessage());
        }
    }

    // ------------------------------------------------------------------ 15. mixed dtypes, int labels

    static Tensor mixedDtypes(Tensor x32, Tensor y64) { return x32.mul(y64).add(x32.exp()).sum(1); }

    @Test
    void mixedFloat64AndFloat32InputsPromoteAsLibtorch() {
        Tensor x = Tensor.randn(3, 4).requiresGrad(true), y = Tensor.randn(3, 4).to(DType.FLOAT64).requiresGrad(true);
        Tensor eager = mixedDtypes(x, y);
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) NewUserTraining5Test::mixedDtypes);
        Tensor got = f.apply(x, y);
        assertEquals(DType.FLOAT64, got.dtype());
        assertClose(got, Torch.call("a * b + a.exp()", x.detach(), y.detach()).sum(new int[] {1}), "mixed dtype forward");
        assertArrayEquals(eager.toDoubleArray(), got.toDoubleArray(), 1e-12);
        got.sum().backward();
        assertEquals(DType.FLOAT32, x.grad().dtype(), "a leaf's gradient has the leaf's dtype");
        assertEquals(DType.FLOAT64, y.grad().dtype());
        Tensor gx = x.grad().clone(), gy = y.grad().clone();
        x.setGrad(null);
        y.setGrad(null);
        eager.sum().backward();
        assertArrayEquals(x.grad().toFloatArray(), gx.toFloatArray(), 1e-6f);
        assertArrayEquals(y.grad().toDoubleArray(), gy.toDoubleArray(), 1e-12);
    }

    static Tensor ceLoss(Tensor logits, Tensor labels) { return F.crossEntropy(logits, labels); }

    @Test
    void integerLabelsInt64AndInt32() {
        Tensor logits = Tensor.randn(6, 4).requiresGrad(true);
        Tensor labels64 = Tensor.of(new long[] {0, 3, 1, 2, 2, 0}, 6);
        Tensor labels32 = labels64.to(DType.INT32);
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) NewUserTraining5Test::ceLoss);
        Tensor loss = f.apply(logits, labels64);
        assertClose(loss, Torch.call("torch.cross_entropy_loss(a, b, None, 1, -100, 0.0)", logits.detach(), labels64), "int64 labels");
        // libtorch: what does it do with int32 labels? Ember must do the same, eagerly and compiled.
        String torchRefusal = null;
        Tensor torchResult = null;
        try {
            torchResult = Torch.fromNd(Torch.call("torch.cross_entropy_loss(a, b, None, 1, -100, 0.0)", logits.detach(), labels32));
        } catch (RuntimeException e) {
            torchRefusal = Torch.refusalText(e);
        }
        if (torchRefusal == null) {
            assertArrayEquals(torchResult.toFloatArray(), ceLoss(logits, labels32).toFloatArray(), 1e-6f);
            assertArrayEquals(torchResult.toFloatArray(), f.apply(logits, labels32).toFloatArray(), 1e-6f);
        } else {
            RuntimeException eager = assertThrows(RuntimeException.class, () -> ceLoss(logits, labels32));
            RuntimeException compiled = assertThrows(RuntimeException.class, () -> f.apply(logits, labels32));
            assertEquals(eager.getMessage(), compiled.getMessage());
            String aten = "expected scalar type Long but found Int";
            assertTrue(torchRefusal.contains(aten), torchRefusal);
            assertTrue(eager.getMessage().endsWith(aten), eager.getMessage());
        }
    }

    @Test
    void floatLabelsForCrossEntropyAreClassProbabilities() {
        Tensor logits = Tensor.randn(5, 3).requiresGrad(true);
        Tensor probs = Tensor.randn(5, 3).softmax(1);
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) NewUserTraining5Test::ceLoss);
        Tensor got = f.apply(logits, probs);
        assertClose(got, Torch.call("torch.cross_entropy_loss(a, b, None, 1, -100, 0.0)", logits.detach(), probs), "soft labels");
        got.backward();
        NDList want = Torch.callListWithGrad(Torch.manager(),
                "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([torch.cross_entropy_loss(a, b, None, 1, -100, 0.0)], [a])", logits.detach(), probs);
        assertClose(logits.grad(), want.get(0), "soft label gradient");
    }

    // ------------------------------------------------------------------ 16. reductions none / sum / mean

    static Tensor lossesNone(Tensor a, Tensor b) { return F.mseLoss(a, b, "none").add(F.l1Loss(a, b, "none")).add(F.huberLoss(a, b, "none", 0.5)); }

    static Tensor lossesSum(Tensor a, Tensor b) { return F.mseLoss(a, b, "sum").add(F.smoothL1Loss(a, b, "sum", 0.7)); }

    static Tensor lossesMean(Tensor a, Tensor b) { return F.mseLoss(a, b, "mean").add(F.l1Loss(a, b, "mean")); }

    @Test
    void lossReductionsNoneSumMeanWithGradients() {
        Tensor a = Tensor.randn(4, 3).requiresGrad(true), b = Tensor.randn(4, 3);
        String none = "torch.mse_loss(a, b, 0) + torch.l1_loss(a, b, 0) + torch.huber_loss(a, b, 0, 0.5)";
        String sum = "torch.mse_loss(a, b, 2) + torch.smooth_l1_loss(a, b, 2, 0.7)";
        String mean = "torch.mse_loss(a, b, 1) + torch.l1_loss(a, b, 1)";
        List<Fn2<Tensor, Tensor, Tensor>> fns = List.of(NewUserTraining5Test::lossesNone, NewUserTraining5Test::lossesSum, NewUserTraining5Test::lossesMean);
        List<String> exprs = List.of(none, sum, mean);
        for (int i = 0; i < 3; i++) {
            Fn2<Tensor, Tensor, Tensor> f = Ember.compile(fns.get(i));
            Tensor got = f.apply(a, b);
            assertClose(got, Torch.call(exprs.get(i), a.detach(), b), "reduction " + i);
            a.setGrad(null);
            got.sum().backward();
            NDList want = Torch.callListWithGrad(Torch.manager(),
                    "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([(" + exprs.get(i) + ").sum()], [a])", a.detach(), b);
            assertClose(a.grad(), want.get(0), "reduction " + i + " gradient");
        }
        RuntimeException bad = assertThrows(RuntimeException.class, () -> Ember.compile((Fn2<Tensor, Tensor, Tensor>) (x, y) -> F.mseLoss(x, y, "avg")).apply(a, b));
        assertTrue(bad.getMessage().contains("avg"), bad.getMessage());
    }

    // ------------------------------------------------------------------ 17. tensors created inside the compiled function

    static Tensor positional(Tensor x) {
        int n = x.size(0), d = x.size(1);
        Tensor pos = Tensor.arange(n).to(DType.FLOAT32).unsqueeze(1);
        Tensor freq = Tensor.arange(0, d, 1).to(DType.FLOAT32).mul(-0.1).exp();
        Tensor mask = Tensor.onesLike(x).tril();
        return x.add(pos.mul(freq).sin()).mul(mask).add(Tensor.zerosLike(x)).add(Tensor.eye(n).sum(1, true));
    }

    @Test
    void tensorsMadeInsideTheCompiledFunction() {
        Tensor x = Tensor.randn(5, 5).requiresGrad(true);
        var f = Ember.compile((Fn1<Tensor, Tensor>) NewUserTraining5Test::positional);
        Tensor got = f.apply(x);
        Tensor eager = positional(x);
        assertArrayEquals(eager.toFloatArray(), got.toFloatArray(), 1e-6f);
        assertClose(got, Torch.call("(a + (torch.arange(5).float().unsqueeze(1) * (torch.arange(0, 5, 1).float() * -0.1).exp()).sin()) * torch.ones_like(a).tril() + torch.eye(5).sum(1, True)", x.detach()), "positional");
        got.sum().backward();
        assertClose(x.grad(), Torch.call("torch.ones_like(a).tril()", x.detach()), "gradient through the mask");
    }

    static Tensor noisy(Tensor x) { return x.add(Tensor.randn(x.size(0), x.size(1)).mul(0.1)).add(Tensor.rand(x.size(1))); }

    @Test
    void randomTensorsInsideTheCompiledFunctionFollowTheSeed() {
        Tensor x = Tensor.randn(3, 4);
        Tensor.manualSeed(77);
        Tensor eager1 = noisy(x), eager2 = noisy(x);
        var f = Ember.compile((Fn1<Tensor, Tensor>) NewUserTraining5Test::noisy);
        Tensor.manualSeed(77);
        Tensor c1 = f.apply(x), c2 = f.apply(x);
        assertArrayEquals(eager1.toFloatArray(), c1.toFloatArray(), 0f, "the first call draws what eager draws");
        assertArrayEquals(eager2.toFloatArray(), c2.toFloatArray(), 0f, "and the second the next numbers");
        assertFalse(c1.allclose(c2));
    }

    static Tensor dropoutTwice(Tensor x) { return F.dropout(x, 0.5, true).add(F.dropout(x, 0.2, true)); }

    @Test
    void dropoutInATrainingGraphDrawsTheSeedsNumbers() {
        Tensor x = Tensor.randn(6, 6).requiresGrad(true);
        Tensor.manualSeed(78);
        Tensor eager = dropoutTwice(x);
        eager.sum().backward();
        Tensor eagerGrad = x.grad().clone();
        x.setGrad(null);
        var f = Ember.compile((Fn1<Tensor, Tensor>) NewUserTraining5Test::dropoutTwice);
        Tensor.manualSeed(78);
        Tensor got = f.apply(x);
        got.sum().backward();
        assertArrayEquals(eager.toFloatArray(), got.toFloatArray(), 0f);
        assertArrayEquals(eagerGrad.toFloatArray(), x.grad().toFloatArray(), 0f);
    }

    // ------------------------------------------------------------------ 18. schedulers driven by a training loop

    @Test
    void reduceLrOnPlateauFromEvaluationLosses() {
        Tensor.manualSeed(80);
        Sequential net = mlp(3, 5, 1);
        SGD opt = new SGD(net.parameters(), SGD.options().lr(0.1));
        Ember.compile(opt);
        var plateau = new ReduceLROnPlateau(opt, ReduceLROnPlateau.options().factor(0.5).patience(1));
        double[] metrics = {1.0, 0.9, 0.95, 0.97, 0.8, 0.85, 0.9};
        List<Double> lrs = new ArrayList<>();
        for (double m : metrics) {
            opt.zeroGrad();
            net.forward(Tensor.randn(4, 3)).sum().backward();
            opt.step();
            plateau.step(m);
            lrs.add(opt.paramGroups().get(0).lr());
        }
        // PyTorch: best 0.9 at epoch 1; bad epochs 2, 3 -> reduce at epoch 3; 0.8 new best; bad 5, 6 -> reduce at 6
        assertEquals(List.of(0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.025), lrs);
    }

    private static double cosAnneal(double start, double end, double pct) { return end + (start - end) / 2.0 * (Math.cos(Math.PI * pct) + 1); }

    @Test
    void oneCycleCyclesLrAndMomentumAndRefusesAStepTooMany() {
        Tensor.manualSeed(81);
        Sequential net = mlp(3, 5, 1);
        SGD opt = new SGD(net.parameters(), SGD.options().lr(0.1).momentum(0.9));
        Ember.compile(opt);
        var sched = new OneCycleLR(opt, OneCycleLR.options(0.2).totalSteps(6));
        // PyTorch's OneCycleLR (cos annealing, pct_start 0.3): phase ends at steps 0.8 and 5
        double initial = 0.2 / 25, min = initial / 1e4;
        for (int i = 0; i < 6; i++) {
            double lr = i <= 0.8 ? cosAnneal(initial, 0.2, i / 0.8) : cosAnneal(0.2, min, (i - 0.8) / 4.2);
            double momentum = i <= 0.8 ? cosAnneal(0.95, 0.85, i / 0.8) : cosAnneal(0.85, 0.95, (i - 0.8) / 4.2);
            assertEquals(lr, opt.paramGroups().get(0).lr(), 1e-12, "lr at step " + i);
            assertEquals(momentum, opt.paramGroups().get(0).getDouble("momentum"), 1e-12, "momentum at step " + i);
            opt.zeroGrad();
            net.forward(Tensor.randn(4, 3)).sum().backward();
            opt.step();
            sched.step();
        }
        RuntimeException e = assertThrows(RuntimeException.class, sched::step);
        assertEquals("Tried to step 7 times. The specified number of total steps is 6", e.getMessage());
    }

    // ------------------------------------------------------------------ 19. double precision training, input gradients

    private static List<float[]> float64Train(boolean compiled) {
        Tensor.manualSeed(90);
        Sequential net = mlp(3, 7, 2);
        net.to(DType.FLOAT64);
        RMSpropLike opt = new RMSpropLike(net);
        Fn1<Tensor, Tensor> forward = compiled ? Ember.compile(net) : net::call;
        Generator data = new Generator(9);
        List<float[]> trace = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Tensor x = Tensor.randn(data, 6, 3).to(DType.FLOAT64), y = Tensor.randn(data, 6, 2).to(DType.FLOAT64);
            opt.opt.zeroGrad();
            Tensor loss = F.mseLoss(forward.apply(x), y);
            loss.backward();
            opt.opt.step();
            trace.add(new float[] {(float) loss.item()});
            for (Parameter p : net.parameters()) {
                assertEquals(DType.FLOAT64, p.dtype());
                trace.add(p.to(DType.FLOAT32).toFloatArray());
            }
        }
        return trace;
    }

    record RMSpropLike(Optimizer opt) {
        RMSpropLike(Sequential net) { this(new dev.ember.optim.RMSprop(net.parameters(), dev.ember.optim.RMSprop.options().lr(1e-2).momentum(0.5).centered(true))); }
    }

    @Test
    void aFloat64ModelTrainsCompiledAsEager() {
        sameTrace(float64Train(false), float64Train(true), 1e-7f, "float64 RMSprop training");
    }

    @Test
    void inputGradientsForASaliencyMap() {
        Tensor.manualSeed(91);
        Sequential net = mlp(4, 6, 3);
        Tensor x = Tensor.randn(2, 4).requiresGrad(true);
        net.forward(x).select(1, 2).sum().backward();
        Tensor eager = x.grad().clone();
        x.setGrad(null);
        net.zeroGrad();
        Ember.compile(net).apply(x).select(1, 2).sum().backward();
        assertArrayEquals(eager.toFloatArray(), x.grad().toFloatArray(), 1e-6f);
    }

    // ------------------------------------------------------------------ 20. noGrad inside the compiled function (a teacher)

    static final class Distill {
        final Sequential teacher, student;

        Distill(Sequential teacher, Sequential student) { this.teacher = teacher; this.student = student; }

        Tensor loss(Tensor x) {
            Tensor target;
            try (var s = Ember.noGrad()) {
                target = teacher.forward(x).softmax(-1);
            }
            return F.crossEntropy(student.forward(x), target);
        }
    }

    @Test
    void noGradTeacherInsideACompiledDistillationLoss() {
        Tensor.manualSeed(100);
        Distill d = new Distill(mlp(4, 6, 3), mlp(4, 5, 3));
        Tensor x = Tensor.randn(7, 4);
        d.loss(x).backward();
        List<float[]> eager = d.student.parameters().stream().map(p -> p.grad().toFloatArray()).toList();
        d.student.zeroGrad();
        var f = Ember.compile((Fn1<Tensor, Tensor>) d::loss);
        f.apply(x).backward();
        for (int i = 0; i < eager.size(); i++) assertArrayEquals(eager.get(i), d.student.parameters().get(i).grad().toFloatArray(), 1e-6f);
        for (Parameter p : d.teacher.parameters()) assertNull(p.grad(), "the teacher got no gradient");
    }

    // ------------------------------------------------------------------ 21. gradient hooks and clip by value

    private static List<float[]> hookedTraining(boolean compiled) {
        Tensor.manualSeed(110);
        Sequential net = mlp(3, 4, 1);
        for (Parameter p : net.parameters()) p.registerHook(g -> g.clamp(-0.05, 0.05));
        Fn1<Tensor, Tensor> forward = compiled ? Ember.compile(net) : net::call;
        Adam opt = new Adam(net.parameters(), Adam.options().lr(1e-2));
        Generator data = new Generator(11);
        List<float[]> trace = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Tensor x = Tensor.randn(data, 5, 3).mul(10), y = Tensor.randn(data, 5, 1);
            opt.zeroGrad();
            F.mseLoss(forward.apply(x), y).backward();
            ClipGrad.clipGradValue_(net.parameters(), 0.02);
            for (Parameter p : net.parameters()) {
                assertTrue(p.grad().abs().max().item() <= 0.02 + 1e-9);
                trace.add(p.grad().toFloatArray());
            }
            opt.step();
            addParams(trace, net);
        }
        return trace;
    }

    @Test
    void gradientHooksOnParametersAndClipByValue() {
        sameTrace(hookedTraining(false), hookedTraining(true), 1e-6f, "hooked training");
    }

    @Test
    void clipGradNormRefusesANonFiniteTotalWhenAsked() {
        Tensor w = Tensor.randn(3).requiresGrad(true);
        w.mul(Double.POSITIVE_INFINITY).sum().backward();
        float[] before = w.grad().toFloatArray();
        RuntimeException e = assertThrows(RuntimeException.class, () -> ClipGrad.clipGradNorm_(List.of(w), 1.0, 2.0, true));
        assertTrue(e.getMessage().contains("non-finite"), e.getMessage());
        assertArrayEquals(before, w.grad().toFloatArray(), 0f, "nothing changed");
    }

    // ------------------------------------------------------------------ 22. compile options: reduce-overhead eval loop, fullgraph training

    @Test
    void reduceOverheadEvalLoopConsumingEachResult() {
        Tensor.manualSeed(120);
        Sequential net = mlp(4, 8, 2);
        net.eval();
        Fn1<Tensor, Tensor> forward = Ember.compile(net, Options.defaults().mode("reduce-overhead"));
        double total = 0, eagerTotal = 0;
        try (var s = Ember.noGrad()) {
            for (int i = 0; i < 4; i++) {
                Tensor x = Tensor.randn(3, 4);
                total += forward.apply(x).sum().item();
                eagerTotal += net.forward(x).sum().item();
            }
            Tensor first = forward.apply(Tensor.randn(3, 4));
            forward.apply(Tensor.randn(3, 4));
            IllegalStateException e = assertThrows(IllegalStateException.class, first::toFloatArray);
            assertTrue(e.getMessage().contains("reduce-overhead"), e.getMessage());
        }
        assertEquals(eagerTotal, total, 1e-5);
    }

    static Tensor fullgraphLoss(Tensor x, Tensor w) {
        Tensor h = x.matmul(w).relu();
        System.out.println("loss computed");
        return h.mean();
    }

    @Test
    void fullgraphTrainingRefusesAPrintUnlessLoggingIsReordered() {
        Tensor x = Tensor.randn(3, 3), w = Tensor.randn(3, 3).requiresGrad(true);
        // prints are reorderable by default: no break
        Ember.compile((Fn2<Tensor, Tensor, Tensor>) NewUserTraining5Test::fullgraphLoss, Options.fullgraph()).apply(x, w).backward();
        float[] g = w.grad().toFloatArray();
        w.setGrad(null);
        fullgraphLoss(x, w).backward();
        assertArrayEquals(w.grad().toFloatArray(), g, 1e-6f);
        RuntimeException e = assertThrows(RuntimeException.class,
                () -> Ember.compile((Fn2<Tensor, Tensor, Tensor>) NewUserTraining5Test::fullgraphLoss, Options.fullgraph().reorderableLogging(false)).apply(x, w));
        assertTrue(e.getMessage().contains("GB0005"), e.getMessage());
    }

    // ------------------------------------------------------------------ 23. bad input in a training loop

    @Test
    void badOptimizerAndSchedulerOptionsSayWhat() {
        assertEquals("Invalid learning rate: -0.1", assertThrows(IllegalArgumentException.class, () -> SGD.options().lr(-0.1)).getMessage());
        assertEquals("Invalid beta parameter at index 0: 1.0", assertThrows(IllegalArgumentException.class, () -> Adam.options().betas(1.0, 0.999)).getMessage());
        IllegalArgumentException nesterov = assertThrows(IllegalArgumentException.class,
                () -> new SGD(List.of(Tensor.randn(2).requiresGrad(true)), SGD.options().nesterov(true)));
        assertEquals("Nesterov momentum requires a momentum and zero dampening", nesterov.getMessage());
    }

    @Test
    void aWrongInputShapeInACompiledTrainingStepIsEagersError() {
        Tensor.manualSeed(130);
        Sequential net = mlp(4, 6, 1);
        Fn1<Tensor, Tensor> forward = Ember.compile(net);
        forward.apply(Tensor.randn(3, 4)).sum().backward();
        Tensor bad = Tensor.randn(3, 5);
        RuntimeException eager = assertThrows(RuntimeException.class, () -> net.forward(bad));
        RuntimeException compiled = assertThrows(RuntimeException.class, () -> forward.apply(bad));
        assertEquals(eager.getClass(), compiled.getClass());
        assertEquals(eager.getMessage(), compiled.getMessage());
        assertTrue(eager.getMessage().contains("mat1 and mat2 shapes cannot be multiplied (3x5 and 4x6)"), eager.getMessage());
    }

    @Test
    void backwardOfANonScalarCompiledOutputSaysWhatEagerSays() {
        Sequential net = mlp(4, 6, 2);
        Tensor x = Tensor.randn(3, 4);
        RuntimeException eager = assertThrows(RuntimeException.class, () -> net.forward(x).backward());
        RuntimeException compiled = assertThrows(RuntimeException.class, () -> Ember.compile(net).apply(x).backward());
        assertEquals(eager.getMessage(), compiled.getMessage());
        assertTrue(eager.getMessage().contains("grad can be implicitly created only for scalar outputs"), eager.getMessage());
    }

    @Test
    void anInPlaceWriteOfASavedInputBeforeBackwardIsRefusedLikeEager() {
        Tensor w = Tensor.randn(3, 3).requiresGrad(true);
        Tensor x = Tensor.randn(2, 3);
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) (a, b) -> a.matmul(b).tanh().sum());
        Tensor loss = f.apply(x, w);
        x.mul_(2);                                            // the product saved x for w's gradient
        RuntimeException e = assertThrows(RuntimeException.class, loss::backward);
        assertTrue(e.getMessage().contains("modified by an inplace operation"), e.getMessage());
    }

    // ------------------------------------------------------------------ 24. explain a training function

    static Tensor stepWithLogging(Tensor x, Tensor w) {
        Tensor loss = x.matmul(w).sigmoid().mean();
        double value = loss.item();
        if (value > 0.5) return loss.mul(2);
        return loss;
    }

    @Test
    void explainSaysWhereATrainingFunctionBreaks() {
        Tensor x = Tensor.randn(3, 3), w = Tensor.randn(3, 3).requiresGrad(true);
        var out = Ember.explain((Fn2<Tensor, Tensor, Tensor>) NewUserTraining5Test::stepWithLogging).with(x, w);
        assertEquals(1, out.graphBreakCount(), out.toString());
        assertTrue(out.toString().contains("NewUserTraining5Test.java"), out.toString());
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) NewUserTraining5Test::stepWithLogging);
        Tensor loss = f.apply(x, w);
        loss.backward();
        float[] g = w.grad().toFloatArray();
        w.setGrad(null);
        stepWithLogging(x, w).backward();
        assertArrayEquals(w.grad().toFloatArray(), g, 1e-6f);
    }
}
