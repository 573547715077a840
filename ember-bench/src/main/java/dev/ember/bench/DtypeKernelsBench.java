package dev.ember.bench;

import dev.ember.ops.OpOverload;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.openjdk.jmh.annotations.*;

import java.util.concurrent.TimeUnit;

/**
 * The eager kernels Ember keeps once per dtype (pointwise rows, reductions over rows, pooling),
 * each run on float32, float64, int32 and int64: what the kernels generated from one template per
 * family must keep as fast as the hand-written twins were. Operands are 512x512 (1 MB of float32),
 * results go into preallocated outputs where the op has an out= form, so the kernel is what is timed.
 * Run: {@code ./ember bench DtypeKernelsBench}; the floating-point-only kernels are in
 * {@link FloatKernelsBench}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-XX:CompileCommand=quiet", "-XX:CompileCommand=inline,dev.ember.kernels.VectorMath::*", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.reflect=ALL-UNNAMED", "-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch", "-XX:+UseParallelGC"})
public class DtypeKernelsBench {
    static final int N = 512;
    private static final OpOverload MAX_POOL2D = OpRegistry.get("aten.max_pool2d.default");

    @Param({"FLOAT32", "FLOAT64", "INT32", "INT64"})
    public String dtype;

    private Tensor a, b, bT, out, mask, image;
    private final int[] k3 = {3, 3}, s2 = {2, 2}, p1 = {1, 1}, d1 = {1, 1};

    @Setup
    public void setup() {
        DType t = DType.valueOf(dtype);
        a = operand(t, 1, N, N);
        b = operand(t, 2, N, N);
        bT = b.t();
        out = Tensor.empty(t, N, N);
        mask = a.lt(b);
        image = operand(t, 3, 4, 32, 64, 64);
    }

    /** Normal values for floats, [-1000, 1000) for integers. */
    static Tensor operand(DType t, long seed, int... shape) {
        Generator g = new Generator(seed);
        return t.isFloatingPoint() ? Tensor.randn(g, shape).to(t) : Tensor.randint(g, -1000, 1000, shape).to(t);
    }

    /** Dense rows: the SIMD loops. */
    @Benchmark
    public Tensor add() { return a.addOut(b, out); }

    /** One operand transposed: the strided loops. */
    @Benchmark
    public Tensor addTransposed() { return a.addOut(bT, out); }

    @Benchmark
    public Tensor maximum() { return a.maximumOut(b, out); }

    /** A new bool result (256 KB) each call. */
    @Benchmark
    public Tensor lessThan() { return a.lt(b); }

    @Benchmark
    public Tensor where() { return Tensor.where(mask, a, b); }

    @Benchmark
    public Tensor sumRows() { return a.sum(1, false); }

    @Benchmark
    public Tensor amaxRows() { return a.amax(1, false); }

    @Benchmark
    public Tensor argmaxRows() { return a.argmax(1, false); }

    /** 3x3, stride 2, padding 1 over [4, 32, 64, 64]. */
    @Benchmark
    public Tensor maxPool() { return MAX_POOL2D.callTensor(image, k3, s2, p1, d1, false); }
}
