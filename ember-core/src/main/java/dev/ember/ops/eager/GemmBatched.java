package dev.ember.ops.eager;

import dev.ember.kernels.Gemm;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;

/**
 * Batched matrix products with broadcast batch dimensions, the engine of mm, bmm, addmm, matmul
 * and linear. Operands are read in place when BLAS can (row-major or transposed last two
 * dimensions, any batch strides) and copied to contiguous only otherwise.
 *
 * <p>When the right operand is the same matrix for every batch (a 3-d activation times a weight),
 * the whole batch is one tall GEMM, as ATen's matmul folds it: in place when the left operand's
 * batches lie back to back, else from a contiguous copy. Folding always (not only when it is
 * free) keeps the GEMM calls those of a compiled graph, whose matmul decomposition reshapes and
 * calls mm: a GEMM may round a row differently by its position in the block, so a batched call
 * and a folded one can differ in the last bit for equal rows (fuzzer seed 5006633: an argmax
 * over equal batches picked another index). Otherwise the batches go to
 * {@link Gemm#multiplyBatched}, which decides how they share the cores.
 */
public final class GemmBatched {
    private GemmBatched() {}

    /**
     * {@code out[i] = alpha * a[i] @ b[i] + beta * out[i]} for every index {@code i} of out's batch
     * dimensions. {@code a} is {@code [..., m, k]}, {@code b} is {@code [..., k, n]}, their batch
     * dimensions broadcast to out's; {@code out} is contiguous {@code [..., m, n]} and, unless
     * {@code beta == 0}, already holds the addend.
     */
    public static void multiply(Tensor a, Tensor b, Tensor out, double alpha, double beta) {
        if (out.numel() == 0) return;
        int rank = out.dim() - 2;
        int[] outShape = out.shape();
        int[] batch = Arrays.copyOf(outShape, rank);
        int m = outShape[rank], n = outShape[rank + 1], k = a.size(-1);
        Tensor ra = readable(a), rb = readable(b);
        Gemm.Operand opA = operand(ra), opB = operand(rb);
        int[] aStrides = batchStrides(ra, batch), bStrides = batchStrides(rb, batch);
        int batches = Shapes.numel(batch);
        Object c = out.storage().data();
        int cBase = out.storageOffset();

        if (isBroadcast(bStrides, batch)) {
            int ld = opA.trans() ? -1 : foldedLeadingDimension(batch, aStrides, m, opA.ld(), k);
            if (ld > 0 || batches > 1) {
                Gemm.Operand rows = ld > 0 ? new Gemm.Operand(opA.data(), opA.offset(), ld, false) : contiguousRows(a, batch, m, k);
                Gemm.multiplyOnAllCores(batches * m, n, k, alpha, rows, opB, beta, c, cBase, n);
                return;
            }
        }
        Gemm.multiplyBatched(batches, m, n, k, alpha, opA, i -> batchOffset(i, batch, aStrides), opB, i -> batchOffset(i, batch, bStrides),
                beta, c, cBase, n);
    }

    /**
     * A strided batch, as generated code calls it: {@code C_i = op(A_i) * op(B_i)} with A_i at
     * {@code aOff + i * aStride}, B_i at {@code bOff + i * bStride}, C_i at {@code cOff + i * m * ldc}
     * ({@code a}, {@code b}, {@code c} are float[] or double[]; their type picks the kernel).
     */
    public static void strided(boolean transA, boolean transB, int batches, int m, int n, int k,
                               Object a, int aOff, int aStride, int lda, Object b, int bOff, int bStride, int ldb, Object c, int cOff, int ldc) {
        Gemm.multiplyBatched(batches, m, n, k, 1, new Gemm.Operand(a, aOff, lda, transA), i -> i * aStride,
                new Gemm.Operand(b, bOff, ldb, transB), i -> i * bStride, 0, c, cOff, ldc);
    }

    /** {@code a} broadcast to {@code [batch..., m, k]} and copied row-major: the rows of one tall GEMM. */
    private static Gemm.Operand contiguousRows(Tensor a, int[] batch, int m, int k) {
        int[] shape = Arrays.copyOf(batch, batch.length + 2);
        shape[batch.length] = m;
        shape[batch.length + 1] = k;
        Tensor rows = Tensor.allocate(TensorMeta.contiguous(a.dtype(), shape));
        Copy.copy(a.expand(shape), rows);
        return new Gemm.Operand(rows.storage().data(), 0, Math.max(k, 1), false);
    }

    /** The element offset of batch {@code i} (row-major over {@code batch}) along {@code strides}. */
    private static int batchOffset(int i, int[] batch, int[] strides) {
        int off = 0;
        for (int d = batch.length - 1, rem = i; d >= 0; d--) {
            off += rem % batch[d] * strides[d];
            rem /= batch[d];
        }
        return off;
    }

    /** {@code t} itself when BLAS can read its last two dimensions in place, else a contiguous copy. */
    private static Tensor readable(Tensor t) {
        if (operand(t) != null) return t;
        Tensor copy = Tensor.allocate(TensorMeta.contiguous(t.dtype(), t.shape()));
        Copy.copy(t, copy);
        return copy;
    }

    private static Gemm.Operand operand(Tensor t) {
        return Gemm.operand(t.storage().data(), t.storageOffset(), t.size(-2), t.size(-1), t.stride(-2), t.stride(-1));
    }

    /** The strides of {@code t}'s batch dimensions broadcast to {@code batch} (0 along broadcast ones). */
    private static int[] batchStrides(Tensor t, int[] batch) {
        int r = t.dim() - 2;
        return Shapes.broadcastStrides(Arrays.copyOf(t.shape(), r), Arrays.copyOf(t.strides(), r), batch);
    }

    /** True when the operand is the same matrix for every batch index. */
    private static boolean isBroadcast(int[] strides, int[] batch) {
        for (int d = 0; d < batch.length; d++) if (batch[d] > 1 && strides[d] != 0) return false;
        return true;
    }

    /**
     * The row stride of A's batches and rows merged into one dimension, or -1 when they are not
     * evenly spaced (then the batch can't be one GEMM). Size-1 dimensions don't constrain.
     */
    private static int foldedLeadingDimension(int[] batch, int[] batchStrides, int m, int ld, int k) {
        int[] sizes = Arrays.copyOf(batch, batch.length + 1), strides = Arrays.copyOf(batchStrides, batch.length + 1);
        sizes[batch.length] = m;
        strides[batch.length] = ld;
        int innermost = -1, previous = -1;
        for (int d = sizes.length - 1; d >= 0; d--) {
            if (sizes[d] == 1) continue;
            if (previous >= 0 && (long) strides[d] != (long) strides[previous] * sizes[previous]) return -1;
            if (innermost < 0) innermost = d;
            previous = d;
        }
        int folded = innermost < 0 ? ld : strides[innermost];
        return folded >= Math.max(k, 1) ? folded : -1;
    }
}
