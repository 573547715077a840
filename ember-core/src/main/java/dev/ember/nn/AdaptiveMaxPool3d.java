package dev.ember.nn;

import dev.ember.tensor.Tensor;

import java.util.List;

/**
 * Max pooling to a fixed output size {@code [D_out, H_out, W_out]}, as PyTorch's
 * {@code nn.AdaptiveMaxPool3d}; {@link #forwardWithIndices} gives the indices of the maxima too
 * (PyTorch's {@code return_indices=True}).
 */
public class AdaptiveMaxPool3d extends Module {
    private final int[] outputSize;
    private final boolean givenAsInt;
    /** Which output_size entries are None (keep the input's size); null when none is. */
    private final boolean[] none;
    public final boolean returnIndices;

    public AdaptiveMaxPool3d(int outputSize) { this(Conv3d.triple(outputSize), true, false); }

    /** {@code outputSize} is {depth, height, width}. */
    public AdaptiveMaxPool3d(int[] outputSize) { this(outputSize, false, false); }

    /** {@code returnIndices} is shown in the printed form, as PyTorch's; the indices come from {@link #forwardWithIndices}. */
    public AdaptiveMaxPool3d(int[] outputSize, boolean returnIndices) { this(outputSize, false, returnIndices); }

    /** torch's {@code output_size} with None entries, as {@code (3, null)}: a null keeps that dimension of the input. */
    public AdaptiveMaxPool3d(Integer... outputSize) { this(AdaptiveOutputSize.sizes(outputSize), AdaptiveOutputSize.noneMask(outputSize), false, false); }

    private AdaptiveMaxPool3d(int[] outputSize, boolean givenAsInt, boolean returnIndices) { this(outputSize, null, givenAsInt, returnIndices); }

    private AdaptiveMaxPool3d(int[] outputSize, boolean[] none, boolean givenAsInt, boolean returnIndices) {
        if (outputSize.length != 3) throw new IllegalArgumentException("AdaptiveMaxPool3d: output_size must have 3 entries {depth, height, width}, got " + outputSize.length);
        this.outputSize = outputSize.clone();
        this.givenAsInt = givenAsInt;
        this.none = none == null ? null : none.clone();
        this.returnIndices = returnIndices;
    }

    @Override
    public Tensor forward(Tensor input) { return F.adaptiveMaxPool3d(input, AdaptiveOutputSize.resolve(outputSize, none, input)); }

    /** The pooled values and the int64 index of each maximum in its channel's flattened D·H·W. */
    public List<Tensor> forwardWithIndices(Tensor input) { return F.adaptiveMaxPool3dWithIndices(input, AdaptiveOutputSize.resolve(outputSize, none, input)); }

    @Override
    protected String extraRepr() { return "output_size=" + AdaptiveOutputSize.repr(outputSize, none, givenAsInt) + ", return_indices=" + (returnIndices ? "True" : "False"); }
}
