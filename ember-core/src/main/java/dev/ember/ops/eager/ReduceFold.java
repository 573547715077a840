package dev.ember.ops.eager;

import dev.ember.kernels.Parallel;
import dev.ember.kernels.ReduceColumns;
import dev.ember.kernels.ReduceRows;
import dev.ember.tensor.Tensor;

import java.util.Arrays;

/**
 * Runs a fold (sum, max, min, squared deviations) over a {@link ReducePlan}, one accumulator per
 * output, on both cores when the input is large:
 * <ul>
 *   <li>column-wise when the plan has {@link ReducePlan#columns() columns}: whole input rows are
 *       folded into a run of adjacent accumulators, each task owning a block of columns;</li>
 *   <li>row-wise otherwise, tasks owning ranges of outputs; a single output over a large input
 *       (a full reduction) is cut into pieces folded in parallel and merged in order.</li>
 * </ul>
 * Floating inputs (float32, float64) fold into doubles; integral inputs must be int64 (callers
 * widen int32 and bool first) and fold into longs, exactly, wrapping like ATen's int64.
 */
public final class ReduceFold {
    /** The folds; {@link #SQUARED_DEVIATIONS} sums {@code (x - mean)^2} around a given mean per output. */
    public enum Op { SUM, MAX, MIN, SQUARED_DEVIATIONS }

    private static final int SPLIT_CHUNK = 1 << 16;
    private static final int MAX_COLUMN_CHUNK = 1024;

    private ReduceFold() {}

    /**
     * Folds a float32 or float64 tensor; returns one double per output.
     *
     * @param means the mean of each output's elements for {@link Op#SQUARED_DEVIATIONS}, else null
     */
    public static double[] floating(Tensor in, ReducePlan plan, Op op, double[] means) {
        DoubleFolder f = new DoubleFolder(op, in.storage().data(), plan.outNumel(), means);
        run(plan, f);
        return f.acc;
    }

    /** Folds an int64 tensor (SUM, MAX or MIN); returns one long per output. */
    public static long[] integral(Tensor in, ReducePlan plan, Op op) {
        if (op == Op.SQUARED_DEVIATIONS) throw new IllegalArgumentException("squared deviations need a floating input");
        LongFolder f = new LongFolder(op, in.storage().longs(), plan.outNumel());
        run(plan, f);
        return f.acc;
    }

    private static void run(ReducePlan plan, Folder f) {
        int outs = plan.outNumel();
        if (outs == 0 || plan.redNumel() == 0) return;
        int rows = plan.rows(), len = plan.rowLength(), stride = plan.rowStride();
        if (plan.columns() > 0) {
            int k = plan.columns(), chunk = columnChunk(k), chunks = (k + chunk - 1) / chunk;
            Parallel.forRange(outs / k * chunks, (long) plan.redNumel() * chunk, (lo, hi) -> {
                for (int t = lo; t < hi; t++) {
                    int first = t / chunks * k + t % chunks * chunk, n = Math.min(chunk, k - t % chunks * chunk);
                    int base = plan.outputOffset(first);
                    for (int r = 0; r < rows; r++) {
                        for (int j = 0, off = base + plan.rowOffset(r); j < len; j++, off += stride) f.columns(first, off, n);
                    }
                }
            });
        } else if (outs == 1 && plan.redNumel() >= 2 * Parallel.GRAIN) {
            int perRow = (len + SPLIT_CHUNK - 1) / SPLIT_CHUNK;
            Folder pieces = f.fresh(rows * perRow);
            int base = plan.outputOffset(0);
            Parallel.forRange(rows * perRow, Math.min(len, SPLIT_CHUNK), (lo, hi) -> {
                for (int t = lo; t < hi; t++) {
                    int start = t % perRow * SPLIT_CHUNK;
                    pieces.row(t, base + plan.rowOffset(t / perRow) + start * stride, Math.min(SPLIT_CHUNK, len - start), stride);
                }
            });
            f.merge(0, pieces);
        } else {
            Parallel.forRange(outs, plan.redNumel(), (lo, hi) -> {
                for (int o = lo; o < hi; o++) {
                    int base = plan.outputOffset(o);
                    for (int r = 0; r < rows; r++) f.row(o, base + plan.rowOffset(r), len, stride);
                }
            });
        }
    }

    /** Columns per task: blocks small enough for L1 and numerous enough to share between cores. */
    private static int columnChunk(int columns) {
        int eighth = ((columns + 7) / 8 + 15) / 16 * 16;
        return Math.min(columns, Math.min(MAX_COLUMN_CHUNK, Math.max(16, eighth)));
    }

    /** Accumulators for one op over one input array. */
    private interface Folder {
        /** {@code acc[slot] ⊕= fold(row)} */
        void row(int slot, int off, int n, int stride);

        /** {@code acc[slot + k] ⊕= a[off + k]} for {@code k < n} */
        void columns(int slot, int off, int n);

        /** The same fold into {@code count} fresh accumulators, all for the output at slot 0's mean. */
        Folder fresh(int count);

        /** {@code acc[slot] ⊕= pieces.acc[0] ⊕ pieces.acc[1] ⊕ …} */
        void merge(int slot, Folder pieces);
    }

