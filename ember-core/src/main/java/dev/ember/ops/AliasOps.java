package dev.ember.ops;

/**
 * ATen's alias ops: NumPy's and the Array API's names for ops Ember defines under ATen's own
 * ({@code arccos} is {@code acos}, {@code clip} is {@code clamp}, {@code divide} is {@code div},
 * {@code concat} is {@code cat}, {@code swapdims} is {@code transpose}, …). Each is its own op in
 * ATen's table, so a graph names what the program called; each is defined by its target alone, so
 * it computes, differentiates, decomposes and compiles exactly as the target does. Their in-place
 * forms ({@code arccos_}, {@code clip_}, …) are the targets' in-place ops, as ATen's
 * CompositeImplicit in-place aliases call them.
 */
public final class AliasOps {
    private AliasOps() {}

    private static OpOverload alias(String schema, OpOverload target) {
        return ComposedOps.define(schema, (e, a) -> e.call(target, a));
    }

    // ------------------------------------------------------------------ pointwise

    public static final OpOverload ABSOLUTE = alias("absolute(Tensor self) -> Tensor", PointwiseOps.ABS);
    public static final OpOverload NEGATIVE = alias("negative(Tensor self) -> Tensor", PointwiseOps.NEG);
    public static final OpOverload FIX = alias("fix(Tensor self) -> Tensor", PointwiseOps.TRUNC);
    public static final OpOverload ARCCOS = alias("arccos(Tensor self) -> Tensor", PointwiseOps.ACOS);
    public static final OpOverload ARCCOSH = alias("arccosh(Tensor self) -> Tensor", PointwiseOps.ACOSH);
    public static final OpOverload ARCSIN = alias("arcsin(Tensor self) -> Tensor", PointwiseOps.ASIN);
    public static final OpOverload ARCSINH = alias("arcsinh(Tensor self) -> Tensor", PointwiseOps.ASINH);
    public static final OpOverload ARCTAN = alias("arctan(Tensor self) -> Tensor", PointwiseOps.ATAN);
    public static final OpOverload ARCTANH = alias("arctanh(Tensor self) -> Tensor", PointwiseOps.ATANH);
    public static final OpOverload ARCTAN2 = alias("arctan2(Tensor self, Tensor other) -> Tensor", PointwiseOps.ATAN2);

    public static final OpOverload CLIP = alias("clip(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", PointwiseOps.CLAMP);
    public static final OpOverload CLIP_TENSOR = alias("clip.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", PointwiseOps.CLAMP_TENSOR);

    public static final OpOverload SUBTRACT_TENSOR = alias("subtract.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", PointwiseOps.SUB_TENSOR);
    public static final OpOverload SUBTRACT_SCALAR = alias("subtract.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", PointwiseOps.SUB_SCALAR);
    public static final OpOverload MULTIPLY_TENSOR = alias("multiply.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOps.MUL_TENSOR);
    public static final OpOverload MULTIPLY_SCALAR = alias("multiply.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOps.MUL_SCALAR);
    public static final OpOverload DIVIDE_TENSOR = alias("divide.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOps.DIV_TENSOR);
    public static final OpOverload DIVIDE_SCALAR = alias("divide.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOps.DIV_SCALAR);
    public static final OpOverload DIVIDE_TENSOR_MODE = alias("divide.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
            PointwiseOps.DIV_TENSOR_MODE);
    public static final OpOverload DIVIDE_SCALAR_MODE = alias("divide.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor",
            PointwiseOps.DIV_SCALAR_MODE);

    public static final OpOverload GREATER_TENSOR = alias("greater.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOps.GT_TENSOR);
    public static final OpOverload GREATER_SCALAR = alias("greater.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOps.GT_SCALAR);
    public static final OpOverload GREATER_EQUAL_TENSOR = alias("greater_equal.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOps.GE_TENSOR);
    public static final OpOverload GREATER_EQUAL_SCALAR = alias("greater_equal.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOps.GE_SCALAR);
    public static final OpOverload LESS_TENSOR = alias("less.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOps.LT_TENSOR);
    public static final OpOverload LESS_SCALAR = alias("less.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOps.LT_SCALAR);
    public static final OpOverload LESS_EQUAL_TENSOR = alias("less_equal.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOps.LE_TENSOR);
    public static final OpOverload LESS_EQUAL_SCALAR = alias("less_equal.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOps.LE_SCALAR);
    public static final OpOverload NOT_EQUAL_TENSOR = alias("not_equal.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOps.NE_TENSOR);
    public static final OpOverload NOT_EQUAL_SCALAR = alias("not_equal.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOps.NE_SCALAR);

    // ------------------------------------------------------------------ shape and products

    public static final OpOverload CONCAT = alias("concat(Tensor[] tensors, int dim=0) -> Tensor", ShapeOps.CAT);
    public static final OpOverload CONCATENATE = alias("concatenate(Tensor[] tensors, int dim=0) -> Tensor", ShapeOps.CAT);
    public static final OpOverload ROW_STACK = alias("row_stack(Tensor[] tensors) -> Tensor", ShapeOps.VSTACK);
    public static final OpOverload SWAPDIMS = alias("swapdims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", ShapeOps.TRANSPOSE);
    public static final OpOverload MOVEAXIS = alias("moveaxis.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)", ShapeOps.MOVEDIM);
    public static final OpOverload MOVEAXIS_INT = ComposedOps.define("moveaxis.int(Tensor(a) self, int source, int destination) -> Tensor(a)",
            (e, a) -> e.call(ShapeOps.MOVEDIM, a[0], new int[] {((Number) a[1]).intValue()}, new int[] {((Number) a[2]).intValue()}));
    public static final OpOverload GER = alias("ger(Tensor self, Tensor vec2) -> Tensor", LinalgOps.OUTER);
}
