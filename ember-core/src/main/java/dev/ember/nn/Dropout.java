package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * In training, zeroes each element with probability {@code p} and scales the others by
 * 1/(1-p); in evaluation, the identity. As PyTorch's {@code nn.Dropout}.
 */
public class Dropout extends Module {
    public final double p;

    public Dropout() { this(0.5); }

    public Dropout(double p) {
        if (!(p >= 0 && p <= 1)) throw new IllegalArgumentException("dropout probability has to be between 0 and 1, but got " + p);
        this.p = p;
    }

    @Override
    public Tensor forward(Tensor input) { return F.dropout(input, p, isTraining()); }

    @Override
    protected String extraRepr() { return "p=" + Repr.number(p) + ", inplace=False"; }
}
