package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Multi-label one-versus-all logistic loss, as PyTorch's {@code nn.MultiLabelSoftMarginLoss}: optional per-class {@code weight} (a buffer); see {@link F#multilabelSoftMarginLoss}. */
public class MultiLabelSoftMarginLoss extends Module {
    public Tensor weight;
    public final String reduction;

    public MultiLabelSoftMarginLoss() { this(null, "mean"); }

    public MultiLabelSoftMarginLoss(Tensor weight, String reduction) {
        this.weight = weight;
        this.reduction = reduction;
    }

    public Tensor forward(Tensor input, Tensor target) { return F.multilabelSoftMarginLoss(input, target, read("weight", weight), reduction); }
}
