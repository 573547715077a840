package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.TensorMeta;

/**
 * ATen's complex-number ops on Ember's dtypes, which are all real: what ATen computes for a real
 * tensor. {@code real}, {@code conj}, {@code resolve_conj} and {@code resolve_neg} are the tensor
 * itself (ATen returns self), {@code conj_physical} a copy, {@code isreal} all true, and
 * {@code angle} 0 for x ≥ 0 (and −0), π for x &lt; 0, NaN for NaN, in the floating dtype, with
 * ATen's zero gradient.
 */
public final class ComplexOnRealOps {
    private ComplexOnRealOps() {}

    public static final OpOverload REAL = ComposedOps.define("real(Tensor(a) self) -> Tensor(a)", (e, a) -> a[0]);
    public static final OpOverload CONJ = ComposedOps.define("conj(Tensor(a) self) -> Tensor(a)", (e, a) -> a[0]);
    public static final OpOverload RESOLVE_CONJ = ComposedOps.define("resolve_conj(Tensor(a) self) -> Tensor(a)", (e, a) -> a[0]);
    public static final OpOverload RESOLVE_NEG = ComposedOps.define("resolve_neg(Tensor(a) self) -> Tensor(a)", (e, a) -> a[0]);
    public static final OpOverload CONJ_PHYSICAL = ComposedOps.define("conj_physical(Tensor self) -> Tensor", (e, a) -> e.call(ShapeOps.CLONE, a[0], null));

    /** Every element is real: a bool tensor of ones in self's shape. */
    public static final OpOverload ISREAL = ComposedOps.define("isreal(Tensor self) -> Tensor",
            (e, a) -> e.call(CreationOps.FULL, e.meta(a[0]).shape(), true, DType.BOOL));

    public static final OpOverload ANGLE = ComposedOps.composed("angle(Tensor self) -> Tensor",
                    a -> TensorMeta.contiguous(TypePromotion.toFloating(a.tensor(0).dtype()), a.tensor(0).shape()),
                    (e, a) -> {
                        TensorMeta meta = e.meta(a[0]);
                        DType floating = TypePromotion.toFloating(meta.dtype());
                        Object x = meta.dtype() == floating ? a[0] : e.call(ShapeOps.TO_COPY, a[0], floating);
                        Object zeros = e.call(CreationOps.FULL, meta.shape(), 0.0, floating);
                        Object signAngle = e.call(PointwiseOps.WHERE_SCALAR_SELF, e.call(PointwiseOps.LT_SCALAR, x, 0L), Math.PI, zeros);
                        return e.call(PointwiseOps.WHERE_SELF, e.call(PointwiseOps.ISNAN, x), x, signAngle);
                    })
            .tags(Tag.POINTWISE)
            // derivatives.yaml's angle_backward for a real input: zeros, NaN inputs included
            .derivative(g -> new Object[] {g.zeros(g.argMeta(0))})
            .register();
}
