package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Binary cross entropy of logits (a sigmoid folded in, stably), as PyTorch's
 * {@code nn.BCEWithLogitsLoss}: optional {@code weight} and {@code posWeight} (buffers),
 * {@code reduction} "mean" (default), "sum" or "none".
 */
public class BCEWithLogitsLoss extends Module {
    public Tensor weight;
    public Tensor posWeight;
    public final String reduction;

    public BCEWithLogitsLoss() { this(null, null, "mean"); }

    public BCEWithLogitsLoss(Tensor weight, Tensor posWeight, String reduction) {
        this.weight = weight;
        this.posWeight = posWeight;
        this.reduction = reduction;
    }

    public Tensor forward(Tensor input, Tensor target) { return F.binaryCrossEntropyWithLogits(input, target, read("weight", weight), read("pos_weight", posWeight), reduction); }
}
