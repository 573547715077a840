package dev.ember.ops.eager;

import dev.ember.kernels.Parallel;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;

/**
 * Running sums and products along one dimension, as ATen's CPU cumsum and cumprod: the accumulator
 * is double for floating dtypes (float32 results round only when each partial result is stored)
 * and int64 for integers (stored values wrap to int32 when that is the dtype); bools accumulate as
 * truth values (or for a sum, and for a product).
 */
public final class Scan {
    private Scan() {}

    /** {@code out[.., j, ..] = x[.., 0, ..] + … + x[.., j, ..]}; x and out contiguous, of one dtype and shape. */
    public static void cumsum(Tensor x, Tensor out, int dim) { scan(x, out, dim, false); }

    /** {@code out[.., j, ..] = x[.., 0, ..] · … · x[.., j, ..]}; x and out contiguous, of one dtype and shape. */
    public static void cumprod(Tensor x, Tensor out, int dim) { scan(x, out, dim, true); }

    private static void scan(Tensor x, Tensor out, int dim, boolean product) {
        int[] shape = x.dim() == 0 ? new int[] {1} : x.shape();
        int n = shape[dim], outer = 1, inner = 1;
        for (int d = 0; d < dim; d++) outer *= shape[d];
        for (int d = dim + 1; d < shape.length; d++) inner *= shape[d];
        if (x.numel() == 0) return;
        Storage s = x.storage(), o = out.storage();
        int xb = x.storageOffset(), step = inner;
        Parallel.forRange(outer * inner, n, (lo, hi) -> {
            for (int slice = lo; slice < hi; slice++) {
                int first = (slice / step) * n * step + slice % step;
                switch (s.dtype()) {
                    case FLOAT32 -> {
                        float[] src = s.floats(), dst = o.floats();
                        double acc = product ? 1 : 0;
                        if (product) for (int j = 0, p = first; j < n; j++, p += step) dst[p] = (float) (acc *= src[xb + p]);
                        else for (int j = 0, p = first; j < n; j++, p += step) dst[p] = (float) (acc += src[xb + p]);
                    }
                    case FLOAT64 -> {
                        double[] src = s.doubles(), dst = o.doubles();
                        double acc = product ? 1 : 0;
                        if (product) for (int j = 0, p = first; j < n; j++, p += step) dst[p] = acc *= src[xb + p];
                        else for (int j = 0, p = first; j < n; j++, p += step) dst[p] = acc += src[xb + p];
                    }
                    case INT64 -> {
                        long[] src = s.longs(), dst = o.longs();
                        long acc = product ? 1 : 0;
                        if (product) for (int j = 0, p = first; j < n; j++, p += step) dst[p] = acc *= src[xb + p];
                        else for (int j = 0, p = first; j < n; j++, p += step) dst[p] = acc += src[xb + p];
                    }
                    case INT32 -> {
                        int[] src = s.ints(), dst = o.ints();
                        long acc = product ? 1 : 0;
                        if (product) for (int j = 0, p = first; j < n; j++, p += step) dst[p] = (int) (acc *= src[xb + p]);
                        else for (int j = 0, p = first; j < n; j++, p += step) dst[p] = (int) (acc += src[xb + p]);
                    }
                    case BOOL -> {
                        byte[] src = s.bools(), dst = o.bools();
                        byte acc = (byte) (product ? 1 : 0);
                        if (product) for (int j = 0, p = first; j < n; j++, p += step) dst[p] = acc &= src[xb + p];
                        else for (int j = 0, p = first; j < n; j++, p += step) dst[p] = acc |= src[xb + p];
                    }
                }
            }
        });
    }

