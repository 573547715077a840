package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code |x| <= lambd ? 0 : x}, as PyTorch's {@code nn.Hardshrink} (lambd 0.5); see {@link F#hardshrink}. */
public class Hardshrink extends Module {
    public final double lambd;

    public Hardshrink() { this(0.5); }

    public Hardshrink(double lambd) { this.lambd = lambd; }

    @Override
    public Tensor forward(Tensor input) { return F.hardshrink(input, lambd); }

    @Override
    protected String extraRepr() { return Repr.number(lambd); }
}
