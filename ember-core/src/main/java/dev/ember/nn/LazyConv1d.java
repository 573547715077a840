package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * {@link Conv1d} whose {@code in_channels} is taken from its first input, as PyTorch's
 * {@code nn.LazyConv1d} (the channel dim of a batched or unbatched input); until then it has no
 * weight or bias. Loading a state dict before the first call materializes it from the saved weight.
 */
public class LazyConv1d extends Conv1d {
    private final boolean hasBias;
    private boolean materialized;

    public LazyConv1d(int outChannels, int kernelSize) { this(outChannels, kernelSize, 1, 0, 1, 1, true, "zeros"); }

    public LazyConv1d(int outChannels, int kernelSize, int stride, int padding, int dilation, int groups, boolean bias, String paddingMode) {
        super(groups, outChannels, kernelSize, stride, padding, dilation, groups, bias, paddingMode);
        this.hasBias = bias;
        awaitFirstInput();
    }

    /** torch's {@code padding='same'} or {@code 'valid'} ({@code nn.LazyConv1d(out, k, padding='same')}). */
    public LazyConv1d(int outChannels, int kernelSize, int stride, String padding, int dilation, int groups, boolean bias, String paddingMode) {
        super(groups, outChannels, kernelSize, stride, padding, dilation, groups, bias, paddingMode);
        this.hasBias = bias;
        awaitFirstInput();
    }

    /** No tensors until the first input (or a loaded state dict) gives in_channels. */
    private void awaitFirstInput() {
        this.weight = null;
        this.bias = null;
        LazyModules.materializeFromStateDict(this, this::materialize, w -> w.shape()[1] * groups, () -> materialized);
    }

    /** Whether the first call (or a state dict) has given the layer its size and tensors. */
    public boolean isMaterialized() { return materialized; }

    private void materialize(int inChannels) {
        if (inChannels % groups != 0) throw new IllegalArgumentException("LazyConv1d: in_channels must be divisible by groups");
        LazyModules.adopt(this, paddingString() != null
                ? new Conv1d(inChannels, outChannels, kernelSize()[0], stride()[0], paddingString(), dilation()[0], groups, hasBias, paddingMode)
                : new Conv1d(inChannels, outChannels, kernelSize()[0], stride()[0], padding()[0], dilation()[0], groups, hasBias, paddingMode));
        this.inChannels = inChannels;
        materialized = true;
    }

    @Override
    public Tensor forward(Tensor input) {
        if (!materialized) materialize(LazyModules.convInChannels("LazyConv1d", 1, input));
        return super.forward(input);
    }
}
