package dev.ember.kernels;

import dev.ember.tuning.KernelTuning;

import java.util.function.IntUnaryOperator;

/**
 * {@code C = alpha * op(A) * op(B) + beta * C} on storage arrays of any matmul dtype (the arrays'
 * element type, float[], double[], int[] or long[], picks the kernel): OpenBLAS
 * (through {@link Blas}) for float32/float64, except float32 products of few rows, which Ember's
 * own kernels run faster: {@link GemmDot} against a transposed right operand (a linear layer's
 * weight), {@link GemmBroadcast} against a row-major one;
 * {@link JavaGemm}'s integer kernels for int32/int64. In a fresh JVM the few-row kernels' products
 * run on OpenBLAS until the JIT has compiled them ({@link ColdStart}).
 * Operands are described by {@link Operand}, which reads strided tensors in place whenever one of
 * their two dimensions is unit-stride (a transposed matrix is just the other storage order).
 */
public final class Gemm {
    private Gemm() {}

    /**
     * Multiply-adds below which OpenBLAS runs a GEMM on one thread (its {@code m*n*k} threshold,
     * 65536 x GEMM_MULTITHREAD_THRESHOLD=4); batches of GEMMs this small may run side by side.
     */
    public static final long SINGLE_THREADED_WORK = 1L << 18;

    /**
     * The fewest rows a band of a batched product may have when it is cut to stay under
     * {@link #SINGLE_THREADED_WORK}: thinner bands run OpenBLAS's kernels below their speed
     * (measured on 2 cores: 32 batches of 128x128x64 take 0.58 ms in 32-row bands spread across
     * cores against 0.65 ms one product at a time with OpenBLAS threading each, 128x64x128 0.36
     * against 0.49 ms; 8 batches of 256x256x64, which would need 16-row bands, take 0.76 ms
     * banded against 0.53 ms in turn). {@link KernelTuning#DEFAULTS}' {@code minBandRows};
     * {@code ember tune} measures it on the machine it runs on.
     */
    static int minBandRows() { return tuning().minBandRows(); }

    private static final class TuningHolder {
        static final KernelTuning TUNING = KernelTuning.current().against(Blas.baseline());
    }

    /** The kernel tuning this JVM's GEMMs follow: {@link KernelTuning#current} if it was measured against the BLAS in use, else that BLAS's defaults. */
    public static KernelTuning tuning() { return TuningHolder.TUNING; }

    /** A matrix inside a storage array as BLAS reads it: element (r, c) at {@code offset + r*ld + c}, or the transpose of that. */
    public record Operand(Object data, int offset, int ld, boolean trans) {

        /** This operand moved by {@code elements} (the next matrix of a batch). */
        public Operand shift(int elements) { return new Operand(data, offset + elements, ld, trans); }
    }

    /**
     * The operand reading a {@code rows x cols} matrix at {@code offset} with the given strides in
     * place, or {@code null} when BLAS cannot (neither dimension unit-stride, or rows that overlap).
     * Strides of dimensions of size 1 don't matter.
     */
    public static Operand operand(Object data, int offset, int rows, int cols, int rowStride, int colStride) {
        if (colStride == 1 || cols <= 1) {
            int ld = rows <= 1 ? Math.max(cols, 1) : rowStride;
            if (ld >= Math.max(cols, 1)) return new Operand(data, offset, ld, false);
        }
        if (rowStride == 1 || rows <= 1) {
            int ld = cols <= 1 ? Math.max(rows, 1) : colStride;
            if (ld >= Math.max(rows, 1)) return new Operand(data, offset, ld, true);
        }
        return null;
    }

