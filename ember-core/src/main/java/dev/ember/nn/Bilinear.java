package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * {@code y = x1ᵀ A x2 + b}, as PyTorch's {@code nn.Bilinear}: weight {@code [out, in1, in2]} and bias
 * {@code [out]}, both uniform on ±1/sqrt(in1) as PyTorch initialises them.
 */
public class Bilinear extends Module {
    public final int in1Features;
    public final int in2Features;
    public final int outFeatures;
    public Parameter weight;
    /** Null when built with {@code bias = false}. */
    public Parameter bias;

    public Bilinear(int in1Features, int in2Features, int outFeatures) { this(in1Features, in2Features, outFeatures, true); }

    public Bilinear(int in1Features, int in2Features, int outFeatures, boolean bias) {
        this.in1Features = in1Features;
        this.in2Features = in2Features;
        this.outFeatures = outFeatures;
        this.weight = new Parameter(Init.fanInUniform(in1Features, outFeatures, in1Features, in2Features));
        this.bias = bias ? new Parameter(Init.fanInUniform(in1Features, outFeatures)) : null;
    }

    public Tensor forward(Tensor input1, Tensor input2) { return F.bilinear(input1, input2, read("weight", weight), read("bias", bias)); }

    @Override
    protected String extraRepr() {
        return "in1_features=" + in1Features + ", in2_features=" + in2Features + ", out_features=" + outFeatures + ", bias=" + Repr.bool(present("bias", bias));
    }
}
