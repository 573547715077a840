package dev.ember.bench;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.convolutional.Conv2d;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.Tensor;
import org.openjdk.jmh.annotations.*;

import java.util.concurrent.TimeUnit;

/**
 * Ember eager against libtorch eager (through DJL) on the foundation's three yardsticks, measured in
 * one JMH run: matmul 1024x1024 f32, conv2d (8, 64→64, 56x56, 3x3, pad 1), add on 4M floats.
 * Run: {@code java -jar ember-bench/target/benchmarks.jar EagerOpsBench}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 6, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-Xms8g", "-Xmx8g", "-Xmn4g", "-XX:+AlwaysPreTouch", "-XX:+UseParallelGC"})
public class EagerOpsBench {
    private static final int N = 4 * 1024 * 1024;

    private Tensor a, b, x, y, img, w, inPlace, out;
    private NDManager manager;
    private NDArray ta, tb, tx, ty, timg, tw, tInPlace;

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
        manager = Libtorch.manager();
        ta = Libtorch.of(manager, a.toFloatArray(), N);
        tb = Libtorch.of(manager, b.toFloatArray(), N);
        tInPlace = ta.duplicate();
        tx = Libtorch.of(manager, x.toFloatArray(), 1024, 1024);
        ty = Libtorch.of(manager, y.toFloatArray(), 1024, 1024);
        timg = Libtorch.of(manager, img.toFloatArray(), 8, 64, 56, 56);
        tw = Libtorch.of(manager, w.toFloatArray(), 64, 64, 3, 3);
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

    @Benchmark
    public Tensor conv2d_ember() {
        return OpRegistry.get("aten.conv2d.default").callTensor(img, w, null, new int[] {1, 1}, new int[] {1, 1});
    }

    @Benchmark
    public NDArray conv2d_libtorch() {
        NDList out = Conv2d.conv2d(timg, tw, null, new Shape(1, 1), new Shape(1, 1), new Shape(1, 1), 1);
        return closed(out.singletonOrThrow());
    }

    @Benchmark
    public Tensor add4M_ember() { return a.add(b); }

    @Benchmark
    public NDArray add4M_libtorch() { return closed(ta.add(tb)); }

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
