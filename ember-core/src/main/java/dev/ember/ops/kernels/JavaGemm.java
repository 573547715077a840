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
 * in parallel on the common fork/join pool when the product is big. A tile copies a
 * {@value #KC}-deep panel of op(B) into one array per row (it stays in L2), then updates two rows
 * of C at a time, copied into scratch arrays that stay in L1, with four rows of the panel at a
 * time: the innermost loop runs along these rows, so that C2 vectorizes it (i-k-j order). The
 * integer kernels are plain loops.
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
        int rowStep = transA ? 1 : lda;
        int colStep = transA ? lda : 1;
        float[][] panel = new float[Math.min(k, KC)][nb];
        float[] c0 = new float[nb];
        float[] c1 = new float[nb];
        for (int p0 = 0; p0 < k; p0 += KC) {
            int kc = Math.min(KC, k - p0);
            // The panel holds rows p0..p0+kc of op(B), columns j0..j0+nb, one array per row.
            if (!transB) {
                for (int p = 0; p < kc; p++) {
                    System.arraycopy(b, bOff + (p0 + p) * ldb + j0, panel[p], 0, nb);
                }
            } else {
                for (int j = 0; j < nb; j++) {
                    int src = bOff + (j0 + j) * ldb + p0;
                    for (int p = 0; p < kc; p++) {
                        panel[p][j] = b[src + p];
                    }
                }
            }
            for (int i = i0; i < i1; i += 2) {
                boolean pair = i + 1 < i1;
                int ci = cOff + i * ldc + j0;
                int ai = aOff + i * rowStep + p0 * colStep;
                System.arraycopy(c, ci, c0, 0, nb);
                if (pair) {
                    System.arraycopy(c, ci + ldc, c1, 0, nb);
                }
                int p = 0;
                for (; p + 4 <= kc; p += 4) {
                    int x = ai + p * colStep;
                    float a0 = alpha * a[x], a1 = alpha * a[x + colStep];
                    float a2 = alpha * a[x + 2 * colStep], a3 = alpha * a[x + 3 * colStep];
                    if (pair) {
                        int y = x + rowStep;
                        float e0 = alpha * a[y], e1 = alpha * a[y + colStep];
                        float e2 = alpha * a[y + 2 * colStep], e3 = alpha * a[y + 3 * colStep];
                        update2x4(c0, c1, panel[p], panel[p + 1], panel[p + 2], panel[p + 3],
                                a0, a1, a2, a3, e0, e1, e2, e3, nb);
                    } else {
                        update1x4(c0, panel[p], panel[p + 1], panel[p + 2], panel[p + 3], a0, a1, a2, a3, nb);
                    }
                }
                for (; p < kc; p++) {
                    int x = ai + p * colStep;
                    update1x1(c0, panel[p], alpha * a[x], nb);
                    if (pair) {
                        update1x1(c1, panel[p], alpha * a[x + rowStep], nb);
                    }
                }
                System.arraycopy(c0, 0, c, ci, nb);
                if (pair) {
                    System.arraycopy(c1, 0, c, ci + ldc, nb);
                }
            }
        }
    }

    // The update kernels index every array from 0 with the loop variable alone: that is what lets
    // C2 vectorize them (with a different offset per array it cannot rule out overlap and gives up).

    /** Two rows of C += 4 rows of B, each times its element of A: each B element loaded once for two rows. */
    private static void update2x4(float[] c0, float[] c1, float[] b0, float[] b1, float[] b2, float[] b3,
                                  float a0, float a1, float a2, float a3, float e0, float e1, float e2, float e3,
                                  int nb) {
        for (int j = 0; j < nb; j++) {
            float x0 = b0[j], x1 = b1[j], x2 = b2[j], x3 = b3[j];
            c0[j] += a0 * x0 + a1 * x1 + a2 * x2 + a3 * x3;
            c1[j] += e0 * x0 + e1 * x1 + e2 * x2 + e3 * x3;
        }
    }

    private static void update1x4(float[] c0, float[] b0, float[] b1, float[] b2, float[] b3,
                                  float a0, float a1, float a2, float a3, int nb) {
        for (int j = 0; j < nb; j++) {
            c0[j] += a0 * b0[j] + a1 * b1[j] + a2 * b2[j] + a3 * b3[j];
        }
    }

    private static void update1x1(float[] c0, float[] b0, float a0, int nb) {
        for (int j = 0; j < nb; j++) {
            c0[j] += a0 * b0[j];
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
        int rowStep = transA ? 1 : lda;
        int colStep = transA ? lda : 1;
        double[][] panel = new double[Math.min(k, KC)][nb];
        double[] c0 = new double[nb];
        double[] c1 = new double[nb];
        for (int p0 = 0; p0 < k; p0 += KC) {
            int kc = Math.min(KC, k - p0);
            // The panel holds rows p0..p0+kc of op(B), columns j0..j0+nb, one array per row.
            if (!transB) {
                for (int p = 0; p < kc; p++) {
                    System.arraycopy(b, bOff + (p0 + p) * ldb + j0, panel[p], 0, nb);
                }
            } else {
                for (int j = 0; j < nb; j++) {
                    int src = bOff + (j0 + j) * ldb + p0;
                    for (int p = 0; p < kc; p++) {
                        panel[p][j] = b[src + p];
                    }
                }
            }
            for (int i = i0; i < i1; i += 2) {
                boolean pair = i + 1 < i1;
                int ci = cOff + i * ldc + j0;
                int ai = aOff + i * rowStep + p0 * colStep;
                System.arraycopy(c, ci, c0, 0, nb);
                if (pair) {
                    System.arraycopy(c, ci + ldc, c1, 0, nb);
                }
                int p = 0;
                for (; p + 4 <= kc; p += 4) {
                    int x = ai + p * colStep;
                    double a0 = alpha * a[x], a1 = alpha * a[x + colStep];
                    double a2 = alpha * a[x + 2 * colStep], a3 = alpha * a[x + 3 * colStep];
                    if (pair) {
                        int y = x + rowStep;
                        double e0 = alpha * a[y], e1 = alpha * a[y + colStep];
                        double e2 = alpha * a[y + 2 * colStep], e3 = alpha * a[y + 3 * colStep];
                        update2x4(c0, c1, panel[p], panel[p + 1], panel[p + 2], panel[p + 3],
                                a0, a1, a2, a3, e0, e1, e2, e3, nb);
                    } else {
                        update1x4(c0, panel[p], panel[p + 1], panel[p + 2], panel[p + 3], a0, a1, a2, a3, nb);
                    }
                }
                for (; p < kc; p++) {
                    int x = ai + p * colStep;
                    update1x1(c0, panel[p], alpha * a[x], nb);
                    if (pair) {
                        update1x1(c1, panel[p], alpha * a[x + rowStep], nb);
                    }
                }
                System.arraycopy(c0, 0, c, ci, nb);
                if (pair) {
                    System.arraycopy(c1, 0, c, ci + ldc, nb);
                }
            }
        }
    }

    private static void update2x4(double[] c0, double[] c1, double[] b0, double[] b1, double[] b2, double[] b3,
                                  double a0, double a1, double a2, double a3, double e0, double e1, double e2, double e3,
                                  int nb) {
        for (int j = 0; j < nb; j++) {
            double x0 = b0[j], x1 = b1[j], x2 = b2[j], x3 = b3[j];
            c0[j] += a0 * x0 + a1 * x1 + a2 * x2 + a3 * x3;
            c1[j] += e0 * x0 + e1 * x1 + e2 * x2 + e3 * x3;
        }
    }

    private static void update1x4(double[] c0, double[] b0, double[] b1, double[] b2, double[] b3,
                                  double a0, double a1, double a2, double a3, int nb) {
        for (int j = 0; j < nb; j++) {
            c0[j] += a0 * b0[j] + a1 * b1[j] + a2 * b2[j] + a3 * b3[j];
        }
    }

    private static void update1x1(double[] c0, double[] b0, double a0, int nb) {
        for (int j = 0; j < nb; j++) {
            c0[j] += a0 * b0[j];
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
        // An empty matrix reads nothing, wherever it starts: a zero-size view (narrow(1, 1, 0) of a
        // [0, 2] tensor) may have an offset past its empty storage, and ATen multiplies it fine.
        if (rows == 0 || cols == 0) {
            return new long[] {off, off};
        }
        if (off < 0 || off > length) {
            throw new IllegalArgumentException(fn + ": " + array + " offset " + off + " is outside " + array
                    + ".length = " + length);
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
