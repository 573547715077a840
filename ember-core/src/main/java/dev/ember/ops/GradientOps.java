package dev.ember.ops;

import dev.ember.tensor.Shapes;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.List;

/**
 * torch.gradient: the derivative of samples spaced {@code spacing} apart, by central differences
 * inside and one-sided ones of {@code edge_order} 1 or 2 at the ends, along each of the dims asked
 * for (every dim when none is given), one tensor per dim — ATen's formulas in its order, composed of
 * slices and pointwise ops, so it differentiates and compiles as they do.
 */
public final class GradientOps {
    private GradientOps() {}

    public static final OpOverload GRADIENT = ComposedOps.define("gradient.scalarint(Tensor self, *, Scalar? spacing=None, int? dim=None, int edge_order=1) -> Tensor[]",
            a -> {
                long edgeOrder = a.integer(3);
                if (edgeOrder != 1 && edgeOrder != 2) throw new IllegalArgumentException("torch.gradient only supports edge_order=1 and edge_order=2.");
                for (int d : dims(a.tensor(0).meta(), a.get(2))) {
                    if (a.tensor(0).size(d) < edgeOrder + 1) throw new IllegalArgumentException("torch.gradient expected each dimension size to be at least edge_order+1");
                }
            },
            (e, a) -> {
                TensorMeta x = e.meta(a[0]);
                Object h = a[1] == null ? (Object) 1L : a[1];
                boolean second = ((Number) a[3]).longValue() == 2;
                List<Object> out = new ArrayList<>();
                for (int d : dims(x, a[2])) {
                    long dim = d;
                    Object center = e.call(PointwiseOps.DIV_SCALAR, e.call(PointwiseOps.SUB_TENSOR, slice(e, a[0], dim, 2L, null), slice(e, a[0], dim, 0L, -2L)), h);
                    Object prepend, append;
                    if (!second) {
                        prepend = e.call(PointwiseOps.DIV_SCALAR, e.call(PointwiseOps.SUB_TENSOR, slice(e, a[0], dim, 1L, 2L), slice(e, a[0], dim, 0L, 1L)), h);
                        append = e.call(PointwiseOps.DIV_SCALAR, e.call(PointwiseOps.SUB_TENSOR, slice(e, a[0], dim, -1L, null), slice(e, a[0], dim, -2L, -1L)), h);
                    } else {
                        prepend = e.call(PointwiseOps.DIV_SCALAR, combination(e, -1.5, slice(e, a[0], dim, 0L, 1L), 2L, slice(e, a[0], dim, 1L, 2L),
                                -0.5, slice(e, a[0], dim, 2L, 3L)), h);
                        append = e.call(PointwiseOps.DIV_SCALAR, combination(e, 0.5, slice(e, a[0], dim, -3L, -2L), -2L, slice(e, a[0], dim, -2L, -1L),
                                1.5, slice(e, a[0], dim, -1L, null)), h);
                    }
                    out.add(e.call(ShapeOps.CAT, List.of(prepend, e.call(PointwiseOps.DIV_SCALAR, center, 2L), append), dim));
                }
                return out;
            });

    private static Object slice(OpEmitter e, Object x, long dim, Long start, Long end) { return e.call(ShapeOps.SLICE, x, dim, start, end, 1L); }

    /** {@code c0 x0 + c1 x1 + c2 x2}, left to right as ATen writes it. */
    private static Object combination(OpEmitter e, Number c0, Object x0, Number c1, Object x1, Number c2, Object x2) {
        Object sum = e.call(PointwiseOps.ADD_TENSOR, e.call(PointwiseOps.MUL_SCALAR, x0, c0), e.call(PointwiseOps.MUL_SCALAR, x1, c1));
        return e.call(PointwiseOps.ADD_TENSOR, sum, e.call(PointwiseOps.MUL_SCALAR, x2, c2));
    }

    private static int[] dims(TensorMeta x, Object dim) {
        if (dim == null) {
            int[] all = new int[x.dim()];
            for (int d = 0; d < all.length; d++) all[d] = d;
            return all;
        }
        return new int[] {Shapes.wrapDim("gradient", ((Number) dim).intValue(), x.dim())};
    }
}
