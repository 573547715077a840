package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Extracts sliding blocks as columns, as PyTorch's {@code nn.Unfold} ({@link F#unfold}):
 * {@code [N, C, H, W]} → {@code [N, C·kh·kw, L]}. Sizes are {@code {h, w}} or one number for both.
 */
public class Unfold extends Module {
    public final int[] kernelSize, dilation, padding, stride;

    /** PyTorch's defaults: dilation 1, padding 0, stride 1. */
    public Unfold(int kernelSize) { this(new int[] {kernelSize}, new int[] {1}, new int[] {0}, new int[] {1}); }

    public Unfold(int[] kernelSize, int[] dilation, int[] padding, int[] stride) {
        this.kernelSize = kernelSize.clone();
        this.dilation = dilation.clone();
        this.padding = padding.clone();
        this.stride = stride.clone();
    }

    @Override
    public Tensor forward(Tensor input) { return F.unfold(input, kernelSize, dilation, padding, stride); }

    @Override
    protected String extraRepr() { return Fold.sizes(kernelSize, dilation, padding, stride); }
}
