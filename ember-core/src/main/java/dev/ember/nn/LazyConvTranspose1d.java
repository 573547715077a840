package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * {@link ConvTranspose1d} whose {@code in_channels} is taken from its first input, as PyTorch's
 * {@code nn.LazyConvTranspose1d} (the channel dim of a 3-d batched or 2-d unbatched input); until then it
 * has no weight or bias. Loading a state dict before the first call materializes it from the saved
 * weight ({@code [in, out/groups, k…]}: its first dim).
 */
public class LazyConvTranspose1d extends ConvTranspose1d {
    private final boolean hasBias;
    private boolean materialized;

    public LazyConvTranspose1d(int outChannels, int kernelSize) { this(outChannels, kernelSize, 1, 0, 0, 1, true, 1); }

    /** PyTorch's argument order: {@code (out_channels, kernel_size, stride, padding, output_padding, groups, bias, dilation)}. */
    public LazyConvTranspose1d(int outChannels, int kernelSize, int stride, int padding, int outputPadding, int groups, boolean bias, int dilation) {
        super(groups, outChannels, kernelSize, stride, padding, outputPadding, groups, bias, dilation);   // a placeholder in_channels, divisible by groups
        this.hasBias = bias;
        this.weight = null;
        this.bias = null;
        LazyModules.materializeFromStateDict(this, this::materialize, w -> w.shape()[0], () -> materialized);
    }

    /** Whether the first call (or a state dict) has given the layer its size and tensors. */
    public boolean isMaterialized() { return materialized; }

    private void materialize(int inChannels) {
        if (inChannels % groups != 0) throw new IllegalArgumentException("LazyConvTranspose1d: in_channels must be divisible by groups");
        LazyModules.adopt(this, new ConvTranspose1d(inChannels, outChannels, kernelSize, stride, padding, outputPadding, groups, hasBias, dilation));
        this.inChannels = inChannels;
        materialized = true;
    }

    @Override
    public Tensor forward(Tensor input) {
        if (!materialized) materialize(LazyModules.convInChannels("LazyConvTranspose1d", 1, input));
        return super.forward(input);
    }
}
