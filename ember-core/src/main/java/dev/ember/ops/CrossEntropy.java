package dev.ember.ops;

import dev.ember.ops.kernels.NllLoss;
import dev.ember.tensor.Tensor;

import java.util.Arrays;

/**
 * cross_entropy_loss as ATen composes it, op for op: log_softmax over the class dimension (0 for
 * an unbatched input, else 1), then nll_loss_nd for class-index targets — blended with the mean
 * negative log-probability when label smoothing is on — or, for class-probability targets (the
 * target has the input's shape), the negated probability-weighted sum.
 */
final class CrossEntropy {
    private CrossEntropy() {}

    static Tensor loss(Tensor self, Tensor target, Tensor weight, int reduction, long ignoreIndex, double labelSmoothing) {
        int classDim = self.dim() == 1 ? 0 : 1;
        Tensor logProbs = self.logSoftmax(classDim);
        if (Arrays.equals(self.shape(), target.shape())) return probabilityTargets(logProbs, target, weight, reduction, classDim, labelSmoothing);
        Tensor nll = LossOps.NLL_LOSS_ND.callTensor(logProbs, target, weight, (long) reduction, ignoreIndex);
        if (labelSmoothing <= 0) return nll;
        return nll.mul(1 - labelSmoothing).add(smoothing(logProbs, target, weight, reduction, ignoreIndex, classDim).mul(labelSmoothing / self.size(classDim)));
    }

    /** The label-smoothing term: minus the (weighted) sum of log-probabilities over classes, ignored targets zeroed, then reduced. */
    private static Tensor smoothing(Tensor logProbs, Tensor target, Tensor weight, int reduction, long ignoreIndex, int classDim) {
        Tensor ignored = PointwiseOps.EQ_SCALAR.callTensor(target, ignoreIndex);
        Tensor perSample = (weight == null ? logProbs : logProbs.mul(classShaped(weight, logProbs.dim(), classDim))).sum(classDim, false).neg();
        perSample = perSample.maskedFill(ignored, 0.0);
        return switch (reduction) {
            case NllLoss.MEAN -> {
                Tensor counted = ignored.logicalNot();
                // ATen divides by the weights of the targets counted (or by their number)
                Tensor denominator = weight == null ? counted.sum()
                        : weight.indexSelect(0, target.maskedFill(ignored, 0.0).reshape(-1)).maskedFill(ignored.reshape(-1), 0.0).sum();
                yield perSample.sum().div(denominator);
            }
            case NllLoss.SUM -> perSample.sum();
            default -> perSample;
        };
    }

    private static Tensor probabilityTargets(Tensor logProbs, Tensor target, Tensor weight, int reduction, int classDim, double labelSmoothing) {
        int classes = logProbs.dim() == 0 ? 1 : logProbs.size(classDim);
        Tensor t = labelSmoothing > 0 ? target.mul(1 - labelSmoothing).add(labelSmoothing / classes) : target;
        Tensor product = logProbs.mul(t);
        if (weight != null) product = product.mul(logProbs.dim() > 1 ? classShaped(weight, logProbs.dim(), classDim) : weight);
        return switch (reduction) {
            case NllLoss.MEAN -> logProbs.numel() == 0 ? product.sum().neg().mul(Double.NaN)
                    : product.sum().neg().div((double) (logProbs.numel() / classes));
            case NllLoss.SUM -> product.sum().neg();
            default -> product.sum(classDim, false).neg();
        };
    }

    /** The class weights viewed to broadcast along the class dimension of an input of {@code dims} dimensions. */
    private static Tensor classShaped(Tensor weight, int dims, int classDim) {
        int[] shape = new int[dims];
        Arrays.fill(shape, 1);
        shape[classDim] = weight.size(0);
        return weight.view(shape);
    }
}
