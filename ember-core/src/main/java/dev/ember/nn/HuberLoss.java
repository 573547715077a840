package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Huber loss, as PyTorch's {@code nn.HuberLoss}: {@code reduction} "mean" (default), "sum" or "none", {@code delta} (1.0). */
public class HuberLoss extends Module {
    public final String reduction;
    public final double delta;

    public HuberLoss() { this("mean", 1.0); }

    public HuberLoss(String reduction, double delta) {
        this.reduction = reduction;
        this.delta = delta;
    }

    public Tensor forward(Tensor input, Tensor target) { return F.huberLoss(input, target, reduction, delta); }
}
