package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * {@link Conv2d} whose {@code in_channels} is taken from its first input, as PyTorch's
 * {@code nn.LazyConv2d} (the channel dim of a batched or unbatched input); until then it has no
 * weight or bias. Loading a state dict before the first call materializes it from the saved weight.
 */
public class LazyConv2d extends Conv2d {
    private final boolean hasBias;
    private boolean materialized;

    public LazyConv2d(int outChannels, int kernelSize) { this(outChannels, kernelSize, 1, 0, 1, 1, true, "zeros"); }

    public LazyConv2d(int outChannels, int kernelSize, int stride, int padding, int dilation, int groups, boolean bias, String paddingMode) {
        super(groups, outChannels, ConvNd.repeat(kernelSize, 2), ConvNd.repeat(stride, 2), ConvNd.repeat(padding, 2), ConvNd.repeat(dilation, 2), groups, bias, paddingMode);
        this.hasBias = bias;
        awaitFirstInput();
    }

    /** torch's {@code padding='same'} or {@code 'valid'} ({@code nn.LazyConv2d(out, k, padding='same')}). */
    public LazyConv2d(int outChannels, int kernelSize, int stride, String padding, int dilation, int groups, boolean bias, String paddingMode) {
        super(groups, outChannels, ConvNd.repeat(kernelSize, 2), ConvNd.repeat(stride, 2), padding, ConvNd.repeat(dilation, 2), groups, bias, paddingMode);
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
        if (inChannels % groups != 0) throw new IllegalArgumentException("LazyConv2d: in_channels must be divisible by groups");
        LazyModules.adopt(this, paddingString() != null
                ? new Conv2d(inChannels, outChannels, kernelSize(), stride(), paddingString(), dilation(), groups, hasBias, paddingMode)
                : new Conv2d(inChannels, outChannels, kernelSize(), stride(), padding(), dilation(), groups, hasBias, paddingMode));
        this.inChannels = inChannels;
        materialized = true;
    }

    @Override
    public Tensor forward(Tensor input) {
        if (!materialized) materialize(LazyModules.convInChannels("LazyConv2d", 2, input));
        return super.forward(input);
    }
}
