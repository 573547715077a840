package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

/**
 * Upsampling of the last 1, 2 or 3 dims of an (N, C, W), (N, C, H, W) or (N, C, D, H, W) input, as
 * ATen's CPU kernels: nearest (source {@code floor(dst · scale)}), nearest-exact
 * ({@code floor((dst + 0.5) · scale)}), linear / bilinear / trilinear (two taps per dim) and bicubic
 * (four), with or without align_corners. A given scale is the kernel's scale ({@code 1 / scale}); without one it is
 * {@code in / out}. Each op is its decomposition, as PyTorch's decompositions write it: per dim a
 * source index vector (arange arithmetic, in float where ATen computes in float) and index_select,
 * the linear taps weighted and summed width first, in ATen's order. Eager, autograd (index_select's
 * backward is upsample's) and the compiler compute that one formula.
 */
public final class UpsampleOps {
    private UpsampleOps() {}

    public static final OpOverload UPSAMPLE_NEAREST1D = ComposedOps.define(
            "upsample_nearest1d(Tensor self, SymInt[1] output_size, float? scales=None) -> Tensor",
            a -> check(a, 1, "upsample_nearest1d"),
            (e, a) -> nearest(e, a[0], Composites.toInts(a[1]), new Double[] {(Double) a[2]}));

    public static final OpOverload UPSAMPLE_NEAREST2D = ComposedOps.define(
            "upsample_nearest2d(Tensor self, SymInt[2] output_size, float? scales_h=None, float? scales_w=None) -> Tensor",
            a -> check(a, 2, "upsample_nearest2d"),
            (e, a) -> nearest(e, a[0], Composites.toInts(a[1]), new Double[] {(Double) a[2], (Double) a[3]}));

    public static final OpOverload UPSAMPLE_LINEAR1D = ComposedOps.define(
            "upsample_linear1d(Tensor self, SymInt[1] output_size, bool align_corners, float? scales=None) -> Tensor",
            a -> check(a, 1, "upsample_linear1d"),
            (e, a) -> linear(e, a[0], Composites.toInts(a[1]), (Boolean) a[2], new Double[] {(Double) a[3]}));

    public static final OpOverload UPSAMPLE_BILINEAR2D = ComposedOps.define(
            "upsample_bilinear2d(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor",
            a -> check(a, 2, "upsample_bilinear2d"),
            (e, a) -> linear(e, a[0], Composites.toInts(a[1]), (Boolean) a[2], new Double[] {(Double) a[3], (Double) a[4]}));

    public static final OpOverload UPSAMPLE_NEAREST3D = ComposedOps.define(
            "upsample_nearest3d(Tensor self, SymInt[3] output_size, float? scales_d=None, float? scales_h=None, float? scales_w=None) -> Tensor",
            a -> check(a, 3, "upsample_nearest3d"),
            (e, a) -> nearest(e, a[0], Composites.toInts(a[1]), new Double[] {(Double) a[2], (Double) a[3], (Double) a[4]}));

    /** F.interpolate's "nearest-exact": the source index rounds the output pixel's centre, {@code floor((dst + 0.5) · scale)}. */
    public static final OpOverload UPSAMPLE_NEAREST_EXACT1D = ComposedOps.define(
            "_upsample_nearest_exact1d(Tensor self, SymInt[1] output_size, float? scales=None) -> Tensor",
            a -> check(a, 1, "_upsample_nearest_exact1d"),
            (e, a) -> nearestExact(e, a[0], Composites.toInts(a[1]), new Double[] {(Double) a[2]}));

    public static final OpOverload UPSAMPLE_NEAREST_EXACT2D = ComposedOps.define(
            "_upsample_nearest_exact2d(Tensor self, SymInt[2] output_size, float? scales_h=None, float? scales_w=None) -> Tensor",
            a -> check(a, 2, "_upsample_nearest_exact2d"),
            (e, a) -> nearestExact(e, a[0], Composites.toInts(a[1]), new Double[] {(Double) a[2], (Double) a[3]}));

    public static final OpOverload UPSAMPLE_NEAREST_EXACT3D = ComposedOps.define(
            "_upsample_nearest_exact3d(Tensor self, SymInt[3] output_size, float? scales_d=None, float? scales_h=None, float? scales_w=None) -> Tensor",
            a -> check(a, 3, "_upsample_nearest_exact3d"),
            (e, a) -> nearestExact(e, a[0], Composites.toInts(a[1]), new Double[] {(Double) a[2], (Double) a[3], (Double) a[4]}));

