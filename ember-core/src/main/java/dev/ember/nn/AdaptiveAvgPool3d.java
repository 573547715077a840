package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Average pooling to a fixed output size {@code [D_out, H_out, W_out]}, as PyTorch's {@code nn.AdaptiveAvgPool3d}. */
public class AdaptiveAvgPool3d extends Module {
    private final int[] outputSize;
    private final boolean givenAsInt;

    public AdaptiveAvgPool3d(int outputSize) { this(Conv3d.triple(outputSize), true); }

    /** {@code outputSize} is {depth, height, width}. */
    public AdaptiveAvgPool3d(int[] outputSize) { this(outputSize, false); }

    private AdaptiveAvgPool3d(int[] outputSize, boolean givenAsInt) {
        if (outputSize.length != 3) throw new IllegalArgumentException("AdaptiveAvgPool3d: output_size must have 3 entries {depth, height, width}, got " + outputSize.length);
        this.outputSize = outputSize.clone();
        this.givenAsInt = givenAsInt;
    }

    @Override
    public Tensor forward(Tensor input) { return F.adaptiveAvgPool3d(input, outputSize); }

    @Override
    protected String extraRepr() { return "output_size=" + Repr.intOrTuple(outputSize, givenAsInt); }
}
