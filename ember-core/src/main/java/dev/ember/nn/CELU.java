package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code max(0, x) + min(0, alpha · (e^(x/alpha) − 1))}, as PyTorch's {@code nn.CELU} (alpha 1). */
public class CELU extends Module {
    public final double alpha;

    public CELU() { this(1.0); }

    public CELU(double alpha) { this.alpha = alpha; }

    @Override
    public Tensor forward(Tensor input) { return F.celu(input, alpha); }

    @Override
    protected String extraRepr() { return "alpha=" + Repr.number(alpha); }
}
