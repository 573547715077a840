package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Average pooling to a fixed output size {@code [D_out, H_out, W_out]}, as PyTorch's {@code nn.AdaptiveAvgPool3d}. */
public class AdaptiveAvgPool3d extends Module {
    private final int[] outputSize;
    private final boolean givenAsInt;
    /** Which output_size entries are None (keep the input's size); null when none is. */
    private final boolean[] none;

    public AdaptiveAvgPool3d(int outputSize) { this(Conv3d.triple(outputSize), true); }

    /** {@code outputSize} is {depth, height, width}. */
    public AdaptiveAvgPool3d(int[] outputSize) { this(outputSize, false); }

    /** torch's {@code output_size} with None entries, as {@code (3, null)}: a null keeps that dimension of the input. */
    public AdaptiveAvgPool3d(Integer... outputSize) { this(AdaptiveOutputSize.sizes(outputSize), AdaptiveOutputSize.noneMask(outputSize), false); }

    private AdaptiveAvgPool3d(int[] outputSize, boolean givenAsInt) { this(outputSize, null, givenAsInt); }

    private AdaptiveAvgPool3d(int[] outputSize, boolean[] none, boolean givenAsInt) {
        if (outputSize.length != 3) throw new IllegalArgumentException("AdaptiveAvgPool3d: output_size must have 3 entries {depth, height, width}, got " + outputSize.length);
        this.outputSize = outputSize.clone();
        this.givenAsInt = givenAsInt;
        this.none = none == null ? null : none.clone();
    }

    @Override
    public Tensor forward(Tensor input) { return F.adaptiveAvgPool3d(input, AdaptiveOutputSize.resolve(outputSize, none, input)); }

    @Override
    protected String extraRepr() { return "output_size=" + AdaptiveOutputSize.repr(outputSize, none, givenAsInt); }
}
