package dev.ember.bench;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.openjdk.jmh.annotations.*;

import java.util.concurrent.TimeUnit;

/**
 * What capture costs. {@code call_*}: a cached compiled 2-tensor function against the same function
 * called eagerly, on tiny tensors so the ops themselves cost little — the difference is the guard
 * check plus dispatch. {@code trace100Ops}: tracing a 100-op function from scratch (warm JIT).
 * Run: {@code ./ember bench DynamoBench}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 6, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-XX:CompileCommand=quiet", "-XX:CompileCommand=inline,dev.ember.kernels.VectorMath::*", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.reflect=ALL-UNNAMED", "-Xms8g", "-Xmx8g", "-Xmn4g", "-XX:+AlwaysPreTouch", "-XX:+UseParallelGC"})
public class DynamoBench {
    private Tensor x, y;
    private Fn2<Tensor, Tensor, Tensor> compiled;

    static Tensor twoOps(Tensor x, Tensor y) { return x.add(y).relu(); }

    /** 100 ops: 50 rounds of an add and a mul. */
    static Tensor hundredOps(Tensor x, Tensor y) {
        Tensor h = x;
        for (int i = 0; i < 50; i++) h = h.add(y).mul(0.5);
        return h;
    }

    @Setup
    public void setup() {
        x = Tensor.randn(2, 2);
        y = Tensor.randn(2, 2);
        compiled = Ember.compile(DynamoBench::twoOps, Options.backend("eager"));
        compiled.apply(x, y);
    }

    @Benchmark
    public Tensor call_eager() { return twoOps(x, y); }

    @Benchmark
    public Tensor call_compiled() { return compiled.apply(x, y); }

    @Benchmark
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public Tensor trace100Ops() {
        Ember.reset();
        return Ember.compile(DynamoBench::hundredOps, Options.backend("eager")).apply(x, y);
    }
}
