package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code x > 0 ? x : alpha·(e^x − 1)}, as PyTorch's {@code nn.ELU} (alpha 1). */
public class ELU extends Module {
    public final double alpha;

    public ELU() { this(1.0); }

    public ELU(double alpha) { this.alpha = alpha; }

    @Override
    public Tensor forward(Tensor input) { return F.elu(input, alpha); }

    @Override
    protected String extraRepr() { return "alpha=" + Repr.number(alpha); }
}
