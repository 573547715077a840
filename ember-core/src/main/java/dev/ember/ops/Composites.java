package dev.ember.ops;

import dev.ember.tensor.TensorMeta;

import java.util.Arrays;
import java.util.List;

/** What several decompositions share: dims and element counts read from an emitter's metadata. */
final class Composites {
    private Composites() {}

    /**
     * The mean over {@code dims}, shifted by each reduced slice's first element:
     * {@code x0 + sum(x - x0) / n}. Where a slice's elements are all equal this is exact
     * ({@code sum(x - x0)} is 0), as eager's kernels are; {@code sum(x) / n} rounds the sum first,
     * so {@code x - mean} is then not 0, and a following sqrt or rsqrt (std, layer_norm) turns
     * that rounding into a visible error (fuzzer seed 5002363: layer_norm of a row of equal values).
     */
    static Object mean(OpEmitter e, Object x, int[] dims, boolean keepdim) {
        double n = count(e, x, dims);
        if (n == 0) return e.call(PointwiseOps.DIV_SCALAR, e.call(ReductionOps.SUM_DIM, x, dims, keepdim), n);
        Object first = x;
        for (int d : dims) first = e.call(ShapeOps.SLICE, first, d, 0L, 1L);
        Object shiftedSum = e.call(ReductionOps.SUM_DIM, e.call(PointwiseOps.SUB_TENSOR, x, first), dims, keepdim);
        Object base = keepdim ? first : e.call(ShapeOps.RESHAPE, first, e.meta(shiftedSum).shape());
        return e.call(PointwiseOps.ADD_TENSOR, base, e.call(PointwiseOps.DIV_SCALAR, shiftedSum, n));
    }

    /** Unbiased-by-{@code correction} variance over {@code dimArg}, or null for a non-float input (the op then stays). */
    static Object variance(OpEmitter e, Object x, Object dimArg, Object correction, boolean keepdim) {
        if (!e.meta(x).dtype().isFloatingPoint()) return null;
        int[] dims = dims(e, x, dimArg);
        double n = count(e, x, dims);
        double c = correction == null ? 1 : ((Number) correction).doubleValue();
        Object mean = mean(e, x, dims, true);
        Object centered = e.call(PointwiseOps.SUB_TENSOR, x, mean);
        Object sq = e.call(ReductionOps.SUM_DIM, e.call(PointwiseOps.MUL_TENSOR, centered, centered), dims, keepdim);
        return e.call(PointwiseOps.DIV_SCALAR, sq, Math.max(0, n - c));
    }

    static int wrap(OpEmitter e, Object x, Object dim) {
        int nd = Math.max(1, e.meta(x).dim());
        int d = ((Number) dim).intValue();
        return d < 0 ? d + nd : d;
    }

    /** The reduced dims, wrapped; null or empty means all of them. */
    static int[] dims(OpEmitter e, Object x, Object dimArg) {
        int nd = e.meta(x).dim();
        int[] given = dimArg == null ? new int[0] : toInts(dimArg);
        if (given.length == 0) {
            int[] all = new int[nd];
            for (int i = 0; i < nd; i++) all[i] = i;
            return all;
        }
        int[] out = new int[given.length];
        for (int i = 0; i < given.length; i++) out[i] = given[i] < 0 ? given[i] + nd : given[i];
        return out;
    }

    static double count(OpEmitter e, Object x, int[] dims) {
        int[] shape = e.meta(x).shape();
        double n = 1;
        for (int d : dims) n *= shape[d];
        return n;
    }

    /** An int-list argument as graphs may hold it: {@code int[]}, {@code long[]} or a list of numbers. */
    static int[] toInts(Object v) {
        return switch (v) {
            case int[] a -> a;
            case long[] a -> Arrays.stream(a).mapToInt(Math::toIntExact).toArray();
            case List<?> l -> l.stream().mapToInt(x -> ((Number) x).intValue()).toArray();
            case Number n -> new int[] {n.intValue()};
            default -> throw new IllegalArgumentException("expected an int list, got " + v);
        };
    }

    /** {@code [C, 1, 1, …]}: a per-channel parameter shaped to broadcast over an NC… input. */
    static int[] channelShape(TensorMeta input) {
        int[] s = new int[Math.max(1, input.dim() - 1)];
        Arrays.fill(s, 1);
        s[0] = input.shape()[1];
        return s;
    }

    static boolean isOne(Object scalar) { return scalar instanceof Number n && n.doubleValue() == 1.0; }

    /**
     * The rows of a tensor flattened to 2-D over its last dim, counted rather than written as -1:
     * with a zero-size dim, -1 is ambiguous and reshape refuses it ([0, 5, 0] to [-1, 0]).
     */
    static int leadingRows(TensorMeta x) {
        int rows = 1;
        for (int d = 0; d < x.dim() - 1; d++) rows *= x.shape()[d];
        return rows;
    }
}
