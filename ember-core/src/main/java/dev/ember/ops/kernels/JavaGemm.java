package dev.ember.ops.kernels;

import java.util.Arrays;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

/**
 * General matrix multiply in pure Java: {@code C = alpha * op(A) * op(B) + beta * C}, row-major like
 * cblas with {@code CblasRowMajor}. {@code op(A)} is m x k, {@code op(B)} is k x n, C is m x n; a
 * transposed operand is stored the other way round (A as k x m, B as n x k). Element (r, c) of a
 * matrix lives at {@code off + r * ld + c}. As in BLAS, {@code beta == 0} overwrites C without
 * reading it, and {@code alpha == 0} or {@code k == 0} reads neither A nor B.
 *
 * <p>The float and double kernels work on tiles of C (up to {@value #TILE_M} x {@value #TILE_N}),
 * in parallel on the common fork/join pool when the product is big. Within a tile, a row of C stays
 * in L1 while a {@value #KC}-deep panel of B streams from L2; the innermost loop runs along
 * contiguous rows of B and C so that C2 vectorizes it. A transposed B is packed first so that its
 * rows are contiguous too. The integer kernels are plain loops.
 */
public final class JavaGemm {
    private JavaGemm() {}

    static final int TILE_M = 64;
    static final int TILE_N = 512;
    static final int KC = 256;
    /** Multiply-adds below which forking costs more than it saves. */
    private static final long PARALLEL_THRESHOLD = 1L << 18;

    public static void sgemm(boolean transA, boolean transB, int m, int n, int k,
                             float alpha, float[] a, int aOff, int lda, float[] b, int bOff, int ldb,
                             float beta, float[] c, int cOff, int ldc) {
        checkArgs("sgemm", transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc);
        sgemmUnchecked(transA, transB, m, n, k, alpha, a, aOff, lda, b, bOff, ldb, beta, c, cOff, ldc);
    }

    public static void dgemm(boolean transA, boolean transB, int m, int n, int k,
                             double alpha, double[] a, int aOff, int lda, double[] b, int bOff, int ldb,
                             double beta, double[] c, int cOff, int ldc) {
        checkArgs("dgemm", transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc);
        dgemmUnchecked(transA, transB, m, n, k, alpha, a, aOff, lda, b, bOff, ldb, beta, c, cOff, ldc);
    }

    /** Integer GEMM; overflow wraps around, as in Java arithmetic. */
    public static void igemm(boolean transA, boolean transB, int m, int n, int k,
                             int alpha, int[] a, int aOff, int lda, int[] b, int bOff, int ldb,
                             int beta, int[] c, int cOff, int ldc) {
        checkArgs("igemm", transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc);
        int aRow = transA ? 1 : lda, aCol = transA ? lda : 1, bRow = transB ? 1 : ldb, bCol = transB ? ldb : 1;
        for (int i = 0; i < m; i++) {
            int ci = cOff + i * ldc;
            for (int j = 0; j < n; j++) {
                c[ci + j] = beta == 0 ? 0 : beta * c[ci + j];
            }
            if (alpha == 0) {
                continue;
            }
            for (int p = 0; p < k; p++) {
                int aip = alpha * a[aOff + i * aRow + p * aCol];
                int bp = bOff + p * bRow;
                for (int j = 0; j < n; j++) {
                    c[ci + j] += aip * b[bp + j * bCol];
                }
            }
        }
    }

    /** Long GEMM; overflow wraps around, as in Java arithmetic. */
    public static void lgemm(boolean transA, boolean transB, int m, int n, int k,
                             long alpha, long[] a, int aOff, int lda, long[] b, int bOff, int ldb,
                             long beta, long[] c, int cOff, int ldc) {
        checkArgs("lgemm", transA, transB, m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc);
        int aRow = transA ? 1 : lda, aCol = transA ? lda : 1, bRow = transB ? 1 : ldb, bCol = transB ? ldb : 1;
        for (int i = 0; i < m; i++) {
            int ci = cOff + i * ldc;
            for (int j = 0; j < n; j++) {
                c[ci + j] = beta == 0 ? 0 : beta * c[ci + j];
            }
            if (alpha == 0) {
                continue;
            }
            for (int p = 0; p < k; p++) {
                long aip = alpha * a[aOff + i * aRow + p * aCol];
                int bp = bOff + p * bRow;
                for (int j = 0; j < n; j++) {
                    c[ci + j] += aip * b[bp + j * bCol];
                }
            }
        }
    }

    static void sgemmUnchecked(boolean transA, boolean transB, int m, int n, int k,
                               float alpha, float[] a, int aOff, int lda, float[] b, int bOff, int ldb,
                               float beta, float[] c, int cOff, int ldc) {
        int tilesN = Math.ceilDiv(n, TILE_N);
        forEachTile(Math.ceilDiv(m, TILE_M) * tilesN, (long) m * n * k, t ->
                sgemmTile(transA, transB, m, n, k, alpha, a, aOff, lda, b, bOff, ldb, beta, c, cOff, ldc,
                        t / tilesN * TILE_M, t % tilesN * TILE_N));
    }

