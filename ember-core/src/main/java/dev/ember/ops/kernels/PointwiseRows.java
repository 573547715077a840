package dev.ember.ops.kernels;

import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

/**
 * An output and its inputs (broadcast to the output's shape) walked as rows: a {@link StridedLoop}
 * that also splits long rows across cores, so a contiguous tensor — a single row after
 * coalescing — still uses every core.
 */
final class PointwiseRows {
    private static final int THREADS = Math.max(1, Runtime.getRuntime().availableProcessors());

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

    /** Runs {@code row} over every row (or piece of a long row), in parallel when the work is large. */
    void run(StridedLoop.Row row) {
        int rows = loop.rows(), len = loop.rowLength();
        if (rows == 0 || len == 0) return;
        long pieces = Math.min((long) rows * len / Parallel.GRAIN, 4L * THREADS);
        if (pieces <= rows) {
            loop.forEachRow(row);
            return;
        }
        int parts = (int) ((pieces + rows - 1) / rows);
        Parallel.forRange(rows * parts, len / parts, (lo, hi) -> {
            for (int t = lo; t < hi; t++) {
                int part = t % parts;
                int start = (int) ((long) len * part / parts), end = (int) ((long) len * (part + 1) / parts);
                loop.forRows(t / parts, t / parts + 1, (off, n) -> {
                    int[] shifted = new int[off.length];
                    for (int k = 0; k < off.length; k++) shifted[k] = off[k] + start * innerStrides[k];
                    row.run(shifted, end - start);
                });
            }
        });
    }
}