    /**
     * Running maxima ({@code max}) or minima and the index of each, as ATen's CPU cummax and cummin:
     * a later element equal to the running value takes its place (so the index is the last of ties),
     * and a NaN takes it always and stays until the next NaN. x and values contiguous of one dtype,
     * indices contiguous int64, all of one shape.
     */
    public static void cumExtremum(Tensor x, Tensor values, Tensor indices, int dim, boolean max) {
        int[] shape = x.dim() == 0 ? new int[] {1} : x.shape();
        int n = shape[dim], outer = 1, inner = 1;
        for (int d = 0; d < dim; d++) outer *= shape[d];
        for (int d = dim + 1; d < shape.length; d++) inner *= shape[d];
        if (x.numel() == 0) return;
        Storage s = x.storage(), v = values.storage();
        long[] idx = indices.storage().longs();
        int xb = x.storageOffset(), step = inner;
        Parallel.forRange(outer * inner, n, (lo, hi) -> {
            for (int slice = lo; slice < hi; slice++) {
                int first = (slice / step) * n * step + slice % step;
                int at = 0;
                switch (s.dtype()) {
                    case FLOAT32, FLOAT64 -> {
                        boolean f32 = s.dtype() == dev.ember.tensor.DType.FLOAT32;
                        float[] sf = f32 ? s.floats() : null, vf = f32 ? v.floats() : null;
                        double[] sd = f32 ? null : s.doubles(), vd = f32 ? null : v.doubles();
                        double best = f32 ? sf[xb + first] : sd[xb + first];
                        for (int j = 0, p = first; j < n; j++, p += step) {
                            double e = f32 ? sf[xb + p] : sd[xb + p];
                            if (Double.isNaN(e) || (!Double.isNaN(best) && (max ? e >= best : e <= best))) {
                                best = e;
                                at = j;
                            }
                            if (f32) vf[p] = (float) best;
                            else vd[p] = best;
                            idx[p] = at;
                        }
                    }
                    case INT64, INT32, BOOL -> {
                        long best = integer(s, xb + first);
                        for (int j = 0, p = first; j < n; j++, p += step) {
                            long e = integer(s, xb + p);
                            if (max ? e >= best : e <= best) {
                                best = e;
                                at = j;
                            }
                            switch (s.dtype()) {
                                case INT64 -> v.longs()[p] = best;
                                case INT32 -> v.ints()[p] = (int) best;
                                default -> v.bools()[p] = (byte) best;
                            }
                            idx[p] = at;
                        }
                    }
                }
            }
        });
    }

    private static long integer(Storage s, int i) {
        return switch (s.dtype()) {
            case INT64 -> s.longs()[i];
            case INT32 -> s.ints()[i];
            default -> s.bools()[i];
        };
    }

    /**
     * {@code out_j = log(exp(x_0) + … + exp(x_j))} along dim, as ATen's CPU logcumsumexp: accumulated
     * in double, each step {@code max + log1p(exp(min - max))}, or the element itself where both are
     * the same infinity. x and out contiguous, of one floating dtype and shape.
     */
    public static void logcumsumexp(Tensor x, Tensor out, int dim) {
        int[] shape = x.dim() == 0 ? new int[] {1} : x.shape();
        int n = shape[dim], outer = 1, inner = 1;
        for (int d = 0; d < dim; d++) outer *= shape[d];
        for (int d = dim + 1; d < shape.length; d++) inner *= shape[d];
        if (x.numel() == 0) return;
        Storage s = x.storage(), o = out.storage();
        boolean f32 = s.dtype() == dev.ember.tensor.DType.FLOAT32;
        int xb = x.storageOffset(), step = inner;
        Parallel.forRange(outer * inner, n, (lo, hi) -> {
            for (int slice = lo; slice < hi; slice++) {
                int first = (slice / step) * n * step + slice % step;
                double acc = Double.NEGATIVE_INFINITY;
                for (int j = 0, p = first; j < n; j++, p += step) {
                    double e = f32 ? s.floats()[xb + p] : s.doubles()[xb + p];
                    acc = logAddExp(e, acc);
                    if (f32) o.floats()[p] = (float) acc;
                    else o.doubles()[p] = acc;
                }
            }
        });
    }

    /** ATen's _log_add_exp_helper: a NaN in the running value stays. */
    private static double logAddExp(double x, double y) {
        double min = Double.isNaN(y) ? y : Math.min(x, y), max = Double.isNaN(y) ? y : Math.max(x, y);
        if (min != max || Double.isFinite(min)) return max + Math.log1p(Math.exp(min - max));
        return x;
    }
}
