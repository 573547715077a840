package dev.ember.kernels;

import dev.ember.tuning.KernelTuning;
import dev.ember.tuning.Machine;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Float32 {@code C = alpha * A * B^T + beta * C} with A {@code [m, k]} and B {@code [n, k]} both
 * row-major: every output is a dot product of two unit-stride rows, which is how a linear layer's
 * activations ({@code [batch, in]}) meet its weight ({@code [out, in]}). A register tile of 4 rows
 * of A by 4 rows of B keeps 16 vector accumulators (512-bit: all of them in registers, beside the
 * 8 loads of a step), so every loaded vector feeds 4 FMAs and nothing is packed.
 *
 * <p>Rows of A are taken in blocks that stay in L2 while the tiles of B stream past them once per
 * block; the cores split the rows of B. On this machine (2 cores, AVX-512) this ran an MLP's
 * 64x2048x2048 product in 2.9 ms against OpenBLAS's 4.4 ms and libtorch's 3.9 ms (178 GFLOP/s);
 * {@link #suits} says where it is used.
 */
public final class GemmDot {
    private GemmDot() {}

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    /** Per thread: a tile's 16 vectors of sums on their way to C (see {@link #flushRow}). */
    private static final ThreadLocal<float[]> SUMS = ThreadLocal.withInitial(() -> new float[16 * L]);
    /**
     * Bytes of A's rows one block may hold, so that the block stays in a core's L2 beside B's tiles:
     * an eighth of the L2 (256 KB of the 2 MB on the machine the kernel was tuned on).
     */
    private static final int A_BLOCK_BYTES = (int) Math.clamp(Machine.current().l2Bytes() / 8, 32 << 10, 4 << 20);

    /**
     * Whether this kernel is used for an {@code m x n x k} float32 product with A row-major and B
     * given as its transpose ({@code [n, k]} row-major). Measured against OpenBLAS on 2 cores
     * (AVX-512; best of 12, B transposed as a linear layer reads its weight):
     * <ul>
     *   <li>few rows, where OpenBLAS threads poorly: 1x2048x2048 0.25 against 1.73 ms,
     *       4x4096x1024 0.30 against 1.88, 16x1024x1024 0.40 against 0.64;</li>
     *   <li>up to 256 rows with long dot products: 64x2048x2048 3.0 against 4.4 ms, 64x512x2048
     *       0.81 against 1.30, 256x1024x1024 2.74 against 3.02;</li>
     *   <li>but not short ones (64x1024x256 0.33 against 0.29 ms, 256x256x256 0.24 against
     *       0.20), nor many rows (512x1024x1024 6.07 against 5.62, 1024x768x256 2.47 against
     *       1.95), where OpenBLAS's packed panels reuse each load more, nor many rows against few
     *       columns (128x100x1024 0.32 against 0.23, 200x30x2048 0.29 against 0.24), nor products
     *       too small to split across cores (8x10x1000 4.9 against 2.2 µs).</li>
     * </ul>
     * Only 512-bit vectors qualify: with 256-bit ones the 16 accumulators would not fit in the
     * 16 registers. These bounds (against OpenBLAS; {@link KernelTuning#ONE_MKL_DEFAULTS} against oneMKL) are {@link KernelTuning#DEFAULTS}' {@code dot} rule; {@code ember tune}
     * measures them on the machine it runs on.
     */
    /** The warm-up slice's rows, columns and reduction ({@link ColdStart}): a whole 4-row tile and a leftover row, 32 of the 4-column tiles. */
    private static final int SLICE_ROWS = 5, SLICE_COLUMNS = 128, SLICE_REDUCTION = 128;
    private static final float[][] SLICE = {ColdStart.scratch(SLICE_ROWS * SLICE_REDUCTION), ColdStart.scratch(SLICE_COLUMNS * SLICE_REDUCTION),
            new float[SLICE_ROWS * SLICE_COLUMNS]};

    /** This kernel's tier: while it is cold, {@link Gemm#multiply} runs its products on OpenBLAS. */
    static final ColdStart.Tier TIER = ColdStart.tier("GemmDot", 2.0 * SLICE_ROWS * SLICE_COLUMNS * SLICE_REDUCTION,
            () -> columns(SLICE_ROWS, SLICE_REDUCTION, 1f, SLICE[0], 0, SLICE_REDUCTION, SLICE[1], 0, SLICE_REDUCTION, 0f, SLICE[2], 0, SLICE_COLUMNS, 0, SLICE_COLUMNS));

    public static boolean suits(int m, int n, int k) {
        if (L < 16 || k < 4 * L || (long) m * n * k < 1 << 19) return false;
        return Gemm.tuning().dot().accepts(m, n, k);
    }

    /** The product on every core (chunks of B's rows); sequential inside an already split loop. */
    public static void multiply(int m, int n, int k, float alpha, float[] a, int aOff, int lda,
                                float[] b, int bOff, int ldb, float beta, float[] c, int cOff, int ldc) {
        int tiles = (n + 3) / 4;
        Parallel.forRange(tiles, 4L * m * k, (lo, hi) ->
                columns(m, k, alpha, a, aOff, lda, b, bOff, ldb, beta, c, cOff, ldc, lo * 4, Math.min(n, hi * 4)));
    }

    /**
     * {@link #multiply} on the calling thread alone, with no bounds on the shape: for a caller that
     * already splits its work across the cores (many small products, as a Winograd weight gradient
     * runs one per transformed position).
     */
    public static void multiplyHere(int m, int n, int k, float alpha, float[] a, int aOff, int lda,
                                    float[] b, int bOff, int ldb, float beta, float[] c, int cOff, int ldc) {
        columns(m, k, alpha, a, aOff, lda, b, bOff, ldb, beta, c, cOff, ldc, 0, n);
    }

    /** Outputs of columns [j0, j1) of every row. */
    static void columns(int m, int k, float alpha, float[] a, int aOff, int lda, float[] b, int bOff, int ldb,
                        float beta, float[] c, int cOff, int ldc, int j0, int j1) {
        int blockRows = Math.max(4, A_BLOCK_BYTES / (4 * Math.max(k, 1)) & ~3);
        float[] sums = SUMS.get();
        for (int i0 = 0; i0 < m; i0 += blockRows) {
            int i1 = Math.min(m, i0 + blockRows);
            int j = j0;
            for (; j + 4 <= j1; j += 4) {
                int i = i0;
                for (; i + 4 <= i1; i += 4) tile4x4(k, alpha, a, aOff + i * lda, lda, b, bOff + j * ldb, ldb, beta, c, cOff + i * ldc + j, ldc, sums);
                for (; i < i1; i++) tile1x4(k, alpha, a, aOff + i * lda, b, bOff + j * ldb, ldb, beta, c, cOff + i * ldc + j, sums);
            }
            for (; j < j1; j++) {
                for (int i = i0; i < i1; i++) {
                    store(c, cOff + i * ldc + j, alpha, beta, dot(k, a, aOff + i * lda, b, bOff + j * ldb));
                }
            }
        }
    }

    private static void tile4x4(int k, float alpha, float[] a, int a0, int lda, float[] b, int b0, int ldb,
                                float beta, float[] c, int c0, int ldc, float[] sums) {
        int a1 = a0 + lda, a2 = a1 + lda, a3 = a2 + lda;
        int b1 = b0 + ldb, b2 = b1 + ldb, b3 = b2 + ldb;
        FloatVector s00 = FloatVector.zero(S), s01 = s00, s02 = s00, s03 = s00,
                s10 = s00, s11 = s00, s12 = s00, s13 = s00,
                s20 = s00, s21 = s00, s22 = s00, s23 = s00,
                s30 = s00, s31 = s00, s32 = s00, s33 = s00;
        int kv = k - k % L;
        for (int p = 0; p < kv; p += L) {
            FloatVector x0 = FloatVector.fromArray(S, a, a0 + p), x1 = FloatVector.fromArray(S, a, a1 + p),
                    x2 = FloatVector.fromArray(S, a, a2 + p), x3 = FloatVector.fromArray(S, a, a3 + p);
            FloatVector y = FloatVector.fromArray(S, b, b0 + p);
            s00 = x0.fma(y, s00); s10 = x1.fma(y, s10); s20 = x2.fma(y, s20); s30 = x3.fma(y, s30);
            y = FloatVector.fromArray(S, b, b1 + p);
            s01 = x0.fma(y, s01); s11 = x1.fma(y, s11); s21 = x2.fma(y, s21); s31 = x3.fma(y, s31);
            y = FloatVector.fromArray(S, b, b2 + p);
            s02 = x0.fma(y, s02); s12 = x1.fma(y, s12); s22 = x2.fma(y, s22); s32 = x3.fma(y, s32);
            y = FloatVector.fromArray(S, b, b3 + p);
            s03 = x0.fma(y, s03); s13 = x1.fma(y, s13); s23 = x2.fma(y, s23); s33 = x3.fma(y, s33);
        }
        s00.intoArray(sums, 0); s01.intoArray(sums, L); s02.intoArray(sums, 2 * L); s03.intoArray(sums, 3 * L);
        s10.intoArray(sums, 4 * L); s11.intoArray(sums, 5 * L); s12.intoArray(sums, 6 * L); s13.intoArray(sums, 7 * L);
        s20.intoArray(sums, 8 * L); s21.intoArray(sums, 9 * L); s22.intoArray(sums, 10 * L); s23.intoArray(sums, 11 * L);
        s30.intoArray(sums, 12 * L); s31.intoArray(sums, 13 * L); s32.intoArray(sums, 14 * L); s33.intoArray(sums, 15 * L);
        for (int r = 0; r < 4; r++) flushRow(sums, 4 * r, k, kv, alpha, beta, c, c0 + r * ldc, a, a0 + r * lda, b, b0, ldb);
    }

    /** One row of A against 4 rows of B (the rows left over when m is not a multiple of 4). */
    private static void tile1x4(int k, float alpha, float[] a, int a0, float[] b, int b0, int ldb,
                                float beta, float[] c, int c0, float[] sums) {
        int b1 = b0 + ldb, b2 = b1 + ldb, b3 = b2 + ldb;
        FloatVector s0 = FloatVector.zero(S), s1 = s0, s2 = s0, s3 = s0;
        int kv = k - k % L;
        for (int p = 0; p < kv; p += L) {
            FloatVector x = FloatVector.fromArray(S, a, a0 + p);
            s0 = x.fma(FloatVector.fromArray(S, b, b0 + p), s0);
            s1 = x.fma(FloatVector.fromArray(S, b, b1 + p), s1);
            s2 = x.fma(FloatVector.fromArray(S, b, b2 + p), s2);
            s3 = x.fma(FloatVector.fromArray(S, b, b3 + p), s3);
        }
        s0.intoArray(sums, 0); s1.intoArray(sums, L); s2.intoArray(sums, 2 * L); s3.intoArray(sums, 3 * L);
        flushRow(sums, 0, k, kv, alpha, beta, c, c0, a, a0, b, b0, ldb);
    }

    /**
     * The four outputs of one row of A against 4 rows of B, from the vectors of sums at
     * {@code sums[first * L ...]}: each one's lanes summed, plus the products past the last whole
     * vector. The tiles hand their sums over through an array, not as vector arguments: a call C2
     * does not inline (code after a long loop is cold when the loop gets compiled) would box every
     * vector.
     */
    private static void flushRow(float[] sums, int first, int k, int kv, float alpha, float beta, float[] c, int c0,
                                 float[] a, int a0, float[] b, int b0, int ldb) {
        for (int v = 0; v < 4; v++) {
            float dot = VectorMath.sumLanes(FloatVector.fromArray(S, sums, (first + v) * L)) + tail(k, kv, a, a0, b, b0 + v * ldb);
            store(c, c0 + v, alpha, beta, dot);
        }
    }

    private static float dot(int k, float[] a, int a0, float[] b, int b0) {
        FloatVector s = FloatVector.zero(S);
        int kv = k - k % L;
        for (int p = 0; p < kv; p += L) s = FloatVector.fromArray(S, a, a0 + p).fma(FloatVector.fromArray(S, b, b0 + p), s);
        return VectorMath.sumLanes(s) + tail(k, kv, a, a0, b, b0);
    }

    /** The products of the last {@code k % L} positions, past the whole vectors. */
    private static float tail(int k, int from, float[] a, int a0, float[] b, int b0) {
        float s = 0;
        for (int p = from; p < k; p++) s = Math.fma(a[a0 + p], b[b0 + p], s);
        return s;
    }

    /** BLAS's rule: with {@code beta == 0} the old value is not read (a NaN there does not propagate). */
    static void store(float[] c, int at, float alpha, float beta, float dot) {
        c[at] = beta == 0 ? alpha * dot : alpha * dot + beta * c[at];
    }
}
