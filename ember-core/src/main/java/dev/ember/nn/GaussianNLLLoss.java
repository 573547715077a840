package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Gaussian negative log likelihood of a target under predicted means and variances, as PyTorch's {@code nn.GaussianNLLLoss} (full false, eps 1e-6); see {@link F#gaussianNllLoss}. */
public class GaussianNLLLoss extends Module {
    public final boolean full;
    public final double eps;
    public final String reduction;

    public GaussianNLLLoss() { this(false, 1e-6, "mean"); }

    public GaussianNLLLoss(boolean full, double eps, String reduction) {
        this.full = full;
        this.eps = eps;
        this.reduction = reduction;
    }

    public Tensor forward(Tensor input, Tensor target, Tensor var) { return F.gaussianNllLoss(input, target, var, full, eps, reduction); }
}
