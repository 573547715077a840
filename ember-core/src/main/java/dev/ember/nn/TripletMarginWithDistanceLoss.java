package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code max(0, margin + d(a, p) − d(a, n))} with any distance function, as PyTorch's {@code nn.TripletMarginWithDistanceLoss} (pairwise distance, margin 1, no swap); see {@link F#tripletMarginWithDistanceLoss}. */
public class TripletMarginWithDistanceLoss extends Module {
    /** Null: {@link F#pairwiseDistance(Tensor, Tensor)}. */
    public final java.util.function.BinaryOperator<Tensor> distanceFunction;
    public final double margin;
    public final boolean swap;
    public final String reduction;

    public TripletMarginWithDistanceLoss() { this(null, 1.0, false, "mean"); }

    public TripletMarginWithDistanceLoss(java.util.function.BinaryOperator<Tensor> distanceFunction, double margin, boolean swap, String reduction) {
        if (!(margin > 0)) throw new IllegalArgumentException("TripletMarginWithDistanceLoss: expected margin to be greater than 0, got " + margin + " instead");
        this.distanceFunction = distanceFunction;
        this.margin = margin;
        this.swap = swap;
        this.reduction = reduction;
    }

    public Tensor forward(Tensor anchor, Tensor positive, Tensor negative) {
        return F.tripletMarginWithDistanceLoss(anchor, positive, negative, distanceFunction, margin, swap, reduction);
    }
}
