package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Randomized leaky ReLU, as PyTorch's {@code nn.RReLU}: in training each negative element gets a
 * slope drawn uniformly from {@code [lower, upper]}, in evaluation the mean slope
 * ({@link F#rrelu}).
 */
public class RReLU extends Module {
    public final double lower;
    public final double upper;

    /** PyTorch's defaults: lower 1/8, upper 1/3. */
    public RReLU() { this(1.0 / 8, 1.0 / 3); }

    public RReLU(double lower, double upper) {
        this.lower = lower;
        this.upper = upper;
    }

    @Override
    public Tensor forward(Tensor input) { return F.rrelu(input, lower, upper, isTraining()); }

    @Override
    protected String extraRepr() { return "lower=" + Repr.number(lower) + ", upper=" + Repr.number(upper); }
}
