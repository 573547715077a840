package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Defaults;
import dev.ember.tensor.Tensor;

/**
 * ATen's {@code result_type}: operands fall in three priority levels — tensors with dimensions,
 * zero-dimensional tensors, and Java scalars — and a lower level only changes the result when it
 * is of a higher category (bool &lt; integral &lt; floating). A floating scalar counts as the default dtype.
 */
public final class TypePromotion {
    private TypePromotion() {}

    /** The result dtype of tensors and scalars ({@code Double}, {@code Long}, {@code Boolean}) mixed. */
    public static DType resultType(Object... operands) {
        DType dim = null, zero = null, wrapped = null;
        for (Object o : operands) {
            if (o == null) continue;
            if (o instanceof Tensor t) {
                if (t.dim() > 0) dim = promote(dim, t.dtype());
                else zero = promote(zero, t.dtype());
            } else {
                wrapped = promote(wrapped, scalarType(o));
            }
        }
        DType r = combine(dim, combine(zero, wrapped));
        if (r == null) throw new IllegalArgumentException("result_type: no operands");
        return r;
    }

    /** The dtype a lone Java scalar stands for: floating → default dtype, integral → int64, boolean → bool. */
    public static DType scalarType(Object scalar) {
        if (scalar instanceof Boolean) return DType.BOOL;
        if (scalar instanceof Double || scalar instanceof Float) return Defaults.dtype();
        if (scalar instanceof Number) return DType.INT64;
        throw new IllegalArgumentException("not a scalar: " + scalar);
    }

    /** Floating result for ops that always produce one (true division, exp, mean, …): integral inputs go to the default dtype. */
    public static DType toFloating(DType d) {
        return d.isFloatingPoint() ? d : Defaults.dtype();
    }

    private static DType promote(DType a, DType b) {
        return a == null ? b : DType.promote(a, b);
    }

    private static DType combine(DType higher, DType lower) {
        if (higher == null) return lower;
        if (lower == null) return higher;
        if (higher.isFloatingPoint()) return higher;
        if (higher == DType.BOOL || lower.isFloatingPoint()) return DType.promote(higher, lower);
        return higher;
    }
}
