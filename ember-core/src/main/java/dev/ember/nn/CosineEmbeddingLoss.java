package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code 1 - cos(x1, x2)} for target 1, {@code max(0, cos(x1, x2) - margin)} for -1, as PyTorch's {@code nn.CosineEmbeddingLoss}. */
public class CosineEmbeddingLoss extends Module {
    public final double margin;
    public final String reduction;

    public CosineEmbeddingLoss() { this(0.0, "mean"); }

    public CosineEmbeddingLoss(double margin, String reduction) {
        this.margin = margin;
        this.reduction = reduction;
    }

    public Tensor forward(Tensor input1, Tensor input2, Tensor target) { return F.cosineEmbeddingLoss(input1, input2, target, margin, reduction); }
}