    public static final OpOverload UPSAMPLE_TRILINEAR3D = ComposedOps.define(
            "upsample_trilinear3d(Tensor self, SymInt[3] output_size, bool align_corners, float? scales_d=None, float? scales_h=None, float? scales_w=None) -> Tensor",
            a -> check(a, 3, "upsample_trilinear3d"),
            (e, a) -> linear(e, a[0], Composites.toInts(a[1]), (Boolean) a[2], new Double[] {(Double) a[3], (Double) a[4], (Double) a[5]}));

    /** Keys' cubic convolution (A = -0.75), four taps per dim, the taps past an edge reading the edge (ATen's upsample_bicubic2d). */
    public static final OpOverload UPSAMPLE_BICUBIC2D = ComposedOps.define(
            "upsample_bicubic2d(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor",
            a -> check(a, 2, "upsample_bicubic2d"),
            (e, a) -> bicubic(e, a[0], Composites.toInts(a[1]), (Boolean) a[2], new Double[] {(Double) a[3], (Double) a[4]}));

    /** ATen's upsample_{1,2,3}d_common_check and its dtype dispatch (floating point only here). */
    private static void check(Args a, int dims, String op) {
        Tensor self = a.tensor(0);
        int[] out = a.ints(1);
        if (out.length != dims) throw new IllegalArgumentException(op + ": It is expected output_size equals to " + dims + ", but got size " + out.length);
        if (self.dim() != dims + 2) throw new IllegalArgumentException(op + ": It is expected input_size equals to " + (dims + 2) + ", but got size " + self.dim());
        int[] in = self.shape();
        int rest = 1;
        for (int d = 1; d < in.length; d++) rest *= in[d];
        if (self.numel() == 0 && rest == 0) {
            throw new IllegalArgumentException(op + ": Non-empty " + (dims + 2) + "D data tensor expected but got a tensor with sizes " + Shapes.format(in));
        }
        boolean positive = true;
        for (int k = 0; k < dims; k++) positive &= in[2 + k] > 0 && out[k] > 0;
        if (!positive) {
            throw new IllegalArgumentException(op + ": Input and output sizes should be greater than 0, but got input " + switch (dims) {
                case 1 -> "(W: " + in[2] + ") and output (W: " + out[0] + ")";
                case 2 -> "(H: " + in[2] + ", W: " + in[3] + ") output (H: " + out[0] + ", W: " + out[1] + ")";
                default -> "(D: " + in[2] + ", H: " + in[3] + ", W: " + in[4] + ") output (D: " + out[0] + ", H: " + out[1] + ", W: " + out[2] + ")";
            });
        }
        if (!self.dtype().isFloatingPoint()) {
            // the names of libtorch 2.7's refusals (its nearest kernels take uint8 too, which Ember does not have)
            String kernel = op.equals("upsample_nearest2d") || op.equals("upsample_bilinear2d") ? op + "_channels_last"
                    : op.equals("upsample_linear1d") || op.equals("upsample_trilinear3d") ? "compute_indices_weights_linear"
                    : op.equals("upsample_bicubic2d") ? "compute_indices_weights_cubic" : "compute_indices_weights_nearest";
            throw new IllegalArgumentException(op + ": \"" + kernel + "\" not implemented for '" + self.dtype().scalarTypeName() + "'");
        }
    }

    private static Object nearest(OpEmitter e, Object self, int[] size, Double[] scales) {
        int rank = e.meta(self).dim();
        Object out = self;
        for (int k = 0; k < size.length; k++) {
            int dim = rank - size.length + k, in = e.meta(self).shape()[dim];
            out = e.call(IndexingOps.INDEX_SELECT, out, (long) dim, nearestSource(e, in, size[k], scales[k]));
        }
        return out;
    }

    /**
     * ATen's nearest_idx: the identity and the halving for sizes kept or doubled, else
     * {@code min(floorf(dst · scale), in − 1)} with scale a float. The product is exact in double
     * (two numbers of at most 24 bits), so rounding it to float once gives C's float product.
     */
    private static Object nearestSource(OpEmitter e, int in, int out, Double scale) {
        Object dst = e.call(CreationOps.ARANGE, 0L, (long) out, 1L, DType.INT64);
        if (out == in) return dst;
        if (out == 2 * in) return e.call(PointwiseOps.FLOOR_DIVIDE_SCALAR, dst, 2L);
        float s = scale != null && scale > 0 ? (float) (1.0 / scale) : (float) in / out;
        Object product = e.call(PointwiseOps.MUL_SCALAR, e.call(ShapeOps.TO_COPY, dst, DType.FLOAT64), (double) s);
        Object floor = e.call(PointwiseOps.FLOOR, e.call(ShapeOps.TO_COPY, product, DType.FLOAT32));
        return e.call(PointwiseOps.CLAMP, e.call(ShapeOps.TO_COPY, floor, DType.INT64), null, (long) in - 1);
    }

