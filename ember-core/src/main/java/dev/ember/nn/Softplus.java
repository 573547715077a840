package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code log(1 + e^(beta·x)) / beta}, linear past {@code threshold}, as PyTorch's {@code nn.Softplus} (beta 1, threshold 20). */
public class Softplus extends Module {
    public final double beta;
    public final double threshold;

    public Softplus() { this(1.0, 20.0); }

    public Softplus(double beta, double threshold) {
        this.beta = beta;
        this.threshold = threshold;
    }

    @Override
    public Tensor forward(Tensor input) { return F.softplus(input, beta, threshold); }

    @Override
    protected String extraRepr() { return "beta=" + Repr.number(beta) + ", threshold=" + Repr.number(threshold); }
}
