package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * {@code x} where positive, {@code weight·x} elsewhere, as PyTorch's {@code nn.PReLU}: one learned
 * slope ({@code numParameters} 1, the default) or one per channel (dimension 1), initialised to
 * {@code init} (0.25).
 */
public class PReLU extends Module {
    public final int numParameters;
    public Parameter weight;

    public PReLU() { this(1, 0.25); }

    public PReLU(int numParameters, double init) {
        if (numParameters <= 0) throw new IllegalArgumentException("PReLU: num_parameters must be positive, got " + numParameters);
        this.numParameters = numParameters;
        this.weight = new Parameter(Tensor.full(init, numParameters));
    }

    @Override
    public Tensor forward(Tensor input) { return F.prelu(input, read("weight", weight)); }

    @Override
    protected String extraRepr() { return "num_parameters=" + numParameters; }
}
