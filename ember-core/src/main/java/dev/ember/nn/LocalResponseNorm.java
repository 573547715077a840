package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Local response normalization across channels, as PyTorch's {@code nn.LocalResponseNorm}
 * ({@link F#localResponseNorm}): {@code x / (k + alpha/size · Σ x²)^beta}, the sum over the
 * {@code size} neighbouring channels. No parameters.
 */
public class LocalResponseNorm extends Module {
    public final int size;
    public final double alpha, beta, k;

    /** PyTorch's defaults: {@code alpha=1e-4, beta=0.75, k=1}. */
    public LocalResponseNorm(int size) { this(size, 1e-4, 0.75, 1.0); }

    public LocalResponseNorm(int size, double alpha, double beta, double k) {
        this.size = size;
        this.alpha = alpha;
        this.beta = beta;
        this.k = k;
    }

    @Override
    public Tensor forward(Tensor input) { return F.localResponseNorm(input, size, alpha, beta, k); }

    @Override
    protected String extraRepr() { return size + ", alpha=" + Repr.number(alpha) + ", beta=" + Repr.number(beta) + ", k=" + Repr.number(k); }
}
