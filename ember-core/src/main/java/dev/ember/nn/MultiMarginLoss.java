package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Multi-class hinge loss, as PyTorch's {@code nn.MultiMarginLoss} (p 1, margin 1): optional per-class {@code weight} (a buffer); see {@link F#multiMarginLoss}. */
public class MultiMarginLoss extends Module {
    public final int p;
    public final double margin;
    public Tensor weight;
    public final String reduction;

    public MultiMarginLoss() { this(1, 1.0, null, "mean"); }

    /** {@code p} is 1 or 2. */
    public MultiMarginLoss(int p, double margin, Tensor weight, String reduction) {
        if (p != 1 && p != 2) throw new IllegalArgumentException("MultiMarginLoss: only p == 1 and p == 2 supported");
        if (weight != null && weight.dim() != 1) throw new IllegalArgumentException("MultiMarginLoss: expected weight to be None or 1D tensor, got " + weight.dim() + "D instead");
        this.p = p;
        this.margin = margin;
        this.weight = weight;
        this.reduction = reduction;
    }

    public Tensor forward(Tensor input, Tensor target) { return F.multiMarginLoss(input, target, p, margin, read("weight", weight), reduction); }
}
