package dev.ember.ops.kernels;

import dev.ember.tensor.DType;

/**
 * {@code C = alpha * op(A) * op(B) + beta * C} on storage arrays of any matmul dtype: OpenBLAS
 * (through {@link Blas}) for float32/float64, {@link JavaGemm}'s integer kernels for int32/int64.
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

    /** {@code C[m x n] = alpha * A[m x k] * B[k x n] + beta * C}; {@code beta == 0} ignores C's old contents (NaN included). */
    public static void multiply(DType dtype, int m, int n, int k, double alpha, Operand a, Operand b,
                                double beta, Object c, int cOff, int ldc) {
        switch (dtype) {
            case FLOAT32 -> Blas.sgemm(a.trans, b.trans, m, n, k, (float) alpha, (float[]) a.data, a.offset, a.ld,
                    (float[]) b.data, b.offset, b.ld, (float) beta, (float[]) c, cOff, ldc);
            case FLOAT64 -> Blas.dgemm(a.trans, b.trans, m, n, k, alpha, (double[]) a.data, a.offset, a.ld,
                    (double[]) b.data, b.offset, b.ld, beta, (double[]) c, cOff, ldc);
            case INT32 -> JavaGemm.igemm(a.trans, b.trans, m, n, k, (int) (long) alpha, (int[]) a.data, a.offset, a.ld,
                    (int[]) b.data, b.offset, b.ld, (int) (long) beta, (int[]) c, cOff, ldc);
            case INT64 -> JavaGemm.lgemm(a.trans, b.trans, m, n, k, (long) alpha, (long[]) a.data, a.offset, a.ld,
                    (long[]) b.data, b.offset, b.ld, (long) beta, (long[]) c, cOff, ldc);
            case BOOL -> throw new IllegalArgumentException("GEMM is not defined for bool");
        }
    }

    /** Whether {@link #multiply} spreads one product across cores by itself (OpenBLAS, or JavaGemm's float kernels). */
    public static boolean threadsItself(DType dtype) { return dtype.isFloatingPoint(); }

    /** {@link #multiply} using every core: integer products (single-threaded kernels) are split into bands of rows. */
    public static void multiplyOnAllCores(DType dtype, int m, int n, int k, double alpha, Operand a, Operand b,
                                          double beta, Object c, int cOff, int ldc) {
        if (threadsItself(dtype)) {
            multiply(dtype, m, n, k, alpha, a, b, beta, c, cOff, ldc);
            return;
        }
        Parallel.forRange(m, (long) n * Math.max(k, 1), (lo, hi) -> {
            Operand band = a.trans ? a.shift(lo) : a.shift(lo * a.ld);
            multiply(dtype, hi - lo, n, k, alpha, band, b, beta, c, cOff + lo * ldc, ldc);
        });
    }
}
