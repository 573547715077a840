package dev.ember.bench;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.convolutional.Conv2d;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorScope;
import org.openjdk.jmh.annotations.*;

import java.util.concurrent.TimeUnit;

/**
 * Ember eager against libtorch eager (through DJL) on the foundation's three yardsticks, measured in
 * one JMH run: matmul 1024x1024 f32, conv2d (8, 64→64, 56x56, 3x3, pad 1), add on 4M floats; and
 * the few-row products Ember runs in its own kernels: a linear layer's 64x2048 times an [out, in]
 * weight 2048x2048 (GemmDot), one row times a [in, out] 2048x2048 (GemmBroadcast).
 * Run: {@code java -jar ember-bench/target/benchmarks.jar EagerOpsBench}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 6, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-XX:CompileCommand=quiet", "-XX:CompileCommand=inline,dev.ember.kernels.VectorMath::*", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.reflect=ALL-UNNAMED", "-Xms8g", "-Xmx8g", "-Xmn4g", "-XX:+AlwaysPreTouch", "-XX:+UseParallelGC"})
public class EagerOpsBench {
    private static final int N = 4 * 1024 * 1024;

    private Tensor a, b, x, y, positive, img, w, inPlace, out, batch64, row, weight;
    private NDManager manager;
    private NDArray ta, tb, tx, ty, tPositive, timg, tw, tInPlace, tBatch64, tRow, tWeight;

    @Setup
    public void setup() {
        a = Tensor.of(Libtorch.randn(1, N), N);
        b = Tensor.of(Libtorch.randn(2, N), N);
        inPlace = a.clone();
        out = Tensor.empty(N);
        x = Tensor.of(Libtorch.randn(3, 1024 * 1024), 1024, 1024);
        y = Tensor.of(Libtorch.randn(4, 1024 * 1024), 1024, 1024);
        img = Tensor.of(Libtorch.randn(5, 8 * 64 * 56 * 56), 8, 64, 56, 56);
        w = Tensor.of(Libtorch.randn(6, 64 * 64 * 9), 64, 64, 3, 3).mul(0.05);
        positive = x.abs().add(1e-3);
        manager = Libtorch.manager();
        ta = Libtorch.of(manager, a.toFloatArray(), N);
        tb = Libtorch.of(manager, b.toFloatArray(), N);
        tInPlace = ta.duplicate();
        tx = Libtorch.of(manager, x.toFloatArray(), 1024, 1024);
        tPositive = Libtorch.of(manager, positive.toFloatArray(), 1024, 1024);
        ty = Libtorch.of(manager, y.toFloatArray(), 1024, 1024);
        timg = Libtorch.of(manager, img.toFloatArray(), 8, 64, 56, 56);
        tw = Libtorch.of(manager, w.toFloatArray(), 64, 64, 3, 3);
        batch64 = Tensor.of(Libtorch.randn(7, 64 * 2048), 64, 2048);
        row = Tensor.of(Libtorch.randn(8, 2048), 1, 2048);
        weight = Tensor.of(Libtorch.randn(9, 2048 * 2048), 2048, 2048).mul(0.02);
        tBatch64 = Libtorch.of(manager, batch64.toFloatArray(), 64, 2048);
        tRow = Libtorch.of(manager, row.toFloatArray(), 1, 2048);
        tWeight = Libtorch.of(manager, weight.toFloatArray(), 2048, 2048);
    }

    /** Frees libtorch's result at once (the op has run: CPU eager is synchronous), as Python's refcount would. */
    private static NDArray closed(NDArray r) {
        r.close();
        return r;
    }

    @TearDown
    public void tearDown() { manager.close(); }

    @Benchmark
    public Tensor matmul1024_ember() { return x.matmul(y); }

    @Benchmark
    public NDArray matmul1024_libtorch() { return closed(tx.matMul(ty)); }

    /** 64x2048 times weight^T, as a linear layer (no bias): GemmDot. */
    @Benchmark
    public Tensor linear64_ember() { return batch64.matmul(weight.t()); }

    @Benchmark
    public NDArray linear64_libtorch() { return closed(tBatch64.matMul(tWeight.transpose())); }

    /** One row times a [in, out] weight: GemmBroadcast. */
    @Benchmark
    public Tensor rowTimesWeight_ember() { return row.matmul(weight); }

    @Benchmark
    public NDArray rowTimesWeight_libtorch() { return closed(tRow.matMul(tWeight)); }

    @Benchmark
    public Tensor conv2d_ember() {
        return OpRegistry.get("aten.conv2d.default").callTensor(img, w, null, new int[] {1, 1}, new int[] {1, 1});
    }

    @Benchmark
    public NDArray conv2d_libtorch() {
        NDList out = Conv2d.conv2d(timg, tw, null, new Shape(1, 1), new Shape(1, 1), new Shape(1, 1), 1);
        return closed(out.singletonOrThrow());
    }

    /**
     * tanh of 1M floats: since session 20 per element with Math.tanh (its SIMD form, SVML, rounded
     * differently from the scalar loops'; reliability.md, "JIT tiers and the last bit").
     */
    @Benchmark
    public Tensor tanh1M_ember() { return x.tanh(); }

    @Benchmark
    public NDArray tanh1M_libtorch() { return closed(tx.tanh()); }

    /** log of 1M positive floats: VectorMath.log since session 20 (the Vector API's lanewise LOG before). */
    @Benchmark
    public Tensor log1M_ember() { return positive.log(); }

    @Benchmark
    public NDArray log1M_libtorch() { return closed(tPositive.log()); }

    @Benchmark
    public Tensor add4M_ember() { return a.add(b); }

    @Benchmark
    public NDArray add4M_libtorch() { return closed(ta.add(tb)); }

    /**
     * add4M_ember with a deterministic end for its result, as add4M_libtorch closes its NDArray: the
     * scope releases the output, and the next call's add takes the same array, still in cache.
     */
    @Benchmark
    public Tensor add4M_scoped_ember() {
        try (TensorScope scope = TensorScope.open()) {
            return a.add(b);
        }
    }

    /**
     * Only the output array of add4M_ember: HotSpot zeroes a fresh 16 MB array on one thread, outside
     * any TLAB (even jdk.internal.misc.Unsafe.allocateUninitializedArray zeroes it there), into
     * memory no cache holds, as eden moves on. This alone is above 0.8x of add4M_libtorch, whose
     * allocator hands back the block just freed, still in cache.
     */
    @Benchmark
    public float[] alloc4M_jvm() { return new float[N]; }

    /** Without allocation: the JVM zeroes every new array, libtorch's allocator does not. */
    @Benchmark
    public Tensor add4M_inplace_ember() { return inPlace.add_(b); }

    @Benchmark
    public NDArray add4M_inplace_libtorch() { return tInPlace.addi(tb); }

    /** a + b into a preallocated out (neither a nor b): add4M_ember's work without its allocation, inputs unchanged. */
    @Benchmark
    public Tensor add4M_out_ember() { return a.addOut(b, out); }
}
