package dev.ember.ops;

import dev.ember.ops.eager.NllLoss;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;

/**
 * cross_entropy_loss as ATen composes it, op for op: log_softmax over the class dimension (0 for
 * an unbatched input, else 1), then nll_loss_nd for class-index targets — blended with the mean
 * negative log-probability when label smoothing is on — or, for class-probability targets (the
 * target has the input's shape), the negated probability-weighted sum. Written against an
 * {@link OpEmitter}: it is cross_entropy_loss's kernel (eagerly) and its decomposition, through
 * which autograd differentiates it.
 */
final class CrossEntropy {
    private CrossEntropy() {}

    static Object loss(OpEmitter e, Object self, Object target, Object weight, int reduction, long ignoreIndex, double labelSmoothing) {
        TensorMeta in = e.meta(self);
        int classDim = in.dim() == 1 ? 0 : 1;
        Object logProbs = e.call(ReductionOps.LOG_SOFTMAX, self, (long) classDim, false);
        if (Arrays.equals(in.shape(), e.meta(target).shape())) return probabilityTargets(e, logProbs, target, weight, reduction, classDim, labelSmoothing);
        Object nll = e.call(LossOps.NLL_LOSS_ND, logProbs, target, weight, (long) reduction, ignoreIndex);
        if (labelSmoothing <= 0) return nll;
        Object smooth = smoothing(e, logProbs, target, weight, reduction, ignoreIndex, classDim);
        return e.call(PointwiseOps.ADD_TENSOR, e.call(PointwiseOps.MUL_SCALAR, nll, 1 - labelSmoothing),
                e.call(PointwiseOps.MUL_SCALAR, smooth, labelSmoothing / in.shape()[classDim]));
    }

    /** The label-smoothing term: minus the (weighted) sum of log-probabilities over classes, ignored targets zeroed, then reduced. */
    private static Object smoothing(OpEmitter e, Object logProbs, Object target, Object weight, int reduction, long ignoreIndex, int classDim) {
        Object ignored = e.call(PointwiseOps.EQ_SCALAR, target, ignoreIndex);
        Object weighted = weight == null ? logProbs : e.call(PointwiseOps.MUL_TENSOR, logProbs, classShaped(e, weight, e.meta(logProbs).dim(), classDim));
        Object perSample = e.call(PointwiseOps.NEG, e.call(ReductionOps.SUM_DIM, weighted, new int[] {classDim}, false));
        perSample = e.call(PointwiseOps.MASKED_FILL_SCALAR, perSample, ignored, 0.0);
        return switch (reduction) {
            case NllLoss.MEAN -> {
                // ATen divides by the weights of the targets counted (or by their number)
                Object denominator;
                if (weight == null) {
                    denominator = e.call(ReductionOps.SUM, e.call(PointwiseOps.LOGICAL_NOT, ignored));
                } else {
                    Object safeTargets = e.call(ShapeOps.RESHAPE, e.call(PointwiseOps.MASKED_FILL_SCALAR, target, ignored, 0.0), new int[] {-1});
                    Object picked = e.call(IndexingOps.INDEX_SELECT, weight, 0L, safeTargets);
                    denominator = e.call(ReductionOps.SUM, e.call(PointwiseOps.MASKED_FILL_SCALAR, picked, e.call(ShapeOps.RESHAPE, ignored, new int[] {-1}), 0.0));
                }
                yield e.call(PointwiseOps.DIV_TENSOR, e.call(ReductionOps.SUM, perSample), denominator);
            }
            case NllLoss.SUM -> e.call(ReductionOps.SUM, perSample);
            default -> perSample;
        };
    }

    private static Object probabilityTargets(OpEmitter e, Object logProbs, Object target, Object weight, int reduction, int classDim, double labelSmoothing) {
        TensorMeta lp = e.meta(logProbs);
        int classes = lp.dim() == 0 ? 1 : lp.shape()[classDim];
        Object t = labelSmoothing > 0
                ? e.call(PointwiseOps.ADD_SCALAR, e.call(PointwiseOps.MUL_SCALAR, target, 1 - labelSmoothing), labelSmoothing / classes)
                : target;
        Object product = e.call(PointwiseOps.MUL_TENSOR, logProbs, t);
        if (weight != null) product = e.call(PointwiseOps.MUL_TENSOR, product, lp.dim() > 1 ? classShaped(e, weight, lp.dim(), classDim) : weight);
        return switch (reduction) {
            case NllLoss.MEAN -> {
                Object negSum = e.call(PointwiseOps.NEG, e.call(ReductionOps.SUM, product));
                yield lp.numel() == 0 ? e.call(PointwiseOps.MUL_SCALAR, negSum, Double.NaN)
                        : e.call(PointwiseOps.DIV_SCALAR, negSum, (double) (lp.numel() / classes));
            }
            case NllLoss.SUM -> e.call(PointwiseOps.NEG, e.call(ReductionOps.SUM, product));
            default -> e.call(PointwiseOps.NEG, e.call(ReductionOps.SUM_DIM, product, new int[] {classDim}, false));
        };
    }

    /** The class weights viewed to broadcast along the class dimension of an input of {@code dims} dimensions. */
    private static Object classShaped(OpEmitter e, Object weight, int dims, int classDim) {
        int[] shape = new int[dims];
        Arrays.fill(shape, 1);
        shape[classDim] = e.meta(weight).shape()[0];
        return e.call(ShapeOps.VIEW, weight, shape);
    }
}
