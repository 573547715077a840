package dev.ember.nn;

import dev.ember.tensor.Tensor;

import java.util.List;

/**
 * Max pooling of {@code [N, C, L]} (or {@code [C, L]}) to a fixed length, as PyTorch's
 * {@code nn.AdaptiveMaxPool1d}; {@link #forwardWithIndices} gives the indices of the maxima too.
 */
public class AdaptiveMaxPool1d extends Module {
    public final int outputSize;
    public final boolean returnIndices;

    public AdaptiveMaxPool1d(int outputSize) { this(outputSize, false); }

    /** {@code returnIndices} is shown in the printed form, as PyTorch's; the indices come from {@link #forwardWithIndices}. */
    public AdaptiveMaxPool1d(int outputSize, boolean returnIndices) {
        this.outputSize = outputSize;
        this.returnIndices = returnIndices;
    }

    @Override
    public Tensor forward(Tensor input) { return F.adaptiveMaxPool1d(input, outputSize); }

    /** The pooled values and the int64 index of each maximum along L. */
    public List<Tensor> forwardWithIndices(Tensor input) { return F.adaptiveMaxPool1dWithIndices(input, outputSize); }

    @Override
    protected String extraRepr() { return "output_size=" + outputSize + ", return_indices=" + (returnIndices ? "True" : "False"); }
}
