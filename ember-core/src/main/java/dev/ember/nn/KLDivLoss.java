package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Kullback–Leibler divergence of log-probabilities {@code input} from {@code target}, as PyTorch's
 * {@code nn.KLDivLoss}: {@code reduction} "mean" (default), "batchmean", "sum" or "none";
 * {@code logTarget} when the target is itself given as log-probabilities.
 */
public class KLDivLoss extends Module {
    public final String reduction;
    public final boolean logTarget;

    public KLDivLoss() { this("mean", false); }

    public KLDivLoss(String reduction, boolean logTarget) {
        this.reduction = reduction;
        this.logTarget = logTarget;
    }

    public Tensor forward(Tensor input, Tensor target) { return F.klDiv(input, target, reduction, logTarget); }
}
