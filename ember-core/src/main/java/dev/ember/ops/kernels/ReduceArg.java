package dev.ember.ops.kernels;

import dev.ember.tensor.Tensor;

/**
 * argmax / argmin over a {@link ReducePlan} built in logical order: the position of the first
 * largest (smallest) element, NaN counting as larger (smaller) than everything — ATen's rule, so a
 * row with a NaN answers the first NaN.
 */
public final class ReduceArg {
    private ReduceArg() {}

    /** One position per output, for a float32, float64 or int64 input. */
    public static long[] positions(Tensor in, ReducePlan plan, boolean max) {
        long[] out = new long[plan.outNumel()];
        Object data = in.storage().data();
        Parallel.forRange(out.length, plan.redNumel(), (lo, hi) -> {
            for (int o = lo; o < hi; o++) {
                out[o] = switch (data) {
                    case float[] a -> max ? argmax(a, plan, o) : argmin(a, plan, o);
                    case double[] a -> max ? argmax(a, plan, o) : argmin(a, plan, o);
                    case long[] a -> max ? argmax(a, plan, o) : argmin(a, plan, o);
                    default -> throw new IllegalStateException("arg-reductions take float, double or long arrays, got " + data.getClass().getSimpleName());
                };
            }
        });
        return out;
    }

    private static long argmax(float[] a, ReducePlan p, int o) {
        int len = p.rowLength(), stride = p.rowStride(), base = p.outputOffset(o);
        float best = a[base + p.rowOffset(0)];
        long at = 0;
        if (best != best) return 0;
        for (int r = 0, pos = 0; r < p.rows(); r++) {
            for (int j = 0, q = base + p.rowOffset(r); j < len; j++, q += stride, pos++) {
                float v = a[q];
                if (v > best) { best = v; at = pos; }
                else if (v != v) return pos;
            }
        }
        return at;
    }

    private static long argmin(float[] a, ReducePlan p, int o) {
        int len = p.rowLength(), stride = p.rowStride(), base = p.outputOffset(o);
        float best = a[base + p.rowOffset(0)];
        long at = 0;
        if (best != best) return 0;
        for (int r = 0, pos = 0; r < p.rows(); r++) {
            for (int j = 0, q = base + p.rowOffset(r); j < len; j++, q += stride, pos++) {
                float v = a[q];
                if (v < best) { best = v; at = pos; }
                else if (v != v) return pos;
            }
        }
        return at;
    }

    private static long argmax(double[] a, ReducePlan p, int o) {
        int len = p.rowLength(), stride = p.rowStride(), base = p.outputOffset(o);
        double best = a[base + p.rowOffset(0)];
        long at = 0;
        if (best != best) return 0;
        for (int r = 0, pos = 0; r < p.rows(); r++) {
            for (int j = 0, q = base + p.rowOffset(r); j < len; j++, q += stride, pos++) {
                double v = a[q];
                if (v > best) { best = v; at = pos; }
                else if (v != v) return pos;
            }
        }
        return at;
    }

    private static long argmin(double[] a, ReducePlan p, int o) {
        int len = p.rowLength(), stride = p.rowStride(), base = p.outputOffset(o);
        double best = a[base + p.rowOffset(0)];
        long at = 0;
        if (best != best) return 0;
        for (int r = 0, pos = 0; r < p.rows(); r++) {
            for (int j = 0, q = base + p.rowOffset(r); j < len; j++, q += stride, pos++) {
                double v = a[q];
                if (v < best) { best = v; at = pos; }
                else if (v != v) return pos;
            }
        }
        return at;
    }

    private static long argmax(long[] a, ReducePlan p, int o) {
        int len = p.rowLength(), stride = p.rowStride(), base = p.outputOffset(o);
        long best = Long.MIN_VALUE, at = 0;
        for (int r = 0, pos = 0; r < p.rows(); r++) {
            for (int j = 0, q = base + p.rowOffset(r); j < len; j++, q += stride, pos++) {
                if (a[q] > best || pos == 0) { best = a[q]; at = pos; }
            }
        }
        return at;
    }

    private static long argmin(long[] a, ReducePlan p, int o) {
        int len = p.rowLength(), stride = p.rowStride(), base = p.outputOffset(o);
        long best = Long.MAX_VALUE, at = 0;
        for (int r = 0, pos = 0; r < p.rows(); r++) {
            for (int j = 0, q = base + p.rowOffset(r); j < len; j++, q += stride, pos++) {
                if (a[q] < best || pos == 0) { best = a[q]; at = pos; }
            }
        }
        return at;
    }
}
