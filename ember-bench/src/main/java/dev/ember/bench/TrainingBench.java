package dev.ember.bench;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.BatchNorm;
import ai.djl.training.GradientCollector;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.nn.BatchNorm2d;
import dev.ember.nn.Module;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.nn.TransformerEncoderLayer;
import dev.ember.optim.AdamW;
import dev.ember.tensor.Tensor;
import org.openjdk.jmh.annotations.*;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One training step (forward, loss = mean of squared outputs, backward, AdamW) of three models:
 * Ember eager, Ember compiled ({@code Ember.compile(model)}: compiled forward and backward), and
 * libtorch eager through DJL (the same ops, its autograd, AdamW written with libtorch ops).
 * MLP 512→2048→2048→512 (batch 64); Conv-BN-ReLU ×3 (batch 4, 64 channels, 28×28, BatchNorm in
 * training mode); a transformer encoder layer (batch 4, seq 128, d_model 256, 4 heads, ff 1024).
 * The torch peer (torch eager, torch.compile) is {@code ember-bench/peer/torch_train_peer.py}.
 * Run: {@code ./ember bench TrainingBench}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-XX:CompileCommand=quiet", "-XX:CompileCommand=inline,dev.ember.kernels.VectorMath::*", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.reflect=ALL-UNNAMED", "-Xms8g", "-Xmx8g", "-Xmn4g", "-XX:+AlwaysPreTouch", "-XX:+UseParallelGC"})
public class TrainingBench {
    private Module mlp, conv, encoder, lstm, gru;
    private AdamW mlpOpt, convOpt, encOpt, mlpOptC, convOptC, encOptC, mlpOptCC, convOptCC, encOptCC, lstmOpt, lstmOptC, gruOpt, gruOptC;
    private Fn1<Tensor, Tensor> mlpCompiled, convCompiled, encCompiled, lstmCompiled, gruCompiled;
    private Module mlpC, convC, encC, lstmC, gruC;
    private Tensor mlpX, convX, encX, lstmX;
    private NDManager manager;
    private TorchMlp tMlp;
    private TorchConv tConv;

    static Module mlpModel() {
        return new Sequential(new dev.ember.nn.Linear(512, 2048), new ReLU(), new dev.ember.nn.Linear(2048, 2048), new ReLU(), new dev.ember.nn.Linear(2048, 512));
    }

