package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Smooth L1 loss, as PyTorch's {@code nn.SmoothL1Loss}: {@code reduction} "mean" (default), "sum" or "none", {@code beta} (1.0). */
public class SmoothL1Loss extends Module {
    public final String reduction;
    public final double beta;

    public SmoothL1Loss() { this("mean", 1.0); }

    public SmoothL1Loss(String reduction, double beta) {
        this.reduction = reduction;
        this.beta = beta;
    }

    public Tensor forward(Tensor input, Tensor target) { return F.smoothL1Loss(input, target, reduction, beta); }
}
