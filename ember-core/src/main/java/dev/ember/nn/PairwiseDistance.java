package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** The p-norm of {@code x1 − x2 + eps} over the last dim, as PyTorch's {@code nn.PairwiseDistance} (p 2, eps 1e-6); see {@link F#pairwiseDistance}. */
public class PairwiseDistance extends Module {
    public final double p;
    public final double eps;
    public final boolean keepdim;

    public PairwiseDistance() { this(2.0, 1e-6, false); }

    public PairwiseDistance(double p, double eps, boolean keepdim) {
        this.p = p;
        this.eps = eps;
        this.keepdim = keepdim;
    }

    public Tensor forward(Tensor x1, Tensor x2) { return F.pairwiseDistance(x1, x2, p, eps, keepdim); }
}
