package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Multi-label hinge loss over class-index targets ended by −1, as PyTorch's {@code nn.MultiLabelMarginLoss}; see {@link F#multilabelMarginLoss}. */
public class MultiLabelMarginLoss extends Module {
    public final String reduction;

    public MultiLabelMarginLoss() { this("mean"); }

    public MultiLabelMarginLoss(String reduction) { this.reduction = reduction; }

    public Tensor forward(Tensor input, Tensor target) { return F.multilabelMarginLoss(input, target, reduction); }
}
