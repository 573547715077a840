package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Adaptive average pooling of {@code [N, C, L]} input to length {@code outputSize}, as PyTorch's {@code nn.AdaptiveAvgPool1d}. */
public class AdaptiveAvgPool1d extends Module {
    public final int outputSize;

    public AdaptiveAvgPool1d(int outputSize) { this.outputSize = outputSize; }

    @Override
    public Tensor forward(Tensor input) { return F.adaptiveAvgPool1d(input, outputSize); }

    @Override
    protected String extraRepr() { return "output_size=" + outputSize; }
}
