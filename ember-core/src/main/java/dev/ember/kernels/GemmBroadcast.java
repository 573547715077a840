package dev.ember.kernels;

import dev.ember.tuning.KernelTuning;
import dev.ember.tuning.Machine;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Float32 {@code C = alpha * A * B + beta * C} with A {@code [m, k]} and B {@code [k, n]} both
 * row-major: the layout of {@code x.matmul(w)} with a weight stored {@code [in, out]}. Each step
 * broadcasts one element of A and multiplies it into a row segment of B: a register tile of 4 rows
 * of C by 4 vectors of columns keeps 16 accumulators, fed by 4 loads of B and 4 broadcasts of A
 * per 16 FMAs, with nothing packed (copying each tile's panel of B to consecutive rows first
 * measured no faster). The reduction runs in blocks of {@value #K_BLOCK}, so that B's panel of a
 * tile and A's block stay in cache while the tiles that share them pass.
 *
 * <p>{@link GemmDot} is the same idea for B given transposed ({@code [n, k]}, a linear layer's
 * weight); {@link #suits} says where this one beats OpenBLAS.
 */
public final class GemmBroadcast {
    private GemmBroadcast() {}

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    /** Columns of one full tile: four vectors. */
    private static final int TILE_COLUMNS = 4 * L;
    /**
     * Reduction steps per block, so that B's panel of a tile ({@code K_BLOCK x TILE_COLUMNS} floats)
     * is a thirty-second of the L2: 256 steps (a 64 KB panel) on the machine the kernel was tuned on,
     * a power of two from 64 to 1024.
     */
    static final int K_BLOCK = Integer.highestOneBit((int) Math.clamp(Machine.current().l2Bytes() / 32 / (TILE_COLUMNS * Float.BYTES), 64, 1024));
    /**
     * Per thread: a tile's sums on their way to C. A tile hands them over through this array, not
     * as vector arguments: a call C2 does not inline (the store code after a long loop is cold when
     * the loop is compiled) would box every vector, which cost more than the products.
     */
    private static final ThreadLocal<float[]> SUMS = ThreadLocal.withInitial(() -> new float[4 * TILE_COLUMNS]);

    /**
     * Whether this kernel is used for an {@code m x n x k} float32 product with both operands
     * row-major. Measured against OpenBLAS on 2 cores (AVX-512, best of 12):
     * <ul>
     *   <li>up to 4 rows, where the product streams B once and OpenBLAS threads poorly:
     *       1x2048x2048 0.46 against 1.14 ms, 4x4096x1024 1.00 against 1.31;</li>
     *   <li>up to 64 rows with long reductions, a little: 64x2048x2048 3.68 against 4.07 ms,
     *       64x512x2048 0.79 against 0.84;</li>
     *   <li>not short reductions (64x1024x256 0.25 against 0.22 ms, 256x256x256 0.23 against
     *       0.18), nor narrow products whose columns leave a ragged edge and few tiles for the
     *       cores (64x392x576, an im2col convolution's shape, 0.49 against 0.22), and no better
     *       from 128 rows on (1024x1024x1024 10.8 against 11.0), where OpenBLAS stays.</li>
     * </ul>
     * Only 512-bit vectors qualify, as for {@link GemmDot}. These bounds are
     * {@link KernelTuning#DEFAULTS}' {@code broadcast} rule (against OpenBLAS; {@link KernelTuning#ONE_MKL_DEFAULTS} against oneMKL); {@code ember tune} measures them on the
     * machine it runs on.
     */
    /** The warm-up slice's rows, columns and reduction ({@link ColdStart}): a whole 4-row tile and a leftover row, two 64-column tiles. */
    private static final int SLICE_ROWS = 5, SLICE_COLUMNS = 128, SLICE_REDUCTION = 128;
    private static final float[][] SLICE = {ColdStart.scratch(SLICE_ROWS * SLICE_REDUCTION), ColdStart.scratch(SLICE_REDUCTION * SLICE_COLUMNS),
            new float[SLICE_ROWS * SLICE_COLUMNS]};

    /** This kernel's tier: while it is cold, {@link Gemm#multiply} runs its products on OpenBLAS. */
    static final ColdStart.Tier TIER = ColdStart.tier("GemmBroadcast", 2.0 * SLICE_ROWS * SLICE_COLUMNS * SLICE_REDUCTION,
            () -> columns(SLICE_ROWS, SLICE_REDUCTION, 1f, SLICE[0], 0, SLICE_REDUCTION, SLICE[1], 0, SLICE_COLUMNS, 0f, SLICE[2], 0, SLICE_COLUMNS, 0, SLICE_COLUMNS));

    public static boolean suits(int m, int n, int k) {
        if (L < 16 || (long) m * n * k < 1 << 19) return false;
        return Gemm.tuning().broadcast().accepts(m, n, k);
    }

    /** The product on every core (chunks of C's columns); sequential inside an already split loop. */
    public static void multiply(int m, int n, int k, float alpha, float[] a, int aOff, int lda,
                                float[] b, int bOff, int ldb, float beta, float[] c, int cOff, int ldc) {
        int tiles = (n + TILE_COLUMNS - 1) / TILE_COLUMNS;
        Parallel.forRange(tiles, (long) TILE_COLUMNS * m * k / 16, (lo, hi) ->
                columns(m, k, alpha, a, aOff, lda, b, bOff, ldb, beta, c, cOff, ldc, lo * TILE_COLUMNS, Math.min(n, hi * TILE_COLUMNS)));
    }

    /** Columns [j0, j1) of every row of C. */
    static void columns(int m, int k, float alpha, float[] a, int aOff, int lda, float[] b, int bOff, int ldb,
                        float beta, float[] c, int cOff, int ldc, int j0, int j1) {
        if (k == 0) {
            for (int i = 0; i < m; i++) for (int j = j0; j < j1; j++) store(c, cOff + i * ldc + j, alpha, beta, 0, true);
            return;
        }
        float[] sums = SUMS.get();
        for (int p0 = 0; p0 < k; p0 += K_BLOCK) {
            int p1 = Math.min(k, p0 + K_BLOCK);
            boolean first = p0 == 0;
            int j = j0;
            for (; j + TILE_COLUMNS <= j1; j += TILE_COLUMNS) {
                int i = 0;
                for (; i + 4 <= m; i += 4) tile4x4(p0, p1, alpha, a, aOff + i * lda, lda, b, bOff + j, ldb, beta, c, cOff + i * ldc + j, ldc, first, sums);
                for (; i < m; i++) tile1x4(p0, p1, alpha, a, aOff + i * lda, b, bOff + j, ldb, beta, c, cOff + i * ldc + j, first, sums);
            }
            for (; j + L <= j1; j += L) {
                for (int i = 0; i < m; i++) tile1x1(p0, p1, alpha, a, aOff + i * lda, b, bOff + j, ldb, beta, c, cOff + i * ldc + j, first, sums);
            }
            for (; j < j1; j++) {
                for (int i = 0; i < m; i++) {
                    float s = 0;
                    for (int p = p0; p < p1; p++) s = Math.fma(a[aOff + i * lda + p], b[bOff + p * ldb + j], s);
                    store(c, cOff + i * ldc + j, alpha, beta, s, first);
                }
            }
        }
    }

    private static void tile4x4(int p0, int p1, float alpha, float[] a, int a0, int lda, float[] b, int b0, int ldb,
                                float beta, float[] c, int c0, int ldc, boolean first, float[] sums) {
        int a1 = a0 + lda, a2 = a1 + lda, a3 = a2 + lda;
        FloatVector s00 = FloatVector.zero(S), s01 = s00, s02 = s00, s03 = s00,
                s10 = s00, s11 = s00, s12 = s00, s13 = s00,
                s20 = s00, s21 = s00, s22 = s00, s23 = s00,
                s30 = s00, s31 = s00, s32 = s00, s33 = s00;
        for (int p = p0; p < p1; p++) {
            int row = b0 + p * ldb;
            FloatVector y0 = FloatVector.fromArray(S, b, row), y1 = FloatVector.fromArray(S, b, row + L),
                    y2 = FloatVector.fromArray(S, b, row + 2 * L), y3 = FloatVector.fromArray(S, b, row + 3 * L);
            FloatVector x = FloatVector.broadcast(S, a[a0 + p]);
            s00 = x.fma(y0, s00); s01 = x.fma(y1, s01); s02 = x.fma(y2, s02); s03 = x.fma(y3, s03);
            x = FloatVector.broadcast(S, a[a1 + p]);
            s10 = x.fma(y0, s10); s11 = x.fma(y1, s11); s12 = x.fma(y2, s12); s13 = x.fma(y3, s13);
            x = FloatVector.broadcast(S, a[a2 + p]);
            s20 = x.fma(y0, s20); s21 = x.fma(y1, s21); s22 = x.fma(y2, s22); s23 = x.fma(y3, s23);
            x = FloatVector.broadcast(S, a[a3 + p]);
            s30 = x.fma(y0, s30); s31 = x.fma(y1, s31); s32 = x.fma(y2, s32); s33 = x.fma(y3, s33);
        }
        s00.intoArray(sums, 0); s01.intoArray(sums, L); s02.intoArray(sums, 2 * L); s03.intoArray(sums, 3 * L);
        s10.intoArray(sums, 4 * L); s11.intoArray(sums, 5 * L); s12.intoArray(sums, 6 * L); s13.intoArray(sums, 7 * L);
        s20.intoArray(sums, 8 * L); s21.intoArray(sums, 9 * L); s22.intoArray(sums, 10 * L); s23.intoArray(sums, 11 * L);
        s30.intoArray(sums, 12 * L); s31.intoArray(sums, 13 * L); s32.intoArray(sums, 14 * L); s33.intoArray(sums, 15 * L);
        flush(sums, 4, 4, c, c0, ldc, alpha, beta, first);
    }

    /** One row of C (the rows left over when m is not a multiple of 4; all of them for a single row). */
    private static void tile1x4(int p0, int p1, float alpha, float[] a, int a0, float[] b, int b0, int ldb,
                                float beta, float[] c, int c0, boolean first, float[] sums) {
        FloatVector s0 = FloatVector.zero(S), s1 = s0, s2 = s0, s3 = s0;
        for (int p = p0; p < p1; p++) {
            int row = b0 + p * ldb;
            FloatVector x = FloatVector.broadcast(S, a[a0 + p]);
            s0 = x.fma(FloatVector.fromArray(S, b, row), s0);
            s1 = x.fma(FloatVector.fromArray(S, b, row + L), s1);
            s2 = x.fma(FloatVector.fromArray(S, b, row + 2 * L), s2);
            s3 = x.fma(FloatVector.fromArray(S, b, row + 3 * L), s3);
        }
        s0.intoArray(sums, 0); s1.intoArray(sums, L); s2.intoArray(sums, 2 * L); s3.intoArray(sums, 3 * L);
        flush(sums, 1, 4, c, c0, 0, alpha, beta, first);
    }

    /** One row by one vector of columns (the columns left over past the last full tile). */
    private static void tile1x1(int p0, int p1, float alpha, float[] a, int a0, float[] b, int b0, int ldb,
                                float beta, float[] c, int c0, boolean first, float[] sums) {
        FloatVector s = FloatVector.zero(S);
        for (int p = p0; p < p1; p++) s = FloatVector.broadcast(S, a[a0 + p]).fma(FloatVector.fromArray(S, b, b0 + p * ldb), s);
        s.intoArray(sums, 0);
        flush(sums, 1, 1, c, c0, 0, alpha, beta, first);
    }

    /**
     * Moves {@code rows x vectors} vectors of sums (row-major in {@code sums}) into C at {@code c0}:
     * on the first block {@code alpha * sum + beta * C} (C not read when {@code beta == 0}, BLAS's
     * rule, so a NaN there does not propagate), on later blocks {@code C + alpha * sum}.
     */
    private static void flush(float[] sums, int rows, int vectors, float[] c, int c0, int ldc, float alpha, float beta, boolean first) {
        for (int r = 0; r < rows; r++) {
            for (int v = 0; v < vectors; v++) {
                int at = c0 + r * ldc + v * L;
                FloatVector scaled = FloatVector.fromArray(S, sums, (r * vectors + v) * L).mul(alpha);
                if (!first) scaled = scaled.add(FloatVector.fromArray(S, c, at));
                else if (beta != 0) scaled = FloatVector.fromArray(S, c, at).fma(FloatVector.broadcast(S, beta), scaled);
                scaled.intoArray(c, at);
            }
        }
    }

    /** One element of C, as {@link #flush} does a vector: the first block by BLAS's rule ({@link GemmDot#store}), later ones added. */
    private static void store(float[] c, int at, float alpha, float beta, float sum, boolean first) {
        if (first) GemmDot.store(c, at, alpha, beta, sum);
        else c[at] += alpha * sum;
    }
}
