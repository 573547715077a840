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
}
