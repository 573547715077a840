package dev.ember.bench;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.norm.LayerNorm;
import dev.ember.fx.CompileMode;
import dev.ember.fx.GraphModule;
import dev.ember.inductor.InductorGraph;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorScope;
import org.openjdk.jmh.annotations.*;

import java.util.concurrent.TimeUnit;

import static dev.ember.bench.InductorBenchSupport.closed;

/**
 * softmax and layer_norm over the last dim of 1024x4096 floats: Ember eager, Ember compiled (one
 * fused kernel per row; {@code _reduceOverhead}: mode reduce-overhead, the output array reused from
 * call to call) and libtorch eager.
 * Run: {@code ./ember bench InductorNormBench}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 6, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-XX:CompileCommand=quiet", "-XX:CompileCommand=inline,dev.ember.kernels.VectorMath::*", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.reflect=ALL-UNNAMED", "-Xms8g", "-Xmx8g", "-Xmn4g", "-XX:+AlwaysPreTouch", "-XX:+UseParallelGC"})
public class InductorNormBench {
    private static final int ROWS = 1024, COLS = 4096;

    private Tensor x, w, b;
    private GraphModule softmax, layerNorm;
    private InductorGraph softmaxCompiled, layerNormCompiled, softmaxReuse, layerNormReuse;
    private NDManager manager;
    private NDArray tx, tw, tb;

    @Setup
    public void setup() {
        x = Tensor.of(Libtorch.randn(1, ROWS * COLS), ROWS, COLS);
        w = Tensor.of(Libtorch.randn(2, COLS), COLS);
        b = Tensor.of(Libtorch.randn(3, COLS), COLS);
        softmax = ModelGraphs.softmax();
        layerNorm = ModelGraphs.layerNorm(COLS);
        softmaxCompiled = InductorBenchSupport.compileChecked(softmax, 1e-5, x);
        layerNormCompiled = InductorBenchSupport.compileChecked(layerNorm, 1e-4, x, w, b);
        softmaxReuse = InductorBenchSupport.compileChecked(softmax, CompileMode.REDUCE_OVERHEAD, 1e-5, x);
        layerNormReuse = InductorBenchSupport.compileChecked(layerNorm, CompileMode.REDUCE_OVERHEAD, 1e-4, x, w, b);
        manager = Libtorch.manager();
        tx = Libtorch.of(manager, x.toFloatArray(), ROWS, COLS);
        tw = Libtorch.of(manager, w.toFloatArray(), COLS);
        tb = Libtorch.of(manager, b.toFloatArray(), COLS);
    }

    @TearDown
    public void tearDown() { manager.close(); }

    @Benchmark
    public Object softmax_eager() { return softmax.run(x); }

    @Benchmark
    public Object softmax_compiled() { return softmaxCompiled.run(x); }

    @Benchmark
    public Object softmax_reduceOverhead() { return softmaxReuse.run(x); }

    /** The default-mode graph, its output released at the end of each call (TensorScope). */
    @Benchmark
    public Object softmax_scoped() {
        try (TensorScope scope = TensorScope.open()) {
            return softmaxCompiled.run(x);
        }
    }

    @Benchmark
    public NDArray softmax_libtorch() { return closed(tx.softmax(-1)); }

    @Benchmark
    public Object layerNorm_eager() { return layerNorm.run(x, w, b); }

    @Benchmark
    public Object layerNorm_compiled() { return layerNormCompiled.run(x, w, b); }

    @Benchmark
    public Object layerNorm_reduceOverhead() { return layerNormReuse.run(x, w, b); }

    /** The default-mode graph, its output released at the end of each call (TensorScope). */
    @Benchmark
    public Object layerNorm_scoped() {
        try (TensorScope scope = TensorScope.open()) {
            return layerNormCompiled.run(x, w, b);
        }
    }

    @Benchmark
    public NDArray layerNorm_libtorch() { return closed(LayerNorm.layerNorm(tx, new Shape(COLS), tw, tb, 1e-5f).singletonOrThrow()); }
}
