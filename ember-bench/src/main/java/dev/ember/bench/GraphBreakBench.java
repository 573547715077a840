package dev.ember.bench;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.openjdk.jmh.annotations.*;

import java.util.concurrent.TimeUnit;

/**
 * The price of one graph break: a function split by {@code Ember.graphBreak()} into two graphs,
 * against its two halves compiled as separate functions and called one after the other.
 * Run: {@code ./ember bench GraphBreakBench}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 6, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-XX:CompileCommand=quiet", "-XX:CompileCommand=inline,dev.ember.kernels.VectorMath::*", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.reflect=ALL-UNNAMED", "-Xms8g", "-Xmx8g", "-Xmn4g", "-XX:+AlwaysPreTouch", "-XX:+UseParallelGC"})
public class GraphBreakBench {
    private Tensor x, y;
    private Fn2<Tensor, Tensor, Tensor> broken, first, second;

    static Tensor withBreak(Tensor x, Tensor y) {
        Tensor a = x.add(y).relu();
        Ember.graphBreak();
        return a.mul(2.0).sub(y);
    }

    static Tensor firstHalf(Tensor x, Tensor y) { return x.add(y).relu(); }

    static Tensor secondHalf(Tensor a, Tensor y) { return a.mul(2.0).sub(y); }

    @Setup
    public void setup() {
        x = Tensor.randn(2, 2);
        y = Tensor.randn(2, 2);
        Options eager = Options.backend("eager");
        broken = Ember.compile(GraphBreakBench::withBreak, eager);
        first = Ember.compile(GraphBreakBench::firstHalf, eager);
        second = Ember.compile(GraphBreakBench::secondHalf, eager);
        broken.apply(x, y);
        second.apply(first.apply(x, y), y);
    }

    @Benchmark
    public Tensor oneBreak() { return broken.apply(x, y); }

    @Benchmark
    public Tensor twoGraphs() { return second.apply(first.apply(x, y), y); }
}
