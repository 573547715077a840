package dev.ember.ops.eager;

import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Where the elements folded into each output of a reduction lie in the input's storage.
 *
 * <p>Kept dimensions (in output order) and reduced dimensions are each merged where their strides
 * allow. The reduced elements of one output are then {@link #rows()} strided rows of
 * {@link #rowLength()} elements ({@link #rowStride()} apart), row {@code r} starting at
 * {@code outputOffset(o) + rowOffset(r)}. Unless the caller needs the logical order (arg-reductions,
 * whose result is a position), reduced dimensions are sorted by stride so that the innermost row
 * walks memory most densely — a reduction over a transposed tensor still gets stride-1 rows.
 */
public final class ReducePlan {
    /** Column-wise folding pays off once a contiguous run of outputs is at least this long. */
    private static final int MIN_COLUMNS = 16;

    private final int outNumel;
    private final int redNumel;
    private final int[] outputOffsets;
    private final int[] rowOffsets;
    private final int rowLength;
    private final int rowStride;
    private final int columns;

    private ReducePlan(int outNumel, int redNumel, int[] outputOffsets, int[] rowOffsets, int rowLength, int rowStride, int columns) {
        this.outNumel = outNumel;
        this.redNumel = redNumel;
        this.outputOffsets = outputOffsets;
        this.rowOffsets = rowOffsets;
        this.rowLength = rowLength;
        this.rowStride = rowStride;
        this.columns = columns;
    }

    /**
     * The plan reducing the dimensions of {@code in} flagged in {@code reduced}.
     *
     * @param logicalOrder keep reduced dimensions in row-major order, so that the {@code j}-th element
     *                     of row {@code r} is reduced element {@code r * rowLength() + j}
     */
    public static ReducePlan of(Tensor in, boolean[] reduced, boolean logicalOrder) {
        int[] shape = in.shape(), strides = in.strides();
        List<int[]> kept = new ArrayList<>(), red = new ArrayList<>();   // {size, stride}
        long outNumel = 1, redNumel = 1;
        for (int d = 0; d < shape.length; d++) {
            if (reduced[d]) redNumel *= shape[d];
            else outNumel *= shape[d];
            if (shape[d] != 1) (reduced[d] ? red : kept).add(new int[] {shape[d], strides[d]});
        }
        if (!logicalOrder) red.sort(Comparator.comparingInt((int[] ds) -> ds[1]).reversed());
        kept = coalesce(kept);
        red = coalesce(red);

        int[] outputOffsets = offsets(kept, (int) outNumel, in.storageOffset());
        int rowLength = 1, rowStride = 1;
        if (!red.isEmpty()) {
            int[] inner = red.removeLast();
            rowLength = inner[0];
            rowStride = inner[1];
        }
        int[] rowOffsets = redNumel == 0 ? new int[0] : offsets(red, (int) (redNumel / rowLength), 0);

        int columns = 0;
        if (!kept.isEmpty() && kept.getLast()[1] == 1 && kept.getLast()[0] >= MIN_COLUMNS && (rowStride != 1 || rowLength == 1)) {
            columns = kept.getLast()[0];
        }
        return new ReducePlan((int) outNumel, (int) redNumel, outputOffsets, rowOffsets, rowLength, rowStride, columns);
    }

    /** Merges neighbouring {size, stride} dims that walk memory as one (row-major order kept). */
    private static List<int[]> coalesce(List<int[]> dims) {
        List<int[]> out = new ArrayList<>();
        for (int[] d : dims) {
            if (!out.isEmpty() && out.getLast()[1] == (long) d[1] * d[0]) {
                int[] prev = out.getLast();
                out.set(out.size() - 1, new int[] {prev[0] * d[0], d[1]});
            } else {
                out.add(d.clone());
            }
        }
        return out;
    }

    /** The storage offsets of every index of {@code dims} in row-major order, starting at {@code base}. */
    private static int[] offsets(List<int[]> dims, int count, int base) {
        int[] out = new int[count];
        if (count == 0) return out;
        int n = dims.size();
        int[] idx = new int[n];
        int off = base;
        for (int i = 0; i < count; i++) {
            out[i] = off;
            for (int d = n - 1; d >= 0; d--) {
                int[] dim = dims.get(d);
                off += dim[1];
                if (++idx[d] < dim[0]) break;
                off -= dim[0] * dim[1];
                idx[d] = 0;
            }
        }
        return out;
    }

    /** Number of output elements. */
    public int outNumel() { return outNumel; }

    /** Number of input elements folded into each output. */
    public int redNumel() { return redNumel; }

    /** Storage offset of the first reduced element of output {@code o}. */
    public int outputOffset(int o) { return outputOffsets[o]; }

    /** Number of strided rows the reduced elements of one output form. */
    public int rows() { return rowOffsets.length; }

    /** Offset of reduced row {@code r}, relative to {@link #outputOffset}. */
    public int rowOffset(int r) { return rowOffsets[r]; }

    public int rowLength() { return rowLength; }

    public int rowStride() { return rowStride; }

    /**
     * When positive, outputs come in runs of this many whose inputs are adjacent (stride 1) and no
     * reduced dimension has stride 1: whole input rows can then be folded into a run of accumulators
     * at once (a column-wise reduction, e.g. summing a matrix over dim 0). Otherwise 0.
     */
    public int columns() { return columns; }
}