    static void dgemmUnchecked(boolean transA, boolean transB, int m, int n, int k,
                               double alpha, double[] a, int aOff, int lda, double[] b, int bOff, int ldb,
                               double beta, double[] c, int cOff, int ldc) {
        int tilesN = Math.ceilDiv(n, TILE_N);
        forEachTile(Math.ceilDiv(m, TILE_M) * tilesN, (long) m * n * k, t ->
                dgemmTile(transA, transB, m, n, k, alpha, a, aOff, lda, b, bOff, ldb, beta, c, cOff, ldc,
                        t / tilesN * TILE_M, t % tilesN * TILE_N));
    }

    private static void forEachTile(int tiles, long multiplyAdds, IntConsumer tile) {
        if (tiles > 1 && multiplyAdds >= PARALLEL_THRESHOLD) {
            IntStream.range(0, tiles).parallel().forEach(tile);
        } else {
            for (int t = 0; t < tiles; t++) {
                tile.accept(t);
            }
        }
    }

    /** Computes rows [i0, i0 + TILE_M) and columns [j0, j0 + TILE_N) of C, clipped to m x n. */
    private static void sgemmTile(boolean transA, boolean transB, int m, int n, int k,
                                  float alpha, float[] a, int aOff, int lda, float[] b, int bOff, int ldb,
                                  float beta, float[] c, int cOff, int ldc, int i0, int j0) {
        int i1 = Math.min(m, i0 + TILE_M);
        int nb = Math.min(n - j0, TILE_N);
        for (int i = i0; i < i1; i++) {
            int ci = cOff + i * ldc + j0;
            if (beta == 0) {
                Arrays.fill(c, ci, ci + nb, 0f);
            } else if (beta != 1) {
                for (int j = 0; j < nb; j++) {
                    c[ci + j] *= beta;
                }
            }
        }
        if (k == 0 || alpha == 0) {
            return;
        }
        int aStep = transA ? lda : 1;
        float[] packed = transB ? new float[Math.min(k, KC) * nb] : null;
        for (int p0 = 0; p0 < k; p0 += KC) {
            int kc = Math.min(KC, k - p0);
            float[] bb = b;
            int bBase = bOff + p0 * ldb + j0;
            int bStep = ldb;
            if (transB) {
                // B is stored n x k: gather the panel's columns into contiguous rows.
                for (int j = 0; j < nb; j++) {
                    int src = bOff + (j0 + j) * ldb + p0;
                    for (int p = 0; p < kc; p++) {
                        packed[p * nb + j] = b[src + p];
                    }
                }
                bb = packed;
                bBase = 0;
                bStep = nb;
            }
            for (int i = i0; i < i1; i++) {
                int ci = cOff + i * ldc + j0;
                int ai = transA ? aOff + p0 * lda + i : aOff + i * lda + p0;
                int p = 0;
                for (; p + 4 <= kc; p += 4) {
                    float a0 = alpha * a[ai + p * aStep];
                    float a1 = alpha * a[ai + (p + 1) * aStep];
                    float a2 = alpha * a[ai + (p + 2) * aStep];
                    float a3 = alpha * a[ai + (p + 3) * aStep];
                    int r0 = bBase + p * bStep, r1 = r0 + bStep, r2 = r1 + bStep, r3 = r2 + bStep;
                    for (int j = 0; j < nb; j++) {
                        c[ci + j] += a0 * bb[r0 + j] + a1 * bb[r1 + j] + a2 * bb[r2 + j] + a3 * bb[r3 + j];
                    }
                }
                for (; p < kc; p++) {
                    float a0 = alpha * a[ai + p * aStep];
                    int r0 = bBase + p * bStep;
                    for (int j = 0; j < nb; j++) {
                        c[ci + j] += a0 * bb[r0 + j];
                    }
                }
            }
        }
    }

