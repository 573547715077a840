package dev.ember.bench;

import dev.ember.Ember;
import dev.ember.Options;
import dev.ember.nn.Module;
import dev.ember.optim.AdamW;
import dev.ember.optim.SGD;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One AdamW step over the parameters of {@link TrainingBench}'s MLP (512→2048→2048→512, 6.3 M
 * parameters) and of its encoder layer (0.8 M), gradients already set: eager stepping against
 * {@code Ember.compile(optimizer)}; and SGD with momentum over the MLP's. The peer (torch AdamW and
 * SGD, for-loop and foreach, torch.compile of {@code opt.step}) is {@code ember-bench/peer/torch_optim_peer.py}. Run: {@code ./ember bench OptimizerStepBench}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-XX:CompileCommand=quiet", "-XX:CompileCommand=inline,dev.ember.kernels.VectorMath::*", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.reflect=ALL-UNNAMED", "-Xms8g", "-Xmx8g", "-Xmn4g", "-XX:+AlwaysPreTouch", "-XX:+UseParallelGC"})
public class OptimizerStepBench {
    private AdamW mlpEager, mlpCompiled, encEager, encCompiled;
    private SGD sgdMlpEager, sgdMlpCompiled;

    private static AdamW withGradients(Module m) {
        List<? extends Tensor> ps = m.parameters();
        Generator g = new Generator(3);
        for (Tensor p : ps) p.setGrad(Tensor.randn(g, p.shape()).mul(1e-3));
        return new AdamW(ps, AdamW.options().lr(1e-4));
    }

    /** SGD with momentum 0.9, one step taken so that its momentum buffers exist (the steady step is what is timed). */
    private static SGD sgdWithGradients(Module m) {
        List<? extends Tensor> ps = m.parameters();
        Generator g = new Generator(3);
        for (Tensor p : ps) p.setGrad(Tensor.randn(g, p.shape()).mul(1e-3));
        SGD sgd = new SGD(ps, SGD.options().lr(1e-4).momentum(0.9));
        sgd.step();
        return sgd;
    }

    @Setup
    public void setup() {
        mlpEager = withGradients(TrainingBench.mlpModel());
        mlpCompiled = withGradients(TrainingBench.mlpModel());
        Ember.compile(mlpCompiled, Options.defaults());
        encEager = withGradients(TrainingBench.encoderModel());
        encCompiled = withGradients(TrainingBench.encoderModel());
        Ember.compile(encCompiled, Options.defaults());
        sgdMlpEager = sgdWithGradients(TrainingBench.mlpModel());
        sgdMlpCompiled = sgdWithGradients(TrainingBench.mlpModel());
        Ember.compile(sgdMlpCompiled, Options.defaults());
    }

    @Benchmark
    public AdamW mlp_eager() { mlpEager.step(); return mlpEager; }

    @Benchmark
    public AdamW mlp_compiled() { mlpCompiled.step(); return mlpCompiled; }

    @Benchmark
    public AdamW encoder_eager() { encEager.step(); return encEager; }

    @Benchmark
    public AdamW encoder_compiled() { encCompiled.step(); return encCompiled; }

    @Benchmark
    public SGD sgd_mlp_eager() { sgdMlpEager.step(); return sgdMlpEager; }

    @Benchmark
    public SGD sgd_mlp_compiled() { sgdMlpCompiled.step(); return sgdMlpCompiled; }
}
