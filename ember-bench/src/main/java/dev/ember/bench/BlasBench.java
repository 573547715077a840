package dev.ember.bench;

import dev.ember.kernels.Blas;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The native BLAS's float32 GEMM alone ({@link Blas#sgemm}, into a preallocated C) on the products
 * of the MLP, its training step, a big square and an im2col convolution, in each layout. Which BLAS
 * runs is the process's choice (docs/tuning.md, "The native BLAS"); to compare the two:
 * {@code ./ember bench BlasBench -jvmArgsAppend -Dember.blas=openblas} against
 * {@code -Dember.blas=mkl}. The header line "blas:" in the output says which one ran.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-XX:CompileCommand=quiet", "-XX:CompileCommand=inline,dev.ember.kernels.VectorMath::*", "-Xms2g", "-Xmx2g", "-XX:+UseParallelGC"})
public class BlasBench {
    /** m x n x k. */
    @Param({"64x2048x512", "64x2048x2048", "2048x2048x64", "256x2048x2048", "1024x1024x1024", "3136x64x576"})
    public String shape;

    /** Which operand is read transposed: NN, NT (B, a linear layer's weight), TN (A, a weight gradient). */
    @Param({"NN", "NT", "TN"})
    public String layout;

    private int m, n, k;
    private float[] a, b, c;
    private boolean ta, tb;

    @Setup
    public void setup() {
        String[] s = shape.split("x");
        m = Integer.parseInt(s[0]);
        n = Integer.parseInt(s[1]);
        k = Integer.parseInt(s[2]);
        ta = layout.equals("TN");
        tb = layout.equals("NT");
        Random r = new Random(1);
        a = new float[m * k];
        b = new float[k * n];
        c = new float[m * n];
        for (int i = 0; i < a.length; i++) a[i] = (float) r.nextGaussian();
        for (int i = 0; i < b.length; i++) b[i] = (float) r.nextGaussian();
        System.out.println("blas: " + Blas.backendDescription());
    }

    @Benchmark
    public float[] sgemm() {
        Blas.sgemm(ta, tb, m, n, k, 1f, a, 0, ta ? m : k, b, 0, tb ? k : n, 0f, c, 0, n);
        return c;
    }
}
