package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Average pooling to a fixed output size {@code [H_out, W_out]}, as PyTorch's {@code nn.AdaptiveAvgPool2d}. */
public class AdaptiveAvgPool2d extends Module {
    private final int[] outputSize;
    private final boolean givenAsInt;

    public AdaptiveAvgPool2d(int outputSize) { this(Conv2d.pair(outputSize), true); }

    /** {@code outputSize} is {height, width}. */
    public AdaptiveAvgPool2d(int[] outputSize) { this(outputSize, false); }

    private AdaptiveAvgPool2d(int[] outputSize, boolean givenAsInt) {
        if (outputSize.length != 2) throw new IllegalArgumentException("AdaptiveAvgPool2d: output_size must have 2 entries {height, width}, got " + outputSize.length);
        this.outputSize = outputSize.clone();
        this.givenAsInt = givenAsInt;
    }

    @Override
    public Tensor forward(Tensor input) { return F.adaptiveAvgPool2d(input, outputSize); }

    @Override
    protected String extraRepr() { return "output_size=" + Repr.intOrTuple(outputSize, givenAsInt); }
}