    private static final class DoubleFolder implements Folder {
        final Op op;
        final Object data;
        final float[] floats;     // one of floats, doubles is the input
        final double[] doubles;
        final double[] acc;
        final double[] means;

        DoubleFolder(Op op, Object data, int count, double[] means) {
            if (op == Op.SQUARED_DEVIATIONS && means == null) throw new IllegalArgumentException("squared deviations need means");
            if (!(data instanceof float[] || data instanceof double[])) {
                throw new IllegalArgumentException("not a floating array: " + data.getClass().getSimpleName());
            }
            this.op = op;
            this.data = data;
            this.floats = data instanceof float[] f ? f : null;
            this.doubles = data instanceof double[] d ? d : null;
            this.means = means;
            this.acc = new double[count];
            if (op == Op.MAX) Arrays.fill(acc, Double.NEGATIVE_INFINITY);
            if (op == Op.MIN) Arrays.fill(acc, Double.POSITIVE_INFINITY);
        }

        private double combine(double a, double b) {
            return switch (op) {
                case SUM, SQUARED_DEVIATIONS -> a + b;
                case MAX -> Math.max(a, b);
                case MIN -> Math.min(a, b);
            };
        }

        @Override
        public void row(int slot, int off, int n, int stride) {
            double v;
            if (floats != null) {
                v = switch (op) {
                    case SUM -> ReduceRows.sum(floats, off, n, stride);
                    case MAX -> ReduceRows.max(floats, off, n, stride);
                    case MIN -> ReduceRows.min(floats, off, n, stride);
                    case SQUARED_DEVIATIONS -> ReduceRows.squaredDeviations(floats, off, n, stride, means[slot]);
                };
            } else {
                v = switch (op) {
                    case SUM -> ReduceRows.sum(doubles, off, n, stride);
                    case MAX -> ReduceRows.max(doubles, off, n, stride);
                    case MIN -> ReduceRows.min(doubles, off, n, stride);
                    case SQUARED_DEVIATIONS -> ReduceRows.squaredDeviations(doubles, off, n, stride, means[slot]);
                };
            }
            acc[slot] = combine(acc[slot], v);
        }

        @Override
        public void columns(int slot, int off, int n) {
            if (floats != null) {
                switch (op) {
                    case SUM -> ReduceColumns.add(acc, slot, floats, off, n);
                    case MAX -> ReduceColumns.max(acc, slot, floats, off, n);
                    case MIN -> ReduceColumns.min(acc, slot, floats, off, n);
                    case SQUARED_DEVIATIONS -> ReduceColumns.squaredDeviations(acc, means, slot, floats, off, n);
                }
            } else {
                switch (op) {
                    case SUM -> ReduceColumns.add(acc, slot, doubles, off, n);
                    case MAX -> ReduceColumns.max(acc, slot, doubles, off, n);
                    case MIN -> ReduceColumns.min(acc, slot, doubles, off, n);
                    case SQUARED_DEVIATIONS -> ReduceColumns.squaredDeviations(acc, means, slot, doubles, off, n);
                }
            }
        }

        @Override
        public Folder fresh(int count) {
            double[] m = null;
            if (means != null) {
                m = new double[count];
                Arrays.fill(m, means[0]);
            }
            return new DoubleFolder(op, data, count, m);
        }

        @Override
        public void merge(int slot, Folder pieces) {
            for (double v : ((DoubleFolder) pieces).acc) acc[slot] = combine(acc[slot], v);
        }
    }

    private static final class LongFolder implements Folder {
        final Op op;
        final long[] data;
        final long[] acc;

        LongFolder(Op op, long[] data, int count) {
            this.op = op;
            this.data = data;
            this.acc = new long[count];
            if (op == Op.MAX) Arrays.fill(acc, Long.MIN_VALUE);
            if (op == Op.MIN) Arrays.fill(acc, Long.MAX_VALUE);
        }

        private long combine(long a, long b) {
            return switch (op) {
                case SUM -> a + b;
                case MAX -> Math.max(a, b);
                case MIN -> Math.min(a, b);
                case SQUARED_DEVIATIONS -> throw new IllegalStateException();
            };
        }

        @Override
        public void row(int slot, int off, int n, int stride) {
            long v = switch (op) {
                case SUM -> ReduceRows.sum(data, off, n, stride);
                case MAX -> ReduceRows.max(data, off, n, stride);
                case MIN -> ReduceRows.min(data, off, n, stride);
                case SQUARED_DEVIATIONS -> throw new IllegalStateException();
            };
            acc[slot] = combine(acc[slot], v);
        }

        @Override
        public void columns(int slot, int off, int n) {
            switch (op) {
                case SUM -> ReduceColumns.add(acc, slot, data, off, n);
                case MAX -> ReduceColumns.max(acc, slot, data, off, n);
                case MIN -> ReduceColumns.min(acc, slot, data, off, n);
                case SQUARED_DEVIATIONS -> throw new IllegalStateException();
            }
        }

        @Override
        public Folder fresh(int count) { return new LongFolder(op, data, count); }

        @Override
        public void merge(int slot, Folder pieces) {
            for (long v : ((LongFolder) pieces).acc) acc[slot] = combine(acc[slot], v);
        }
    }
}
