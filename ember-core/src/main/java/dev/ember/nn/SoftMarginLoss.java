package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code log(1 + exp(−y·x))} for targets ±1, as PyTorch's {@code nn.SoftMarginLoss}; see {@link F#softMarginLoss}. */
public class SoftMarginLoss extends Module {
    public final String reduction;

    public SoftMarginLoss() { this("mean"); }

    public SoftMarginLoss(String reduction) { this.reduction = reduction; }

    public Tensor forward(Tensor input, Tensor target) { return F.softMarginLoss(input, target, reduction); }
}