    private static Object nearestExact(OpEmitter e, Object self, int[] size, Double[] scales) {
        int rank = e.meta(self).dim();
        Object out = self;
        for (int k = 0; k < size.length; k++) {
            int dim = rank - size.length + k, in = e.meta(self).shape()[dim];
            out = e.call(IndexingOps.INDEX_SELECT, out, (long) dim, nearestExactSource(e, in, size[k], scales[k]));
        }
        return out;
    }

    /**
     * ATen's nearest_neighbor_exact_compute_source_index: {@code min(floorf((dst + 0.5) · scale), in − 1)}
     * with scale a float; {@code (dst + 0.5) · scale} is exact in double, so rounding it to float once
     * gives C's product.
     */
    private static Object nearestExactSource(OpEmitter e, int in, int out, Double scale) {
        Object dst = e.call(CreationOps.ARANGE, 0L, (long) out, 1L, DType.FLOAT64);
        float s = scale != null && scale > 0 ? (float) (1.0 / scale) : (float) in / out;
        Object product = e.call(PointwiseOps.MUL_SCALAR, e.call(PointwiseOps.ADD_SCALAR, dst, 0.5), (double) s);
        Object floor = e.call(PointwiseOps.FLOOR, e.call(ShapeOps.TO_COPY, product, DType.FLOAT32));
        return e.call(PointwiseOps.CLAMP, e.call(ShapeOps.TO_COPY, floor, DType.INT64), null, (long) in - 1);
    }

    /**
     * Four taps per dim, the last dim first (as {@link #linear}): ATen's get_cubic_upsample_coefficients
     * at {@code t}, the fraction of the source position {@code scale · dst} (align_corners) or
     * {@code scale · (dst + 0.5) − 0.5} (not clamped at 0, unlike linear's), taps at its floor − 1 … + 2
     * clamped into the input.
     */
    private static Object bicubic(OpEmitter e, Object self, int[] size, boolean alignCorners, Double[] scales) {
        DType dtype = e.meta(self).dtype();
        boolean single = dtype == DType.FLOAT32;
        int rank = e.meta(self).dim();
        Object out = self;
        for (int k = size.length - 1; k >= 0; k--) {
            int dim = rank - size.length + k, in = e.meta(self).shape()[dim], n = size[k];
            double s;
            if (alignCorners) s = n > 1 ? (single ? (float) (in - 1) / (n - 1) : (double) (in - 1) / (n - 1)) : 0;
            else if (scales[k] != null && scales[k] > 0) s = single ? (float) (1.0 / scales[k]) : 1.0 / scales[k];
            else s = single ? (float) in / n : (double) in / n;
            Object dst = e.call(CreationOps.ARANGE, 0L, (long) n, 1L, dtype);
            Object position = alignCorners ? e.call(PointwiseOps.MUL_SCALAR, dst, s)
                    : e.call(PointwiseOps.SUB_SCALAR, e.call(PointwiseOps.MUL_SCALAR, e.call(PointwiseOps.ADD_SCALAR, dst, 0.5), s), 0.5);
            // ATen's guard_index_and_lambda: the index at most in - 1, the fraction clamped into [0, 1]
            Object base = e.call(PointwiseOps.CLAMP, e.call(ShapeOps.TO_COPY, e.call(PointwiseOps.FLOOR, position), DType.INT64), null, (long) in - 1);
            Object t = e.call(PointwiseOps.CLAMP, e.call(PointwiseOps.SUB_TENSOR, position, base), 0.0, 1.0);
            Object oneMinusT = e.call(PointwiseOps.RSUB_SCALAR, t, 1.0);
            Object[] weights = {
                    cubicFar(e, e.call(PointwiseOps.ADD_SCALAR, t, 1.0)), cubicNear(e, t),
                    cubicNear(e, oneMinusT), cubicFar(e, e.call(PointwiseOps.ADD_SCALAR, oneMinusT, 1.0))};
            int[] along = new int[rank - dim];
            java.util.Arrays.fill(along, 1);
            along[0] = n;
            Object sum = null;
            for (int tap = 0; tap < 4; tap++) {
                Object index = e.call(PointwiseOps.CLAMP, e.call(PointwiseOps.ADD_SCALAR, base, (long) tap - 1), 0L, (long) in - 1);
                Object term = e.call(PointwiseOps.MUL_TENSOR, e.call(IndexingOps.INDEX_SELECT, out, (long) dim, index), e.call(ShapeOps.RESHAPE, weights[tap], along));
                sum = sum == null ? term : e.call(PointwiseOps.ADD_TENSOR, sum, term);
            }
            out = sum;
        }
        return out;
    }

