package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code [*, C·r², H, W]} → {@code [*, C, H·r, W·r]}, as PyTorch's {@code nn.PixelShuffle} (sub-pixel upsampling). */
public class PixelShuffle extends Module {
    public final int upscaleFactor;

    public PixelShuffle(int upscaleFactor) { this.upscaleFactor = upscaleFactor; }

    @Override
    public Tensor forward(Tensor input) { return F.pixelShuffle(input, upscaleFactor); }

    @Override
    protected String extraRepr() { return "upscale_factor=" + upscaleFactor; }
}
