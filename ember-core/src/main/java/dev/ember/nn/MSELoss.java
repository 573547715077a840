package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Mean squared error, as PyTorch's {@code nn.MSELoss}: {@code reduction} "mean" (default), "sum" or "none". */
public class MSELoss extends Module {
    public final String reduction;

    public MSELoss() { this("mean"); }

    public MSELoss(String reduction) { this.reduction = reduction; }

    public Tensor forward(Tensor input, Tensor target) { return F.mseLoss(input, target, reduction); }
}
