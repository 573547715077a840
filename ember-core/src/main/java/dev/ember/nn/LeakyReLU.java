package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code x > 0 ? x : negativeSlope·x}, as PyTorch's {@code nn.LeakyReLU} (slope 0.01). */
public class LeakyReLU extends Module {
    public final double negativeSlope;

    public LeakyReLU() { this(0.01); }

    public LeakyReLU(double negativeSlope) { this.negativeSlope = negativeSlope; }

    @Override
    public Tensor forward(Tensor input) { return F.leakyRelu(input, negativeSlope); }

    @Override
    protected String extraRepr() { return "negative_slope=" + Repr.number(negativeSlope); }
}
