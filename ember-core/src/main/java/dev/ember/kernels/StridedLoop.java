package dev.ember.kernels;

/**
 * Walks several operands of one broadcast shape at once, each with its own strides and offset:
 * dimensions that are contiguous for every operand are merged, the innermost dimension is handed
 * to a row function as (start offsets, count), and rows are split across cores.
 *
 * <p>Row functions read {@link #innerStride(int)} for operand strides along the row; when every
 * operand is contiguous the whole tensor is one row with all strides 1.
 */
public final class StridedLoop {
    private final int[] shape;       // coalesced; the last dimension is the row
    private final int[][] strides;   // [operand][dim]
    private final int[] base;        // operand start offsets
    private final int rows;

    /** A row: operands' start offsets and the row's element count. */
    @FunctionalInterface
    public interface Row { void run(int[] offsets, int count); }

    public StridedLoop(int[] shape, int[][] operandStrides, int[] operandOffsets) {
        int ops = operandStrides.length;
        // drop size-1 dims, then merge dim d into d+1 when all operands walk them as one
        int[] s = new int[Math.max(shape.length, 1)];
        int[][] st = new int[ops][Math.max(shape.length, 1)];
        int n = 0;
        for (int d = 0; d < shape.length; d++) {
            if (shape[d] == 1) continue;
            s[n] = shape[d];
            for (int k = 0; k < ops; k++) st[k][n] = operandStrides[k][d];
            n++;
        }
        int m = 0;
        for (int d = 0; d < n; d++) {
            if (m > 0) {
                boolean merge = true;
                for (int k = 0; k < ops; k++) {
                    if (st[k][m - 1] != (long) st[k][d] * s[d]) { merge = false; break; }
                }
                if (merge) {
                    s[m - 1] *= s[d];
                    for (int k = 0; k < ops; k++) st[k][m - 1] = st[k][d];
                    continue;
                }
            }
            s[m] = s[d];
            for (int k = 0; k < ops; k++) st[k][m] = st[k][d];
            m++;
        }
        if (m == 0) { // a scalar, or all size-1 dims
            s[0] = 1;
            for (int k = 0; k < ops; k++) st[k][0] = 1;
            m = 1;
        }
        this.shape = java.util.Arrays.copyOf(s, m);
        this.strides = new int[ops][];
        for (int k = 0; k < ops; k++) strides[k] = java.util.Arrays.copyOf(st[k], m);
        this.base = operandOffsets.clone();
        int r = 1;
        for (int d = 0; d < m - 1; d++) r *= this.shape[d];
        for (int v : this.shape) if (v == 0) r = 0;
        this.rows = r;
    }

    public int rowLength() { return shape[shape.length - 1]; }

    public int rows() { return rows; }

    public int innerStride(int operand) { return strides[operand][shape.length - 1]; }

    /** A tile of the last two dimensions: operands' offsets at its first element, its rows (along the dimension before the row) and its columns (along the row). */
    @FunctionalInterface
    public interface Tile { void run(int[] offsets, int rows, int columns); }

    /** The number of dimensions after merging; the last is the row. */
    public int dims() { return shape.length; }

    /** Operand {@code operand}'s stride along the dimension before the row (0 when there is none). */
    public int outerStride(int operand) { return shape.length < 2 ? 0 : strides[operand][shape.length - 2]; }

    /**
     * Runs {@code tile} over the last two dimensions in tiles of at most {@code size x size}, for
     * every index of the dimensions before them, in parallel when the work is large. For a
     * transposing walk (one operand stride 1 along the row, another along the dimension before),
     * where a row at a time reads one element per cache line of the other operand, a tile keeps
     * both operands' lines in L1. Needs {@link #dims()} of at least 2.
     */
    public void forEachTile(int size, Tile tile) {
        int m = shape.length;
        if (m < 2) throw new IllegalStateException("forEachTile needs two dimensions, the walk has " + m);
        int rowsOfTiles = (shape[m - 2] + size - 1) / size, outer = rows / Math.max(1, shape[m - 2]);
        if (rows == 0 || rowLength() == 0) return;
        Parallel.forRange(outer * rowsOfTiles, (long) size * rowLength(), (lo, hi) -> {
            int ops = base.length;
            int[] off = new int[ops];
            for (int item = lo; item < hi; item++) {
                int o = item / rowsOfTiles, i0 = item % rowsOfTiles * size;
                for (int k = 0; k < ops; k++) off[k] = base[k] + i0 * strides[k][m - 2];
                for (int d = m - 3, rem = o; d >= 0; d--) {
                    int idx = rem % shape[d];
                    rem /= shape[d];
                    for (int k = 0; k < ops; k++) off[k] += idx * strides[k][d];
                }
                int tileRows = Math.min(size, shape[m - 2] - i0);
                int[] at = new int[ops];
                for (int j0 = 0; j0 < shape[m - 1]; j0 += size) {
                    for (int k = 0; k < ops; k++) at[k] = off[k] + j0 * strides[k][m - 1];
                    tile.run(at, tileRows, Math.min(size, shape[m - 1] - j0));
                }
            }
        });
    }

    /** Runs {@code row} over all rows, in parallel when the work is large. */
    public void forEachRow(Row row) {
        if (rows == 0 || rowLength() == 0) return;
        Parallel.forRange(rows, rowLength(), (lo, hi) -> forRows(lo, hi, row));
    }

    /** Runs {@code row} over rows [lo, hi) on the calling thread. */
    public void forRows(int lo, int hi, Row row) {
        int ops = base.length, outer = shape.length - 1;
        int[] idx = new int[Math.max(outer, 1)];
        int[] off = base.clone();
        int rem = lo;
        for (int d = outer - 1; d >= 0; d--) {
            idx[d] = rem % shape[d];
            rem /= shape[d];
            for (int k = 0; k < ops; k++) off[k] += idx[d] * strides[k][d];
        }
        int len = rowLength();
        for (int r = lo; r < hi; r++) {
            row.run(off, len);
            for (int d = outer - 1; d >= 0; d--) {
                idx[d]++;
                for (int k = 0; k < ops; k++) off[k] += strides[k][d];
                if (idx[d] < shape[d]) break;
                for (int k = 0; k < ops; k++) off[k] -= shape[d] * strides[k][d];
                idx[d] = 0;
            }
        }
    }
}