    /** The double twin of {@link #sgemmTile}. */
    private static void dgemmTile(boolean transA, boolean transB, int m, int n, int k,
                                  double alpha, double[] a, int aOff, int lda, double[] b, int bOff, int ldb,
                                  double beta, double[] c, int cOff, int ldc, int i0, int j0) {
        int i1 = Math.min(m, i0 + TILE_M);
        int nb = Math.min(n - j0, TILE_N);
        for (int i = i0; i < i1; i++) {
            int ci = cOff + i * ldc + j0;
            if (beta == 0) {
                Arrays.fill(c, ci, ci + nb, 0d);
            } else if (beta != 1) {
                for (int j = 0; j < nb; j++) {
                    c[ci + j] *= beta;
                }
            }
        }
        if (k == 0 || alpha == 0) {
            return;
        }
        int aStep = transA ? lda : 1;
        double[] packed = transB ? new double[Math.min(k, KC) * nb] : null;
        for (int p0 = 0; p0 < k; p0 += KC) {
            int kc = Math.min(KC, k - p0);
            double[] bb = b;
            int bBase = bOff + p0 * ldb + j0;
            int bStep = ldb;
            if (transB) {
                for (int j = 0; j < nb; j++) {
                    int src = bOff + (j0 + j) * ldb + p0;
                    for (int p = 0; p < kc; p++) {
                        packed[p * nb + j] = b[src + p];
                    }
                }
                bb = packed;
                bBase = 0;
                bStep = nb;
            }
            for (int i = i0; i < i1; i++) {
                int ci = cOff + i * ldc + j0;
                int ai = transA ? aOff + p0 * lda + i : aOff + i * lda + p0;
                int p = 0;
                for (; p + 4 <= kc; p += 4) {
                    double a0 = alpha * a[ai + p * aStep];
                    double a1 = alpha * a[ai + (p + 1) * aStep];
                    double a2 = alpha * a[ai + (p + 2) * aStep];
                    double a3 = alpha * a[ai + (p + 3) * aStep];
                    int r0 = bBase + p * bStep, r1 = r0 + bStep, r2 = r1 + bStep, r3 = r2 + bStep;
                    for (int j = 0; j < nb; j++) {
                        c[ci + j] += a0 * bb[r0 + j] + a1 * bb[r1 + j] + a2 * bb[r2 + j] + a3 * bb[r3 + j];
                    }
                }
                for (; p < kc; p++) {
                    double a0 = alpha * a[ai + p * aStep];
                    int r0 = bBase + p * bStep;
                    for (int j = 0; j < nb; j++) {
                        c[ci + j] += a0 * bb[r0 + j];
                    }
                }
            }
        }
    }

    /**
     * Checks a GEMM call before any element is touched (and before native code could read out of
     * bounds): non-negative sizes, leading dimensions at least the row length, every row of A, B
     * and C inside its array, and C not sharing elements with A or B.
     */
    static void checkArgs(String fn, boolean transA, boolean transB, int m, int n, int k,
                          Object a, int aOff, int lda, Object b, int bOff, int ldb, Object c, int cOff, int ldc) {
        requireNonNegative(fn, "m", m);
        requireNonNegative(fn, "n", n);
        requireNonNegative(fn, "k", k);
        long[] aSpan = checkMatrix(fn, "A", "a", "lda", transA, transA ? k : m, transA ? m : k,
                transA ? "k x m" : "m x k", a, aOff, lda);
        long[] bSpan = checkMatrix(fn, "B", "b", "ldb", transB, transB ? n : k, transB ? k : n,
                transB ? "n x k" : "k x n", b, bOff, ldb);
        long[] cSpan = checkMatrix(fn, "C", "c", "ldc", false, m, n, "m x n", c, cOff, ldc);
        requireDisjoint(fn, "A", a, aSpan, c, cSpan);
        requireDisjoint(fn, "B", b, bSpan, c, cSpan);
    }

    private static void requireNonNegative(String fn, String name, int value) {
        if (value < 0) {
            throw new IllegalArgumentException(fn + ": " + name + " = " + value + " must be >= 0");
        }
    }

    /** Returns the span [first, end) of array elements the matrix covers (empty if it has no elements). */
    private static long[] checkMatrix(String fn, String matrix, String array, String ldName, boolean trans,
                                      int rows, int cols, String layout, Object data, int off, int ld) {
        if (data == null) {
            throw new NullPointerException(fn + ": " + array + " is null");
        }
        int length = switch (data) {
            case float[] f -> f.length;
            case double[] d -> d.length;
            case int[] i -> i.length;
            case long[] l -> l.length;
            default -> throw new IllegalArgumentException(fn + ": " + array + " is a " + data.getClass().getSimpleName());
        };
        String shape = matrix + " (stored " + layout + " = " + rows + " x " + cols
                + (matrix.equals("C") ? "" : ", trans" + matrix + " = " + trans) + ")";
        if (ld < cols) {
            throw new IllegalArgumentException(fn + ": " + ldName + " = " + ld + " is less than the " + cols
                    + " columns of " + shape);
        }
        if (off < 0 || off > length) {
            throw new IllegalArgumentException(fn + ": " + array + " offset " + off + " is outside " + array
                    + ".length = " + length);
        }
        if (rows == 0 || cols == 0) {
            return new long[] {off, off};
        }
        long end = off + (long) (rows - 1) * ld + cols;
        if (end > length) {
            throw new IllegalArgumentException(fn + ": " + shape + " with " + ldName + " = " + ld + " from offset "
                    + off + " needs " + end + " elements, but " + array + ".length = " + length);
        }
        return new long[] {off, end};
    }

    private static void requireDisjoint(String fn, String name, Object in, long[] inSpan, Object c, long[] cSpan) {
        if (in == c && inSpan[0] < cSpan[1] && cSpan[0] < inSpan[1]) {
            throw new IllegalArgumentException(fn + ": C (elements " + cSpan[0] + ".." + (cSpan[1] - 1) + ") overlaps "
                    + name + " (elements " + inSpan[0] + ".." + (inSpan[1] - 1) + ") in the same array;"
                    + " write the product to a separate output");
        }
    }
}
