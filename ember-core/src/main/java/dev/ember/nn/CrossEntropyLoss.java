package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Cross entropy of logits against class indices or class probabilities, as PyTorch's
 * {@code nn.CrossEntropyLoss}: optional per-class {@code weight}, {@code reduction} "mean" (default),
 * "sum" or "none", {@code ignoreIndex} (-100) and {@code labelSmoothing} (0).
 */
public class CrossEntropyLoss extends Module {
    /** Null for none; a buffer (a tensor field), as PyTorch registers it. */
    public Tensor weight;
    public final String reduction;
    public final int ignoreIndex;
    public final double labelSmoothing;

    public CrossEntropyLoss() { this(null, "mean", -100, 0.0); }

    public CrossEntropyLoss(Tensor weight, String reduction, int ignoreIndex, double labelSmoothing) {
        this.weight = weight;
        this.reduction = reduction;
        this.ignoreIndex = ignoreIndex;
        this.labelSmoothing = labelSmoothing;
    }

    public Tensor forward(Tensor input, Tensor target) { return F.crossEntropy(input, target, read("weight", weight), reduction, ignoreIndex, labelSmoothing); }
}