    /**
     * {@code C[m x n] = alpha * A[m x k] * B[k x n] + beta * C}; {@code beta == 0} ignores C's old
     * contents (NaN included). {@code c}'s element type (the operands' too) picks the kernel.
     */
    public static void multiply(int m, int n, int k, double alpha, Operand a, Operand b,
                                double beta, Object c, int cOff, int ldc) {
        switch (c) {
            case float[] fc -> {
                boolean javaKernel = !a.trans && alpha != 0 && (b.trans ? GemmDot.suits(m, n, k) : GemmBroadcast.suits(m, n, k));
                ColdStart.Tier tier = b.trans ? GemmDot.TIER : GemmBroadcast.TIER;
                if (javaKernel && tier.cold()) {
                    // the Java kernel still runs interpreted: OpenBLAS computes the product on this thread alone, the kernel
                    // a slice on the warming thread to get compiled (started first, so that the two run side by side: BlasThreads)
                    tier.exercise();
                    Blas.sgemmOnOneThread(false, b.trans, m, n, k, (float) alpha, (float[]) a.data, a.offset, a.ld,
                            (float[]) b.data, b.offset, b.ld, (float) beta, fc, cOff, ldc);
                } else if (javaKernel) {
                    JavaGemm.checkArgs("sgemm", false, b.trans, m, n, k, a.data, a.offset, a.ld, b.data, b.offset, b.ld, c, cOff, ldc);
                    float[] fa = (float[]) a.data, fb = (float[]) b.data;
                    if (b.trans) GemmDot.multiply(m, n, k, (float) alpha, fa, a.offset, a.ld, fb, b.offset, b.ld, (float) beta, fc, cOff, ldc);
                    else GemmBroadcast.multiply(m, n, k, (float) alpha, fa, a.offset, a.ld, fb, b.offset, b.ld, (float) beta, fc, cOff, ldc);
                } else {
                    Blas.sgemm(a.trans, b.trans, m, n, k, (float) alpha, (float[]) a.data, a.offset, a.ld,
                            (float[]) b.data, b.offset, b.ld, (float) beta, fc, cOff, ldc);
                }
            }
            case double[] dc -> Blas.dgemm(a.trans, b.trans, m, n, k, alpha, (double[]) a.data, a.offset, a.ld,
                    (double[]) b.data, b.offset, b.ld, beta, dc, cOff, ldc);
            case int[] ic -> JavaGemm.igemm(a.trans, b.trans, m, n, k, (int) (long) alpha, (int[]) a.data, a.offset, a.ld,
                    (int[]) b.data, b.offset, b.ld, (int) (long) beta, ic, cOff, ldc);
            case long[] lc -> JavaGemm.lgemm(a.trans, b.trans, m, n, k, (long) alpha, (long[]) a.data, a.offset, a.ld,
                    (long[]) b.data, b.offset, b.ld, (long) beta, lc, cOff, ldc);
            case byte[] bc -> throw new IllegalArgumentException("GEMM is not defined for bool");
            default -> throw new IllegalArgumentException("GEMM: not a storage array: " + c.getClass().getSimpleName());
        }
    }

    /**
     * Whether {@link #multiply} spreads one product into {@code c} across cores by itself (OpenBLAS,
     * or JavaGemm's float kernels): true for float[] and double[].
     */
    public static boolean threadsItself(Object c) { return c instanceof float[] || c instanceof double[]; }

    /**
     * {@code C_i = alpha * op(A_i) * op(B_i) + beta * C_i} for {@code i < batches}: A_i is {@code a}
     * shifted by {@code aShift(i)} elements, B_i likewise, C_i starts at {@code cOff + i * m * ldc}.
     * Products small enough for OpenBLAS to run on one thread are spread across cores whole; medium
     * ones (above that, but cut into bands of at least {@link #minBandRows} rows below it) are
     * spread as row bands, because OpenBLAS threading one medium product at a time spends more on
     * waking and joining its threads than on the product; large ones run in turn on all cores.
     */
    public static void multiplyBatched(int batches, int m, int n, int k, double alpha, Operand a, IntUnaryOperator aShift,
                                       Operand b, IntUnaryOperator bShift, double beta, Object c, int cOff, int ldc) {
        multiplyBatched(minBandRows(), batches, m, n, k, alpha, a, aShift, b, bShift, beta, c, cOff, ldc);
    }