    private static final double CUBIC_A = -0.75;

    /** ATen's cubic_convolution1, for a tap within one pixel: {@code ((A + 2)·x − (A + 3))·x·x + 1}. */
    private static Object cubicNear(OpEmitter e, Object x) {
        Object inner = e.call(PointwiseOps.SUB_SCALAR, e.call(PointwiseOps.MUL_SCALAR, x, CUBIC_A + 2), CUBIC_A + 3);
        return e.call(PointwiseOps.ADD_SCALAR, e.call(PointwiseOps.MUL_TENSOR, e.call(PointwiseOps.MUL_TENSOR, inner, x), x), 1.0);
    }

    /** ATen's cubic_convolution2, for a tap one to two pixels away: {@code ((A·x − 5A)·x + 8A)·x − 4A}. */
    private static Object cubicFar(OpEmitter e, Object x) {
        Object inner = e.call(PointwiseOps.SUB_SCALAR, e.call(PointwiseOps.MUL_SCALAR, x, CUBIC_A), 5 * CUBIC_A);
        inner = e.call(PointwiseOps.ADD_SCALAR, e.call(PointwiseOps.MUL_TENSOR, inner, x), 8 * CUBIC_A);
        return e.call(PointwiseOps.SUB_SCALAR, e.call(PointwiseOps.MUL_TENSOR, inner, x), 4 * CUBIC_A);
    }

    /** Two taps per dim, the last dim first: ATen's kernel evaluates the width inside the height. */
    private static Object linear(OpEmitter e, Object self, int[] size, boolean alignCorners, Double[] scales) {
        DType dtype = e.meta(self).dtype();
        int rank = e.meta(self).dim();
        Object out = self;
        for (int k = size.length - 1; k >= 0; k--) {
            int dim = rank - size.length + k, in = e.meta(self).shape()[dim];
            Object[] taps = linearTaps(e, in, size[k], alignCorners, scales[k], dtype);
            int[] along = new int[rank - dim];
            java.util.Arrays.fill(along, 1);
            along[0] = size[k];
            Object first = e.call(PointwiseOps.MUL_TENSOR, e.call(IndexingOps.INDEX_SELECT, out, (long) dim, taps[0]), e.call(ShapeOps.RESHAPE, taps[2], along));
            Object second = e.call(PointwiseOps.MUL_TENSOR, e.call(IndexingOps.INDEX_SELECT, out, (long) dim, taps[1]), e.call(ShapeOps.RESHAPE, taps[3], along));
            out = e.call(PointwiseOps.ADD_TENSOR, first, second);
        }
        return out;
    }

    /**
     * ATen's compute_indices_weights_linear: the source position {@code scale · dst} (align_corners)
     * or {@code max(scale · (dst + 0.5) − 0.5, 0)}, computed in the input's dtype (ATen's opmath:
     * float for float32); taps at its floor and the next (the last stays), weighted {@code 1 − λ}
     * and {@code λ}. Returns {index0, index1, weight0, weight1}.
     */
    private static Object[] linearTaps(OpEmitter e, int in, int out, boolean alignCorners, Double scale, DType dtype) {
        boolean single = dtype == DType.FLOAT32;
        double s;
        if (alignCorners) s = out > 1 ? (single ? (float) (in - 1) / (out - 1) : (double) (in - 1) / (out - 1)) : 0;
        else if (scale != null && scale > 0) s = single ? (float) (1.0 / scale) : 1.0 / scale;
        else s = single ? (float) in / out : (double) in / out;
        Object dst = e.call(CreationOps.ARANGE, 0L, (long) out, 1L, dtype);
        Object position = alignCorners ? e.call(PointwiseOps.MUL_SCALAR, dst, s)
                : e.call(PointwiseOps.CLAMP, e.call(PointwiseOps.SUB_SCALAR, e.call(PointwiseOps.MUL_SCALAR, e.call(PointwiseOps.ADD_SCALAR, dst, 0.5), s), 0.5), 0.0, null);
        Object index0 = e.call(PointwiseOps.CLAMP, e.call(ShapeOps.TO_COPY, e.call(PointwiseOps.FLOOR, position), DType.INT64), null, (long) in - 1);
        Object index1 = e.call(PointwiseOps.CLAMP, e.call(PointwiseOps.ADD_SCALAR, index0, 1L), null, (long) in - 1);
        Object lambda = e.call(PointwiseOps.CLAMP, e.call(PointwiseOps.SUB_TENSOR, position, index0), 0.0, 1.0);
        return new Object[] {index0, index1, e.call(PointwiseOps.RSUB_SCALAR, lambda, 1.0), lambda};
    }
}