    static Module convModel() {
        List<Module> layers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            layers.add(new dev.ember.nn.Conv2d(64, 64, new int[] {3, 3}, new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1, false));
            layers.add(new BatchNorm2d(64));
            layers.add(new ReLU());
        }
        return new Sequential(layers.toArray(Module[]::new));
    }

    static Module encoderModel() { return new TransformerEncoderLayer(256, 4, 1024, 0.0); }

    /** A two-layer LSTM, input 32, hidden 64, over 50 steps of a batch of 16 (sequence first); the step's output is every step's hidden state. */
    static Module lstmModel() { return new dev.ember.nn.LSTM(32, 64, 2); }

    /** The same shape as a GRU: two layers, input 32, hidden 64, over lstmInput()'s 50 steps of a batch of 16. */
    static Module gruModel() { return new dev.ember.nn.GRU(32, 64, 2); }

    static Tensor lstmInput() { return Tensor.randn(50, 16, 32); }

    static AdamW adamW(Module m) { return new AdamW(m.parameters(), AdamW.options().lr(1e-4)); }

    /** One step: zeroGrad, forward, loss, backward, AdamW. */
    static double step(Fn1<Tensor, Tensor> forward, AdamW opt, Tensor x) {
        opt.zeroGrad();
        Tensor loss = forward.apply(x).pow(2.0).mean();
        loss.backward();
        opt.step();
        return loss.item();
    }

    @Setup
    public void setup() {
        Tensor.manualSeed(1);
        mlp = mlpModel();
        mlpC = mlpModel();
        mlpC.loadStateDict(mlp.stateDict());
        conv = convModel();
        convC = convModel();
        convC.loadStateDict(conv.stateDict());
        encoder = encoderModel();
        encC = encoderModel();
        encC.loadStateDict(encoder.stateDict());
        mlpX = Tensor.randn(64, 512);
        convX = Tensor.randn(4, 64, 28, 28);
        encX = Tensor.randn(4, 128, 256);
        lstm = lstmModel();
        lstmC = lstmModel();
        lstmC.loadStateDict(lstm.stateDict());
        lstmX = lstmInput();
        lstmOpt = adamW(lstm);
        lstmOptC = adamW(lstmC);
        lstmCompiled = Ember.compile(lstmC);
        gru = gruModel();
        gruC = gruModel();
        gruC.loadStateDict(gru.stateDict());
        gruOpt = adamW(gru);
        gruOptC = adamW(gruC);
        gruCompiled = Ember.compile(gruC);
        mlpOpt = adamW(mlp);
        convOpt = adamW(conv);
        encOpt = adamW(encoder);
        mlpOptC = adamW(mlpC);
        convOptC = adamW(convC);
        encOptC = adamW(encC);
        mlpCompiled = Ember.compile(mlpC);
        convCompiled = Ember.compile(convC);
        encCompiled = Ember.compile(encC);
        // the compiled model with a compiled optimizer too (Ember.compile(opt)); its own moments, the same parameters
        mlpOptCC = adamW(mlpC);
        convOptCC = adamW(convC);
        encOptCC = adamW(encC);
        Ember.compile(mlpOptCC);
        Ember.compile(convOptCC);
        Ember.compile(encOptCC);
        checkSame("mlp", mlp::forward, mlpOpt, mlpCompiled, mlpOptC, mlpX);
        checkSame("conv", conv::forward, convOpt, convCompiled, convOptC, convX);
        checkSame("encoder", encoder::forward, encOpt, encCompiled, encOptC, encX);
        checkSame("lstm", lstm::forward, lstmOpt, lstmCompiled, lstmOptC, lstmX);
        checkSame("gru", gru::forward, gruOpt, gruCompiled, gruOptC, lstmX);
        manager = Libtorch.manager();
        tMlp = new TorchMlp(manager, mlp);
        tConv = new TorchConv(manager, conv);
    }

    /** The compiled step's loss equals the eager step's (same weights, same input) before anything is timed. */
    private static void checkSame(String what, Fn1<Tensor, Tensor> eager, AdamW eagerOpt, Fn1<Tensor, Tensor> compiled, AdamW compiledOpt, Tensor x) {
        double a = step(eager, eagerOpt, x), b = step(compiled, compiledOpt, x);
        if (!(Math.abs(a - b) <= 1e-4 * (1 + Math.abs(a)))) throw new IllegalStateException(what + ": compiled step's loss " + b + " differs from eager's " + a);
    }

    @TearDown
    public void tearDown() { manager.close(); }

    @Benchmark
    public double lstm_eager() { return step(lstm::forward, lstmOpt, lstmX); }

    @Benchmark
    public double lstm_compiled() { return step(lstmCompiled, lstmOptC, lstmX); }

    @Benchmark
    public double gru_eager() { return step(gru::forward, gruOpt, lstmX); }

    @Benchmark
    public double gru_compiled() { return step(gruCompiled, gruOptC, lstmX); }

    @Benchmark
    public double mlp_eager() { return step(mlp::forward, mlpOpt, mlpX); }

    @Benchmark
    public double mlp_compiled() { return step(mlpCompiled, mlpOptC, mlpX); }

    @Benchmark
    public double mlp_compiledWithOptimizer() { return step(mlpCompiled, mlpOptCC, mlpX); }

    @Benchmark
    public double mlp_libtorch() { return tMlp.step(); }

    @Benchmark
    public double convBnRelu_eager() { return step(conv::forward, convOpt, convX); }

    @Benchmark
    public double convBnRelu_compiled() { return step(convCompiled, convOptC, convX); }

    @Benchmark
    public double convBnRelu_compiledWithOptimizer() { return step(convCompiled, convOptCC, convX); }

    @Benchmark
    public double convBnRelu_libtorch() { return tConv.step(); }

    @Benchmark
    public double encoder_eager() { return step(encoder::forward, encOpt, encX); }

    @Benchmark
    public double encoder_compiled() { return step(encCompiled, encOptC, encX); }

    @Benchmark
    public double encoder_compiledWithOptimizer() { return step(encCompiled, encOptCC, encX); }

    // ------------------------------------------------------------------ the libtorch peers

    /** AdamW written with libtorch ops (torch.optim.AdamW's math), over a list of parameters. */
    static final class TorchAdamW {
        final List<NDArray> params, m, v;
        int t;

        TorchAdamW(List<NDArray> params) {
            this.params = params;
            this.m = new ArrayList<>();
            this.v = new ArrayList<>();
            for (NDArray p : params) {
                m.add(p.zerosLike());
                v.add(p.zerosLike());
            }
        }

        void step() {
            t++;
            double lr = 1e-4, b1 = 0.9, b2 = 0.999, eps = 1e-8, wd = 1e-2;
            double c1 = 1 - Math.pow(b1, t), c2 = Math.sqrt(1 - Math.pow(b2, t));
            for (int i = 0; i < params.size(); i++) {
                // the update writes the parameter's data through a detached alias (torch.optim under no_grad)
                NDArray p = params.get(i).stopGradient(), g = params.get(i).getGradient();
                p.muli(1 - lr * wd);
                try (NDArray gm = g.mul(1 - b1); NDArray gg = g.mul(g)) {
                    m.get(i).muli(b1).addi(gm);
                    v.get(i).muli(b2).addi(gg.muli(1 - b2));
                }
                try (NDArray denom = v.get(i).sqrt().divi(c2).addi(eps); NDArray upd = m.get(i).div(denom).muli(-lr / c1)) {
                    p.addi(upd);
                }
                g.close();
                p.close();
            }
        }
    }

    private static NDArray copy(NDManager manager, Tensor t) {
        NDArray a = Libtorch.of(manager, t.toFloatArray(), t.shape());
        a.setRequiresGradient(true);
        return a;
    }

    static final class TorchMlp {
        final NDManager manager;
        final List<NDArray> w = new ArrayList<>();
        final NDArray x;
        final TorchAdamW opt;

        TorchMlp(NDManager manager, Module mlp) {
            this.manager = manager;
            for (Tensor p : mlp.parameters()) w.add(copy(manager, p));
            x = Libtorch.of(manager, Tensor.randn(64, 512).toFloatArray(), 64, 512);
            opt = new TorchAdamW(w);
        }

        double step() {
            List<NDArray> made = new ArrayList<>();
            try (GradientCollector gc = manager.getEngine().newGradientCollector()) {
                NDArray h = keep(made, Activation.relu(keep(made, Linear.linear(x, w.get(0), w.get(1)).singletonOrThrow())));
                h = keep(made, Activation.relu(keep(made, Linear.linear(h, w.get(2), w.get(3)).singletonOrThrow())));
                NDArray out = keep(made, Linear.linear(h, w.get(4), w.get(5)).singletonOrThrow());
                NDArray loss = keep(made, keep(made, out.square()).mean());
                gc.backward(loss);
                double l = loss.getFloat();
                opt.step();
                return l;
            } finally {
                for (NDArray a : made) a.close();
            }
        }
    }

    static final class TorchConv {
        final NDManager manager;
        final List<NDArray> p = new ArrayList<>();
        final NDArray[] runningMean = new NDArray[3], runningVar = new NDArray[3];
        final NDArray x;
        final TorchAdamW opt;

        TorchConv(NDManager manager, Module conv) {
            this.manager = manager;
            for (Tensor t : conv.parameters()) p.add(copy(manager, t));   // per block: conv weight, bn weight, bn bias
            for (int i = 0; i < 3; i++) {
                runningMean[i] = manager.zeros(new Shape(64));
                runningVar[i] = manager.ones(new Shape(64));
            }
            x = Libtorch.of(manager, Tensor.randn(4, 64, 28, 28).toFloatArray(), 4, 64, 28, 28);
            opt = new TorchAdamW(p);
        }

        double step() {
            List<NDArray> made = new ArrayList<>();
            try (GradientCollector gc = manager.getEngine().newGradientCollector()) {
                NDArray h = x;
                for (int i = 0; i < 3; i++) {
                    h = keep(made, Conv2d.conv2d(h, p.get(3 * i), null, new Shape(1, 1), new Shape(1, 1), new Shape(1, 1), 1).singletonOrThrow());
                    h = keep(made, BatchNorm.batchNorm(h, runningMean[i], runningVar[i], p.get(3 * i + 1), p.get(3 * i + 2), 1, 0.1f, 1e-5f, true).singletonOrThrow());
                    h = keep(made, Activation.relu(h));
                }
                NDArray loss = keep(made, keep(made, h.square()).mean());
                gc.backward(loss);
                double l = loss.getFloat();
                opt.step();
                return l;
            } finally {
                for (NDArray a : made) a.close();
            }
        }
    }

    private static NDArray keep(List<NDArray> made, NDArray a) {
        made.add(a);
        return a;
    }
}