    /** {@link #multiplyBatched} with {@code minBandRows} as the fewest rows of a band (the autotuner tries several). */
    static void multiplyBatched(int minBandRows, int batches, int m, int n, int k, double alpha, Operand a, IntUnaryOperator aShift,
                                Operand b, IntUnaryOperator bShift, double beta, Object c, int cOff, int ldc) {
        // no product, no element of C: nothing to do, and the operands may be empty arrays (a batch of
        // zero matrices; fuzzer seed 501265: a compiled bmm over [0, 1, 7] x [0, 7, 32] checked B for 224 elements)
        if (batches == 0 || m == 0 || n == 0) return;
        if (batches == 1) {
            multiplyOnAllCores(m, n, k, alpha, a.shift(aShift.applyAsInt(0)), b.shift(bShift.applyAsInt(0)), beta, c, cOff, ldc);
            return;
        }
        if (stacksIntoOneProduct(batches, m, a, aShift, bShift)) {
            // every product shares B and A's row blocks follow one another: one product of all the rows
            // (a linear layer on a [batch, seq, features] input), which the BLAS blocks and threads better
            multiplyOnAllCores(batches * m, n, k, alpha, a.shift(aShift.applyAsInt(0)), b.shift(bShift.applyAsInt(0)), beta, c, cOff, ldc);
            return;
        }
        long work = (long) m * n * Math.max(k, 1);
        int band = bandRows(threadsItself(c), m, n, k, minBandRows);
        int bands = (m + band - 1) / band;
        if (bands == 1 && threadsItself(c) && work > SINGLE_THREADED_WORK) {
            for (int i = 0; i < batches; i++) {
                multiply(m, n, k, alpha, a.shift(aShift.applyAsInt(i)), b.shift(bShift.applyAsInt(i)), beta, c, cOff + i * m * ldc, ldc);
            }
            return;
        }
        Parallel.forRange(batches * bands, (long) Math.min(band, m) * n * Math.max(k, 1), (lo, hi) -> {
            for (int item = lo; item < hi; item++) {
                int i = item / bands, row = item % bands * band, rows = Math.min(band, m - row);
                Operand ai = a.shift(aShift.applyAsInt(i));
                multiply(rows, n, k, alpha, ai.trans ? ai.shift(row) : ai.shift(row * ai.ld), b.shift(bShift.applyAsInt(i)),
                        beta, c, cOff + i * m * ldc + row * ldc, ldc);
            }
        });
    }

    /**
     * Whether a batch is one tall product: B the same for every product, and A row-major with
     * product {@code i}'s rows starting right after product {@code i-1}'s ({@code aShift(i) =
     * aShift(0) + i·m·lda}). C needs no check: {@code C_i} starts at {@code i·m·ldc} by contract.
     */
    static boolean stacksIntoOneProduct(int batches, int m, Operand a, IntUnaryOperator aShift, IntUnaryOperator bShift) {
        if (a.trans || m == 0) return false;
        int a0 = aShift.applyAsInt(0), b0 = bShift.applyAsInt(0);
        for (int i = 1; i < batches; i++) {
            if (bShift.applyAsInt(i) != b0 || aShift.applyAsInt(i) != a0 + (long) i * m * a.ld) return false;
        }
        return true;
    }

    /**
     * Rows per band of one product of a batch: {@code m} (whole products) when they are small
     * enough for one thread or when OpenBLAS should thread them; else the most rows that keep a
     * band at most {@link #SINGLE_THREADED_WORK}. {@code threaded}: {@link #threadsItself} of the product.
     */
    static int bandRows(boolean threaded, int m, int n, int k) { return bandRows(threaded, m, n, k, minBandRows()); }

    /** {@link #bandRows(boolean, int, int, int)} with {@code minBandRows} as the fewest rows of a band. */
    static int bandRows(boolean threaded, int m, int n, int k, int minBandRows) {
        long rowWork = (long) n * Math.max(k, 1);
        if (!threaded || rowWork * m <= SINGLE_THREADED_WORK) return Math.max(m, 1);
        long rows = SINGLE_THREADED_WORK / rowWork;
        return rows >= minBandRows ? (int) rows : Math.max(m, 1);
    }

    /** {@link #multiply} using every core: integer products (single-threaded kernels) are split into bands of rows. */
    public static void multiplyOnAllCores(int m, int n, int k, double alpha, Operand a, Operand b,
                                          double beta, Object c, int cOff, int ldc) {
        if (threadsItself(c)) {
            multiply(m, n, k, alpha, a, b, beta, c, cOff, ldc);
            return;
        }
        Parallel.forRange(m, (long) n * Math.max(k, 1), (lo, hi) -> {
            Operand band = a.trans ? a.shift(lo) : a.shift(lo * a.ld);
            multiply(hi - lo, n, k, alpha, band, b, beta, c, cOff + lo * ldc, ldc);
        });
    }
}
