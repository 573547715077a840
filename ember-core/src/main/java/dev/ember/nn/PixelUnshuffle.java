package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code [*, C, H·r, W·r]} → {@code [*, C·r², H, W]}, as PyTorch's {@code nn.PixelUnshuffle}. */
public class PixelUnshuffle extends Module {
    public final int downscaleFactor;

    public PixelUnshuffle(int downscaleFactor) { this.downscaleFactor = downscaleFactor; }

    @Override
    public Tensor forward(Tensor input) { return F.pixelUnshuffle(input, downscaleFactor); }

    @Override
    protected String extraRepr() { return "downscale_factor=" + downscaleFactor; }
}
