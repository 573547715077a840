package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Average pooling to a fixed output size {@code [H_out, W_out]}, as PyTorch's {@code nn.AdaptiveAvgPool2d}. */
public class AdaptiveAvgPool2d extends Module {
    private final int[] outputSize;
    private final boolean givenAsInt;
    /** Which output_size entries are None (keep the input's size); null when none is. */
    private final boolean[] none;

    public AdaptiveAvgPool2d(int outputSize) { this(Conv2d.pair(outputSize), true); }

    /** {@code outputSize} is {height, width}. */
    public AdaptiveAvgPool2d(int[] outputSize) { this(outputSize, false); }

    /** torch's {@code output_size} with None entries, as {@code (3, null)}: a null keeps that dimension of the input. */
    public AdaptiveAvgPool2d(Integer... outputSize) { this(AdaptiveOutputSize.sizes(outputSize), AdaptiveOutputSize.noneMask(outputSize), false); }

    private AdaptiveAvgPool2d(int[] outputSize, boolean givenAsInt) { this(outputSize, null, givenAsInt); }

    private AdaptiveAvgPool2d(int[] outputSize, boolean[] none, boolean givenAsInt) {
        if (outputSize.length != 2) throw new IllegalArgumentException("AdaptiveAvgPool2d: output_size must have 2 entries {height, width}, got " + outputSize.length);
        this.outputSize = outputSize.clone();
        this.givenAsInt = givenAsInt;
        this.none = none == null ? null : none.clone();
    }

    @Override
    public Tensor forward(Tensor input) { return F.adaptiveAvgPool2d(input, AdaptiveOutputSize.resolve(outputSize, none, input)); }

    @Override
    protected String extraRepr() { return "output_size=" + AdaptiveOutputSize.repr(outputSize, none, givenAsInt); }
}
