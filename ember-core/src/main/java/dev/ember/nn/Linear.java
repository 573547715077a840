package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * {@code y = x @ weight.T + bias}, as PyTorch's {@code nn.Linear}: weight {@code [out, in]} and
 * bias {@code [out]} initialised uniform on ±1/sqrt(in_features).
 */
public class Linear extends Module {
    /** Set by {@link LazyLinear} when it materializes. */
    public int inFeatures;
    public final int outFeatures;
    public Parameter weight;
    /** Null when built with {@code bias = false}. */
    public Parameter bias;

    public Linear(int inFeatures, int outFeatures) { this(inFeatures, outFeatures, true); }

    public Linear(int inFeatures, int outFeatures, boolean bias) {
        if (inFeatures < 0 || outFeatures < 0) {
            throw new IllegalArgumentException("Linear: in_features and out_features must be non-negative, got " + inFeatures + " and " + outFeatures);
        }
        this.inFeatures = inFeatures;
        this.outFeatures = outFeatures;
        this.weight = new Parameter(Init.fanInUniform(inFeatures, outFeatures, inFeatures));
        this.bias = bias ? new Parameter(Init.fanInUniform(inFeatures, outFeatures)) : null;
    }

    @Override
    public Tensor forward(Tensor input) { return F.linear(input, read("weight", weight), read("bias", bias)); }

    @Override
    protected String extraRepr() {
        return "in_features=" + inFeatures + ", out_features=" + outFeatures + ", bias=" + Repr.bool(present("bias", bias));
    }
}
