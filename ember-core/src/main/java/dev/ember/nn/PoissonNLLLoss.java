package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Poisson negative log likelihood, as PyTorch's {@code nn.PoissonNLLLoss} (logInput true, full false, eps 1e-8); see {@link F#poissonNllLoss}. */
public class PoissonNLLLoss extends Module {
    public final boolean logInput;
    public final boolean full;
    public final double eps;
    public final String reduction;

    public PoissonNLLLoss() { this(true, false, 1e-8, "mean"); }

    public PoissonNLLLoss(boolean logInput, boolean full, double eps, String reduction) {
        this.logInput = logInput;
        this.full = full;
        this.eps = eps;
        this.reduction = reduction;
    }

    public Tensor forward(Tensor logInput, Tensor target) { return F.poissonNllLoss(logInput, target, this.logInput, full, eps, reduction); }
}
