package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code max(0, -y · (x1 - x2) + margin)}, as PyTorch's {@code nn.MarginRankingLoss}: target 1 ranks x1 higher, -1 x2. */
public class MarginRankingLoss extends Module {
    public final double margin;
    public final String reduction;

    public MarginRankingLoss() { this(0.0, "mean"); }

    public MarginRankingLoss(double margin, String reduction) {
        this.margin = margin;
        this.reduction = reduction;
    }

    public Tensor forward(Tensor input1, Tensor input2, Tensor target) { return F.marginRankingLoss(input1, input2, target, margin, reduction); }
}
