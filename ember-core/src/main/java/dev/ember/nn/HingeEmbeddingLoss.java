package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code x} for target 1, {@code max(0, margin − x)} for −1, as PyTorch's {@code nn.HingeEmbeddingLoss} (margin 1); see {@link F#hingeEmbeddingLoss}. */
public class HingeEmbeddingLoss extends Module {
    public final double margin;
    public final String reduction;

    public HingeEmbeddingLoss() { this(1.0, "mean"); }

    public HingeEmbeddingLoss(double margin, String reduction) {
        this.margin = margin;
        this.reduction = reduction;
    }

    public Tensor forward(Tensor input, Tensor target) { return F.hingeEmbeddingLoss(input, target, margin, reduction); }
}
