package dev.ember.ops;

import dev.ember.tensor.DType;

/**
 * ATen's internal softmax ops that decomposed graphs and attention call by name:
 * {@code _softmax_backward_data} (softmax's gradient from its output) and {@code _safe_softmax}
 * (softmax where a row that is all −∞ gives zeros, not NaN: attention with every key masked).
 */
public final class SoftmaxInternalOps {
    private SoftmaxInternalOps() {}

    /** {@code output · (grad_output − Σ_dim grad_output · output)}, in input_dtype. */
    public static final OpOverload SOFTMAX_BACKWARD_DATA = ComposedOps.define(
            "_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor",
            (e, a) -> {
                Object grad = a[0], y = a[1];
                if (e.meta(y).dim() == 0) return e.call(CreationOps.ZEROS, new int[0], (DType) a[3]);
                int[] dim = {Composites.wrap(e, y, a[2])};
                Object sum = e.call(ReductionOps.SUM_DIM, e.call(PointwiseOps.MUL_TENSOR, grad, y), dim, true);
                Object gradInput = e.call(PointwiseOps.MUL_TENSOR, y, e.call(PointwiseOps.SUB_TENSOR, grad, sum));
                return e.meta(gradInput).dtype() == a[3] ? gradInput : e.call(ShapeOps.TO_COPY, gradInput, a[3]);
            });

    public static final OpOverload SAFE_SOFTMAX = ComposedOps.define("_safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
            (e, a) -> {
                Object out = e.call(ReductionOps.SOFTMAX_INT, a[0], a[1], a[2]);
                Object maskedRows = e.call(ReductionOps.ALL_DIM, e.call(PointwiseOps.EQ_SCALAR, a[0], Double.NEGATIVE_INFINITY), a[1], true);
                return e.call(PointwiseOps.MASKED_FILL_SCALAR, out, maskedRows, 0.0);
            });
}
