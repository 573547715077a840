package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code x} moved toward 0 by {@code lambd}, 0 within it, as PyTorch's {@code nn.Softshrink} (lambd 0.5); see {@link F#softshrink}. */
public class Softshrink extends Module {
    public final double lambd;

    public Softshrink() { this(0.5); }

    public Softshrink(double lambd) { this.lambd = lambd; }

    @Override
    public Tensor forward(Tensor input) { return F.softshrink(input, lambd); }

    @Override
    protected String extraRepr() { return Repr.number(lambd); }
}
