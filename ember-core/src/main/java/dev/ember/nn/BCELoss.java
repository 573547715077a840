package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Binary cross entropy of probabilities against targets in [0, 1], as PyTorch's {@code nn.BCELoss}:
 * optional per-element {@code weight} (a buffer), {@code reduction} "mean" (default), "sum" or "none".
 */
public class BCELoss extends Module {
    public Tensor weight;
    public final String reduction;

    public BCELoss() { this(null, "mean"); }

    public BCELoss(Tensor weight, String reduction) {
        this.weight = weight;
        this.reduction = reduction;
    }

    public Tensor forward(Tensor input, Tensor target) { return F.binaryCrossEntropy(input, target, read("weight", weight), reduction); }
}
