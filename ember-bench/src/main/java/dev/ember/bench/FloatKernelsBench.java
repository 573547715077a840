package dev.ember.bench;

import dev.ember.kernels.JavaGemm;
import dev.ember.ops.OpOverload;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.openjdk.jmh.annotations.*;

import java.util.concurrent.TimeUnit;

import static dev.ember.bench.DtypeKernelsBench.N;
import static dev.ember.bench.DtypeKernelsBench.operand;

/**
 * The floating-point-only kernels Ember keeps once per dtype, on float32 and float64: math on SIMD
 * lanes, variance over rows, average pooling and the pure-Java GEMM (the kernel used when OpenBLAS
 * cannot load, called directly). Same shapes as {@link DtypeKernelsBench}.
 * Run: {@code ./ember bench FloatKernelsBench}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-XX:CompileCommand=quiet", "-XX:CompileCommand=inline,dev.ember.kernels.VectorMath::*", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.reflect=ALL-UNNAMED", "-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch", "-XX:+UseParallelGC"})
public class FloatKernelsBench {
    private static final int GEMM = 256;
    private static final OpOverload AVG_POOL2D = OpRegistry.get("aten.avg_pool2d.default");
    private static final OpOverload ADAPTIVE_AVG_POOL2D = OpRegistry.get("aten.adaptive_avg_pool2d.default");

    @Param({"FLOAT32", "FLOAT64"})
    public String dtype;

    private Tensor a, out, image;
    private float[] fa, fb, fc;
    private double[] da, db, dc;
    private final int[] k3 = {3, 3}, s2 = {2, 2}, p1 = {1, 1}, seven = {7, 7};

    @Setup
    public void setup() {
        DType t = DType.valueOf(dtype);
        a = operand(t, 1, N, N);
        out = Tensor.empty(t, N, N);
        image = operand(t, 3, 4, 32, 64, 64);
        fa = operand(DType.FLOAT32, 4, GEMM, GEMM).toFloatArray();
        fb = operand(DType.FLOAT32, 5, GEMM, GEMM).toFloatArray();
        fc = new float[GEMM * GEMM];
        da = operand(DType.FLOAT64, 4, GEMM, GEMM).toDoubleArray();
        db = operand(DType.FLOAT64, 5, GEMM, GEMM).toDoubleArray();
        dc = new double[GEMM * GEMM];
    }

    @Benchmark
    public Tensor exp() { return a.expOut(out); }

    @Benchmark
    public Tensor sigmoid() { return a.sigmoidOut(out); }

    @Benchmark
    public Tensor varRows() { return a.var(1, false); }

    /** 3x3, stride 2, padding 1 over [4, 32, 64, 64]. */
    @Benchmark
    public Tensor avgPool() { return AVG_POOL2D.callTensor(image, k3, s2, p1, false, true, null); }

    /** [4, 32, 64, 64] to 7x7: uneven windows. */
    @Benchmark
    public Tensor adaptiveAvgPool() { return ADAPTIVE_AVG_POOL2D.callTensor(image, seven); }

    /** 256x256 times 256x256 with JavaGemm, B transposed (the panel-copy path a linear layer takes). */
    @Benchmark
    public Object javaGemm() {
        if (dtype.equals("FLOAT32")) {
            JavaGemm.sgemm(false, true, GEMM, GEMM, GEMM, 1f, fa, 0, GEMM, fb, 0, GEMM, 0f, fc, 0, GEMM);
            return fc;
        }
        JavaGemm.dgemm(false, true, GEMM, GEMM, GEMM, 1, da, 0, GEMM, db, 0, GEMM, 0, dc, 0, GEMM);
        return dc;
    }
}
