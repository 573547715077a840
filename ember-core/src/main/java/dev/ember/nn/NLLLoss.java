package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Negative log likelihood of log-probabilities against class indices, as PyTorch's
 * {@code nn.NLLLoss}: optional per-class {@code weight} (a buffer), {@code reduction} "mean"
 * (default), "sum" or "none", {@code ignoreIndex} (-100).
 */
public class NLLLoss extends Module {
    public Tensor weight;
    public final String reduction;
    public final int ignoreIndex;

    public NLLLoss() { this(null, "mean", -100); }

    public NLLLoss(Tensor weight, String reduction, int ignoreIndex) {
        this.weight = weight;
        this.reduction = reduction;
        this.ignoreIndex = ignoreIndex;
    }

    public Tensor forward(Tensor input, Tensor target) { return F.nllLoss(input, target, read("weight", weight), reduction, ignoreIndex); }
}
