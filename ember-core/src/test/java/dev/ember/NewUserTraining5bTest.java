package dev.ember;

import dev.ember.autograd.Autograd;
import dev.ember.export.Dim;
import dev.ember.export.ExportOptions;
import dev.ember.export.ExportedProgram;
import dev.ember.nn.BatchNorm1d;
import dev.ember.nn.Embedding;
import dev.ember.nn.F;
import dev.ember.nn.Linear;
import dev.ember.nn.Module;
import dev.ember.nn.Parameter;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.optim.Adam;
import dev.ember.optim.AdamW;
import dev.ember.optim.OneCycleLR;
import dev.ember.optim.Optimizer;
import dev.ember.optim.SGD;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.ember.NewUserTrainingSupport.allEntries;
import static dev.ember.NewUserTrainingSupport.mlp;
import static dev.ember.NewUserTrainingSupport.sameTrace;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** More training programs as a new user writes them (NewUserTraining5Test has the first batch). */
class NewUserTraining5bTest {

    @AfterEach
    void reset() { Ember.reset(); }

    // ---- OneCycleLR changes SGD's momentum every step: the compiled step must follow, not recompile each time

    private static List<float[]> oneCycle(boolean compiledStep, boolean adam) {
        Tensor.manualSeed(1);
        Sequential net = mlp(3, 6, 1);
        Optimizer opt = adam ? new Adam(net.parameters(), Adam.options().lr(1e-2))
                : new SGD(net.parameters(), SGD.options().lr(0.1).momentum(0.9));
        if (compiledStep) Ember.compile(opt);
        var sched = new OneCycleLR(opt, OneCycleLR.options(0.1).totalSteps(10));
        Generator data = new Generator(2);
        List<float[]> trace = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Tensor x = Tensor.randn(data, 6, 3), y = Tensor.randn(data, 6, 1);
            opt.zeroGrad();
            F.mseLoss(net.forward(x), y).backward();
            opt.step();
            sched.step();
            for (Parameter p : net.parameters()) trace.add(p.toFloatArray());
        }
        return trace;
    }

    @Test
    void oneCycleMomentumWithACompiledSgdStep() {
        List<float[]> eager = oneCycle(false, false);
        Ember.reset();
        List<float[]> compiled = oneCycle(true, false);
        sameTrace(eager, compiled, 1e-6f, "SGD under OneCycleLR");
        assertTrue(allEntries() <= 3, "momentum is an input of the compiled step, not a constant per value: " + allEntries() + " entries");
    }

    @Test
    void oneCycleBeta1WithACompiledAdamStep() {
        List<float[]> eager = oneCycle(false, true);
        Ember.reset();
        List<float[]> compiled = oneCycle(true, true);
        sameTrace(eager, compiled, 1e-6f, "Adam under OneCycleLR");
        assertTrue(allEntries() <= 3, "beta1 is an input of the compiled step, not a constant per value: " + allEntries() + " entries");
    }

    // ---- an option changed between steps of a compiled optimizer

    @Test
    void weightDecayTurnedOnMidTrainingWithACompiledStep() {
        List<List<float[]>> runs = new ArrayList<>();
        for (boolean compiled : new boolean[] {false, true}) {
            Ember.reset();
            Tensor.manualSeed(3);
            Sequential net = mlp(3, 4, 1);
            AdamW opt = new AdamW(net.parameters(), AdamW.options().lr(1e-2).weightDecay(0));
            if (compiled) Ember.compile(opt);
            Generator data = new Generator(4);
            List<float[]> trace = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                if (i == 3) opt.paramGroups().get(0).set("weight_decay", 0.5);
                Tensor x = Tensor.randn(data, 5, 3);
                opt.zeroGrad();
                net.forward(x).pow(2).mean().backward();
                opt.step();
                for (Parameter p : net.parameters()) trace.add(p.toFloatArray());
            }
            runs.add(trace);
        }
        sameTrace(runs.get(0), runs.get(1), 1e-6f, "weight decay switched on at step 3");
    }

    // ---- a compiled optimizer whose state is loaded from a checkpoint mid-run

    @Test
    void compiledOptimizerAfterLoadStateDict() {
        List<List<float[]>> runs = new ArrayList<>();
        for (boolean compiled : new boolean[] {false, true}) {
            Ember.reset();
            Tensor.manualSeed(5);
            Sequential net = mlp(3, 4, 1);
            Adam opt = new Adam(net.parameters(), Adam.options().lr(1e-2).amsgrad(true));
            if (compiled) Ember.compile(opt);
            Generator data = new Generator(6);
            List<float[]> trace = new ArrayList<>();
            Optimizer.StateDict saved = null;
            java.util.Map<String, Tensor> savedModel = null;
            for (int i = 0; i < 6; i++) {
                if (i == 2) {
                    saved = opt.stateDict();
                    savedModel = new java.util.LinkedHashMap<>();
                    for (var e : net.stateDict().entrySet()) savedModel.put(e.getKey(), e.getValue().clone());
                }
                if (i == 4) {                                 // roll back to step 2's checkpoint
                    net.loadStateDict(savedModel);
                    opt.loadStateDict(saved);
                }
                Tensor x = Tensor.randn(data, 5, 3);
                opt.zeroGrad();
                net.forward(x).pow(2).mean().backward();
                opt.step();
                for (Parameter p : net.parameters()) trace.add(p.toFloatArray());
                trace.add(opt.state(net.parameters().get(0)).get("exp_avg_sq").toFloatArray());
            }
            runs.add(trace);
        }
        sameTrace(runs.get(0), runs.get(1), 1e-6f, "rolled back to a checkpoint");
    }

    // ---- a group added after compiling the optimizer

    @Test
    void aParamGroupAddedAfterCompilingTheOptimizerIsUpdated() {
        List<List<float[]>> runs = new ArrayList<>();
        for (boolean compiled : new boolean[] {false, true}) {
            Ember.reset();
            Tensor.manualSeed(7);
            Linear body = new Linear(3, 4), head = new Linear(4, 1);
            SGD opt = new SGD(body.parameters(), SGD.options().lr(0.1).momentum(0.9));
            if (compiled) Ember.compile(opt);
            List<float[]> trace = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                if (i == 2) opt.addParamGroup(head.parameters(), o -> o.lr(0.01));   // unfreeze the head
                Tensor x = Tensor.randn(5, 3);
                opt.zeroGrad();
                head.forward(body.forward(x).relu()).pow(2).mean().backward();
                opt.step();
                trace.add(body.weight.toFloatArray());
                trace.add(head.weight.toFloatArray());
            }
            runs.add(trace);
        }
        sameTrace(runs.get(0), runs.get(1), 1e-6f, "a group added at step 2");
    }

    // ---- freezing a layer after compiling the model

    private static List<float[]> freezeRun(boolean compiled) {
        Tensor.manualSeed(8);
        Linear first = new Linear(4, 6), second = new Linear(6, 2);
        Sequential net = new Sequential(first, new ReLU(), second);
        Fn1<Tensor, Tensor> forward = compiled ? Ember.compile(net) : net::call;
        SGD opt = new SGD(net.parameters(), SGD.options().lr(0.1));
        Generator data = new Generator(9);
        List<float[]> trace = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            if (i == 2) for (Parameter p : first.parameters()) p.requiresGrad(false);   // freeze the first layer
            Tensor x = Tensor.randn(data, 5, 4);
            opt.zeroGrad();
            forward.apply(x).pow(2).mean().backward();
            if (i >= 2) assertNull(first.weight.grad(), "a frozen layer gets no gradient");
            opt.step();
            for (Parameter p : net.parameters()) trace.add(p.toFloatArray());
        }
        return trace;
    }

    @Test
    void freezingALayerAfterCompilingTheModel() {
        sameTrace(freezeRun(false), freezeRun(true), 1e-6f, "a layer frozen at step 2");
    }

    // ---- tied weights

    static final class TiedAutoencoder extends Module {
        final Linear enc = new Linear(6, 3);

        @Override
        public Tensor forward(Tensor x) {
            Tensor code = enc.forward(x).tanh();
            return code.matmul(enc.weight);                    // the decoder is the encoder's transpose
        }
    }

    private static List<float[]> tied(boolean compiled) {
        Tensor.manualSeed(10);
        TiedAutoencoder ae = new TiedAutoencoder();
        Fn1<Tensor, Tensor> forward = compiled ? Ember.compile(ae) : ae::call;
        Adam opt = new Adam(ae.parameters(), Adam.options().lr(1e-2));
        Generator data = new Generator(11);
        List<float[]> trace = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Tensor x = Tensor.randn(data, 8, 6);
            opt.zeroGrad();
            Tensor loss = F.mseLoss(forward.apply(x), x);
            loss.backward();
            trace.add(ae.enc.weight.grad().toFloatArray());
            opt.step();
            trace.add(loss.toFloatArray());
        }
        return trace;
    }

    @Test
    void tiedWeightsInAnAutoencoder() {
        sameTrace(tied(false), tied(true), 1e-6f, "tied autoencoder");
    }

    // ---- a manual SGD update inside the compiled function

    static Tensor manualStep(Tensor x, Tensor y, Tensor w, double lr) {
        Tensor loss = x.matmul(w).sub(y).pow(2).mean();
        Tensor g = Autograd.grad(loss, w).get(0);
        try (var s = Ember.noGrad()) {
            w.sub_(g.mul(lr));
        }
        return loss.detach();
    }

    @Test
    void aManualSgdUpdateWithAutogradGradInsideTheCompiledFunction() {
        Tensor.manualSeed(12);
        Tensor x = Tensor.randn(6, 3), y = Tensor.randn(6, 1);
        Tensor w0 = Tensor.randn(3, 1);
        Tensor we = w0.clone().requiresGrad(true), wc = w0.clone().requiresGrad(true);
        var f = Ember.compile((Fn4<Tensor, Tensor, Tensor, Double, Tensor>) NewUserTraining5bTest::manualStep);
        for (int i = 0; i < 4; i++) {
            double lr = 0.1 / (i + 1);
            Tensor le = manualStep(x, y, we, lr), lc = f.apply(x, y, wc, lr);
            assertArrayEquals(le.toFloatArray(), lc.toFloatArray(), 1e-6f, "loss " + i);
            assertArrayEquals(we.toFloatArray(), wc.toFloatArray(), 1e-6f, "weights " + i);
        }
    }

    // ---- a gradient penalty (grad of the output with respect to the input, createGraph), compiled

    static Tensor gradientPenalty(Sequential critic, Tensor x) {
        Tensor xi = x.detach().requiresGrad(true);
        Tensor score = critic.forward(xi).sum();
        Tensor g = Autograd.grad(List.of(score), List.of(xi), null, true, true, false).get(0);
        return g.pow(2).sum(1, false).sqrt().sub(1.0).pow(2).mean();
    }

    @Test
    void aGradientPenaltyTrainsTheCriticCompiledAsEager() {
        Tensor.manualSeed(13);
        Sequential critic = mlp(4, 8, 1);
        Tensor x = Tensor.randn(5, 4);
        gradientPenalty(critic, x).backward();
        // the last bias does not reach the input's gradient: its grad stays null, as in PyTorch
        List<float[]> eager = critic.parameters().stream().map(p -> p.grad() == null ? new float[0] : p.grad().toFloatArray()).toList();
        assertNull(critic.parameters().get(3).grad());
        critic.zeroGrad();
        var f = Ember.compile((Fn2<Sequential, Tensor, Tensor>) NewUserTraining5bTest::gradientPenalty);
        try {
            f.apply(critic, x).backward();
        } catch (RuntimeException e) {
            String msg = String.valueOf(e.getMessage());
            assertTrue(msg.contains("double backward") || msg.contains("createGraph") || msg.contains("create_graph"), "a clear refusal: " + e);
            return;
        }
        for (int i = 0; i < eager.size(); i++) {
            Tensor g = critic.parameters().get(i).grad();
            assertArrayEquals(eager.get(i), g == null ? new float[0] : g.toFloatArray(), 1e-5f, "parameter " + i);
        }
    }

    // ---- the dtype of a model changed after compiling it

    @Test
    void aModelConvertedToFloat64AfterCompilingRecompiles() {
        Tensor.manualSeed(14);
        Sequential net = mlp(3, 5, 2);
        Fn1<Tensor, Tensor> forward = Ember.compile(net);
        Tensor x = Tensor.randn(4, 3);
        forward.apply(x).sum().backward();
        net.zeroGrad();
        net.to(DType.FLOAT64);
        Tensor x64 = x.to(DType.FLOAT64);
        Tensor got = forward.apply(x64);
        assertEquals(DType.FLOAT64, got.dtype());
        got.sum().backward();
        List<double[]> compiledGrads = net.parameters().stream().map(p -> p.grad().toDoubleArray()).toList();
        net.zeroGrad();
        net.forward(x64).sum().backward();
        for (int i = 0; i < compiledGrads.size(); i++) assertArrayEquals(net.parameters().get(i).grad().toDoubleArray(), compiledGrads.get(i), 1e-12);
        RuntimeException e = assertThrows(RuntimeException.class, () -> forward.apply(x));
        RuntimeException eager = assertThrows(RuntimeException.class, () -> net.forward(x));
        assertEquals(eager.getMessage(), e.getMessage());
    }

    // ---- embeddings with int32 and int64 indices

    static final class Bag extends Module {
        final Embedding emb = new Embedding(10, 4);
        final Linear out = new Linear(4, 2);

        @Override
        public Tensor forward(Tensor ids) { return out.forward(emb.forward(ids).mean(1, false)); }
    }

    @Test
    void embeddingTrainsWithInt32AndInt64Indices() {
        for (DType idType : new DType[] {DType.INT64, DType.INT32}) {
            Ember.reset();
            Tensor.manualSeed(15);
            Bag bag = new Bag();
            Tensor ids = Tensor.randint(0, 10, 3, 5).to(idType);
            F.crossEntropy(bag.forward(ids), Tensor.of(new long[] {0, 1, 1}, 3)).backward();
            float[] eager = bag.emb.weight.grad().toFloatArray();
            bag.zeroGrad();
            F.crossEntropy(Ember.compile(bag).apply(ids), Tensor.of(new long[] {0, 1, 1}, 3)).backward();
            assertArrayEquals(eager, bag.emb.weight.grad().toFloatArray(), 1e-6f, idType.toString());
        }
    }

    // ---- inference mode, then training

    @Test
    void aTensorMadeInInferenceModeUsedForTrainingSaysSo() {
        Tensor.manualSeed(16);
        Sequential net = mlp(3, 4, 1);
        Fn1<Tensor, Tensor> forward = Ember.compile(net);
        Tensor cached;
        try (var s = Ember.inferenceMode()) {
            cached = forward.apply(Tensor.randn(2, 3));
        }
        RuntimeException eager = assertThrows(RuntimeException.class, () -> net.forward(cached).sum().backward());
        RuntimeException compiled = assertThrows(RuntimeException.class, () -> forward.apply(cached).sum().backward());
        assertEquals(eager.getMessage(), compiled.getMessage());
    }

    // ---- eager_then_compile in a training loop

    @Test
    void eagerThenCompileTrainsTheSameAndCompilesGenerically() {
        List<List<float[]>> runs = new ArrayList<>();
        for (boolean stance : new boolean[] {false, true}) {
            Ember.reset();
            Tensor.manualSeed(17);
            Sequential net = mlp(4, 6, 1);
            Fn1<Tensor, Tensor> forward = stance ? Ember.compile(net) : net::call;
            SGD opt = new SGD(net.parameters(), SGD.options().lr(0.05));
            Generator data = new Generator(18);
            List<float[]> trace = new ArrayList<>();
            try (var s = Ember.stance(stance ? Stance.EAGER_THEN_COMPILE : Stance.DEFAULT)) {
                for (int n : new int[] {4, 7, 9, 3, 12}) {
                    Tensor x = Tensor.randn(data, n, 4);
                    opt.zeroGrad();
                    Tensor loss = forward.apply(x).pow(2).mean();
                    loss.backward();
                    opt.step();
                    trace.add(loss.toFloatArray());
                }
            }
            runs.add(trace);
            if (stance) assertEquals(1, allEntries(), "the second call compiles with the batch dynamic: one entry");
        }
        sameTrace(runs.get(0), runs.get(1), 1e-6f, "eager_then_compile");
    }

    // ---- export with a dynamic batch, of a model in eval mode with batch norm

    @Test
    void exportWithADynamicBatchAfterTraining() {
        Tensor.manualSeed(19);
        Sequential net = new Sequential(new Linear(4, 8), new BatchNorm1d(8), new ReLU(), new Linear(8, 2));
        AdamW opt = new AdamW(net.parameters(), AdamW.options());
        for (int i = 0; i < 2; i++) {
            opt.zeroGrad();
            net.forward(Tensor.randn(6, 4)).pow(2).mean().backward();
            opt.step();
        }
        net.eval();
        Fn1<Tensor, Tensor> fwd = net::forward;
        ExportedProgram ep = Ember.export(ExportOptions.defaults().dynamic(0, 0, Dim.of("batch", 1, 64)), fwd, Tensor.randn(5, 4));
        try (var s = Ember.noGrad()) {
            for (int n : new int[] {1, 3, 64}) {
                Tensor x = Tensor.randn(n, 4);
                assertArrayEquals(net.forward(x).toFloatArray(), ep.run(x).getFirst().toFloatArray(), 1e-5f, "batch " + n);
            }
        }
        RuntimeException e = assertThrows(RuntimeException.class, () -> ep.run(Tensor.randn(65, 4)));
        assertTrue(e.getMessage().contains("outside the range"), e.getMessage());
    }

    @Test
    void exportOfAModelInTrainingModeUpdatesItsOwnRunningStats() {
        Tensor.manualSeed(20);
        Sequential net = new Sequential(new Linear(4, 3), new BatchNorm1d(3));
        Tensor x = Tensor.randn(6, 4);
        ExportedProgram ep = Ember.export(net, x);
        Tensor before = net.buffers().get(0).clone();
        Tensor eager = net.forward(x.clone());
        Tensor got = ep.run(x).getFirst();
        assertArrayEquals(eager.toFloatArray(), got.toFloatArray(), 1e-5f);
        assertArrayEquals(net.buffers().get(0).toFloatArray(), ep.buffers().values().iterator().next().toFloatArray(), 1e-6f,
                "the program's running mean moved as the module's did");
        assertTrue(!before.allclose(net.buffers().get(0)));
    }

    // ---- a compiled optimizer's state dict continues in an eager one

    @Test
    void aCompiledOptimizersStateDictContinuesInAnEagerOne() {
        Tensor.manualSeed(21);
        Sequential net = mlp(3, 5, 1);
        AdamW opt = new AdamW(net.parameters(), AdamW.options().lr(1e-2).amsgrad(true));
        Ember.compile(opt);
        Generator data = new Generator(22);
        for (int i = 0; i < 3; i++) {
            opt.zeroGrad();
            net.forward(Tensor.randn(data, 4, 3)).pow(2).mean().backward();
            opt.step();
        }
        Sequential twin = mlp(3, 5, 1);
        twin.loadStateDict(net.stateDict());
        AdamW eager = new AdamW(twin.parameters(), AdamW.options());
        eager.loadStateDict(opt.stateDict());
        for (int i = 0; i < 3; i++) {
            Tensor x = Tensor.randn(data, 4, 3);
            opt.zeroGrad();
            eager.zeroGrad();
            net.forward(x).pow(2).mean().backward();
            twin.forward(x).pow(2).mean().backward();
            opt.step();
            eager.step();
            for (int p = 0; p < net.parameters().size(); p++) {
                assertArrayEquals(twin.parameters().get(p).toFloatArray(), net.parameters().get(p).toFloatArray(), 1e-6f, "step " + i + " parameter " + p);
            }
        }
    }

    // ---- warm restarts and maximize/nesterov with a compiled SGD

    @Test
    void warmRestartsWithACompiledNesterovSgdThatMaximizes() {
        List<List<float[]>> runs = new ArrayList<>();
        for (boolean compiled : new boolean[] {false, true}) {
            Ember.reset();
            Tensor.manualSeed(23);
            Sequential net = mlp(3, 4, 1);
            SGD opt = new SGD(net.parameters(), SGD.options().lr(0.05).momentum(0.8).nesterov(true).maximize(true).weightDecay(1e-3));
            if (compiled) Ember.compile(opt);
            var sched = new dev.ember.optim.CosineAnnealingWarmRestarts(opt, 3, 2, 1e-4);
            Generator data = new Generator(24);
            List<float[]> trace = new ArrayList<>();
            for (int i = 0; i < 9; i++) {
                opt.zeroGrad(false);                              // zeros in place, as set_to_none=False
                net.forward(Tensor.randn(data, 4, 3)).neg().pow(2).mean().neg().backward();
                opt.step();
                sched.step();
                trace.add(new float[] {(float) opt.paramGroups().get(0).lr()});
                for (Parameter p : net.parameters()) trace.add(p.toFloatArray());
            }
            runs.add(trace);
            if (compiled) assertTrue(allEntries() <= 2, "one compile for the steady step: " + allEntries());
        }
        sameTrace(runs.get(0), runs.get(1), 1e-6f, "warm restarts");
    }

    // ---- force_eager during validation

    @Test
    void forceEagerDuringValidationCompilesNothing() {
        Tensor.manualSeed(25);
        Sequential net = mlp(3, 4, 2);
        Fn1<Tensor, Tensor> forward = Ember.compile(net);
        forward.apply(Tensor.randn(4, 3)).sum().backward();
        int entries = allEntries();
        net.eval();
        Tensor x = Tensor.randn(9, 3);
        try (var stance = Ember.stance(Stance.FORCE_EAGER); var s = Ember.noGrad()) {
            assertArrayEquals(net.forward(x).toFloatArray(), forward.apply(x).toFloatArray(), 0f);
        }
        assertEquals(entries, allEntries(), "force_eager neither traces nor changes the cache");
    }

    // ---- clipping and stepping inside a compiled function

    static final class AfterBackward {
        final Sequential net;
        final SGD opt;

        AfterBackward(Sequential net) {
            this.net = net;
            this.opt = new SGD(net.parameters(), SGD.options().lr(0.1));
        }

        Tensor clipAndStep(Tensor maxNorm) {
            Tensor total = dev.ember.nn.ClipGrad.clipGradNorm_(net.parameters(), 0.5);
            opt.step();
            return total;
        }
    }

    @Test
    void clipGradNormAndStepInsideACompiledFunction() {
        List<List<float[]>> runs = new ArrayList<>();
        for (boolean compiled : new boolean[] {false, true}) {
            Ember.reset();
            Tensor.manualSeed(26);
            AfterBackward ab = new AfterBackward(mlp(3, 4, 1));
            Fn1<Tensor, Tensor> after = compiled ? Ember.compile((Fn1<Tensor, Tensor>) ab::clipAndStep) : ab::clipAndStep;
            Generator data = new Generator(27);
            List<float[]> trace = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ab.opt.zeroGrad();
                ab.net.forward(Tensor.randn(data, 4, 3).mul(5)).pow(2).mean().backward();
                trace.add(after.apply(Tensor.scalarTensor(0.5)).toFloatArray());
                for (Parameter p : ab.net.parameters()) trace.add(p.toFloatArray());
            }
            runs.add(trace);
        }
        sameTrace(runs.get(0), runs.get(1), 1e-6f, "clip and step compiled");
    }

    // ---- retainGrad and a gradient hook on an intermediate inside the compiled function

    static List<Tensor> withRetained(Tensor x, Tensor w) {
        Tensor h = x.matmul(w);
        h.retainGrad();
        Tensor a = h.tanh();
        a.registerHook(g -> g.mul(0.5));
        return List.of(a.pow(2).sum(), h);
    }

    @Test
    void retainGradAndAHookOnIntermediatesInsideTheCompiledFunction() {
        Tensor.manualSeed(28);
        Tensor x = Tensor.randn(3, 4), w = Tensor.randn(4, 2).requiresGrad(true);
        List<Tensor> eager = withRetained(x, w);
        eager.get(0).backward();
        float[] hGrad = eager.get(1).grad().toFloatArray(), wGrad = w.grad().toFloatArray();
        w.setGrad(null);
        var f = Ember.compile((Fn2<Tensor, Tensor, List<Tensor>>) NewUserTraining5bTest::withRetained);
        List<Tensor> got = f.apply(x, w);
        got.get(0).backward();
        assertArrayEquals(wGrad, w.grad().toFloatArray(), 1e-6f, "the hook halves the gradient as eagerly");
        assertArrayEquals(hGrad, got.get(1).grad().toFloatArray(), 1e-6f, "the retained gradient");
    }
}
