package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * {@code max(0, margin + d(anchor, positive) - d(anchor, negative))} with the p-norm pairwise
 * distance, as PyTorch's {@code nn.TripletMarginLoss} (with {@code swap}, the negative's distance is
 * the smaller of d(anchor, negative) and d(positive, negative)).
 */
public class TripletMarginLoss extends Module {
    public final double margin;
    public final double p;
    public final double eps;
    public final boolean swap;
    public final String reduction;

    /** PyTorch's defaults: margin 1, p 2, eps 1e-6, no swap, mean. */
    public TripletMarginLoss() { this(1.0, 2, 1e-6, false, "mean"); }

    public TripletMarginLoss(double margin, double p, double eps, boolean swap, String reduction) {
        this.margin = margin;
        this.p = p;
        this.eps = eps;
        this.swap = swap;
        this.reduction = reduction;
    }

    public Tensor forward(Tensor anchor, Tensor positive, Tensor negative) { return F.tripletMarginLoss(anchor, positive, negative, margin, p, eps, swap, reduction); }
}
