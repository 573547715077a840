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
    public final boolean returnIndices;

    public AdaptiveMaxPool3d(int outputSize) { this(Conv3d.triple(outputSize), true, false); }

    /** {@code outputSize} is {depth, height, width}. */
    public AdaptiveMaxPool3d(int[] outputSize) { this(outputSize, false, false); }

    /** {@code returnIndices} is shown in the printed form, as PyTorch's; the indices come from {@link #forwardWithIndices}. */
    public AdaptiveMaxPool3d(int[] outputSize, boolean returnIndices) { this(outputSize, false, returnIndices); }

    private AdaptiveMaxPool3d(int[] outputSize, boolean givenAsInt, boolean returnIndices) {
        if (outputSize.length != 3) throw new IllegalArgumentException("AdaptiveMaxPool3d: output_size must have 3 entries {depth, height, width}, got " + outputSize.length);
        this.outputSize = outputSize.clone();
        this.givenAsInt = givenAsInt;
        this.returnIndices = returnIndices;
    }

    @Override
    public Tensor forward(Tensor input) { return F.adaptiveMaxPool3d(input, outputSize); }

    /** The pooled values and the int64 index of each maximum in its channel's flattened D·H·W. */
    public List<Tensor> forwardWithIndices(Tensor input) { return F.adaptiveMaxPool3dWithIndices(input, outputSize); }

    @Override
    protected String extraRepr() { return "output_size=" + Repr.intOrTuple(outputSize, givenAsInt) + ", return_indices=" + (returnIndices ? "True" : "False"); }
}
