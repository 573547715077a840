package dev.ember.ops.eager;

import dev.ember.kernels.Parallel;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;

import java.util.Arrays;
import java.util.Comparator;

/**
 * The sorted order of each slice along one dimension, as ATen orders: NaN above every number
 * (last ascending, first descending), -0.0 equal to 0.0, and equal elements in their original
 * order (a stable sort, which ATen's CPU sort also is when asked; for topk and the default sort
 * the order of ties is unspecified, so the stable one is as good).
 */
public final class Sort {
    private Sort() {}

    /**
     * The positions along {@code dim} of the first {@code k} elements of each sorted slice, laid
     * out row-major in {@code t}'s shape with {@code dim} cut to {@code k}.
     */
    public static long[] order(Tensor t, int dim, boolean descending, int k) {
        Tensor x = t.contiguous();
        int[] shape = t.dim() == 0 ? new int[] {1} : t.shape();
        int n = shape[dim], outer = 1, inner = 1;
        for (int d = 0; d < dim; d++) outer *= shape[d];
        for (int d = dim + 1; d < shape.length; d++) inner *= shape[d];
        long[] out = new long[outer * k * inner];
        if (out.length == 0) return out;
        Storage s = x.storage();
        int base = x.storageOffset(), step = inner, slices = outer * inner, count = k;
        Parallel.forRange(slices, (long) n * 16, (lo, hi) -> {
            Integer[] perm = new Integer[n];
            for (int slice = lo; slice < hi; slice++) {
                int o = slice / step, i = slice % step, first = base + o * n * step + i;
                for (int j = 0; j < n; j++) perm[j] = j;
                Comparator<Integer> ascending = s.dtype().isFloatingPoint()
                        ? (p, q) -> compare(s.readDouble(first + p * step), s.readDouble(first + q * step))
                        : (p, q) -> Long.compare(s.readLong(first + p * step), s.readLong(first + q * step));
                Arrays.sort(perm, descending ? (p, q) -> ascending.compare(q, p) : ascending);
                for (int j = 0; j < count; j++) out[(o * count + j) * step + i] = perm[j];
            }
        });
        return out;
    }

    /** Numbers by value (-0.0 equals 0.0), NaN above all and equal to NaN. */
    private static int compare(double a, double b) {
        if (Double.isNaN(a)) return Double.isNaN(b) ? 0 : 1;
        if (Double.isNaN(b)) return -1;
        return a < b ? -1 : a > b ? 1 : 0;
    }
}
