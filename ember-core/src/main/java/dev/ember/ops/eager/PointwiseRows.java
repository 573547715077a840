package dev.ember.ops.eager;

import dev.ember.kernels.Parallel;
import dev.ember.kernels.StridedLoop;
import dev.ember.tensor.Shapes;
import dev.ember.tuning.Machine;
import dev.ember.tensor.Tensor;

/**
 * An output and its inputs (broadcast to the output's shape) walked as rows: a {@link StridedLoop}
 * that also splits long rows across cores, so a contiguous tensor — a single row after
 * coalescing — still uses every core.
 */
final class PointwiseRows {
    private static final int THREADS = Machine.current().threads();

    private final StridedLoop loop;
    private final int[] innerStrides;

    /** Operand 0 is {@code out}, then {@code inputs} in order. */
    PointwiseRows(Tensor out, Tensor... inputs) {
        int[] shape = out.shape();
        int[][] strides = new int[inputs.length + 1][];
        int[] offsets = new int[inputs.length + 1];
        strides[0] = out.strides();
        offsets[0] = out.storageOffset();
        for (int k = 0; k < inputs.length; k++) {
            strides[k + 1] = Shapes.broadcastStrides(inputs[k].shape(), inputs[k].strides(), shape);
            offsets[k + 1] = inputs[k].storageOffset();
        }
        loop = new StridedLoop(shape, strides, offsets);
        innerStrides = new int[strides.length];
        for (int k = 0; k < strides.length; k++) innerStrides[k] = loop.innerStride(k);
    }

    /** Operand {@code k}'s stride along a row (0 for a broadcast operand). */
    int stride(int k) { return innerStrides[k]; }

    /**
     * Runs {@code row} over every row, or over pieces of rows: the elements are cut into equal
     * spans, one per task, so both many short rows and a few long ones spread over the cores.
     * {@code cost} is the work per element relative to an add; cheap ops fork only for large
     * tensors, since waking a worker costs as much as adding tens of thousands of floats.
     */
    void run(StridedLoop.Row row, int cost) {
        int rows = loop.rows(), len = loop.rowLength();
        if (rows == 0 || len == 0) return;
        long total = (long) rows * len;
        int pieces = (int) Math.min(total * cost / WORK_PER_PIECE, 4L * THREADS);
        if (pieces < 2) {
            loop.forRows(0, rows, row);
            return;
        }
        Parallel.forRange(pieces, Parallel.GRAIN, (lo, hi) -> span(total * lo / pieces, total * hi / pieces, len, row));
    }

    /** Work (in adds) below which a task is not worth forking. */
    private static final long WORK_PER_PIECE = 8L * Parallel.GRAIN;

    /** Runs {@code row} over the flat elements [from, to), trimming the first and last rows. */
    private void span(long from, long to, int len, StridedLoop.Row row) {
        if (from >= to) return;
        int firstRow = (int) (from / len), lastRow = (int) ((to - 1) / len);
        int[] shifted = new int[innerStrides.length];
        int[] r = {firstRow};
        loop.forRows(firstRow, lastRow + 1, (off, n) -> {
            long rowStart = (long) r[0]++ * len;
            int start = (int) Math.max(0, from - rowStart), end = (int) Math.min(n, to - rowStart);
            if (start == 0 && end == n) {
                row.run(off, n);
                return;
            }
            for (int k = 0; k < shifted.length; k++) shifted[k] = off[k] + start * innerStrides[k];
            row.run(shifted, end - start);
        });
    }
}
