package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Mean absolute error, as PyTorch's {@code nn.L1Loss}: {@code reduction} "mean" (default), "sum" or "none". */
public class L1Loss extends Module {
    public final String reduction;

    public L1Loss() { this("mean"); }

    public L1Loss(String reduction) { this.reduction = reduction; }

    public Tensor forward(Tensor input, Tensor target) { return F.l1Loss(input, target, reduction); }
}
