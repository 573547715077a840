package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Gaussian error linear unit, as PyTorch's {@code nn.GELU}: exact ({@code "none"}) or the {@code "tanh"} approximation. */
public class GELU extends Module {
    public final String approximate;

    public GELU() { this("none"); }

    public GELU(String approximate) {
        if (!approximate.equals("none") && !approximate.equals("tanh")) {
            throw new IllegalArgumentException("GELU: approximate must be 'none' or 'tanh', got '" + approximate + "'");
        }
        this.approximate = approximate;
    }

    @Override
    public Tensor forward(Tensor input) { return F.gelu(input, approximate); }

    @Override
    protected String extraRepr() { return "approximate=" + Repr.str(approximate); }
}
