package dev.ember.nn;

/**
 * Bilinear 2-d upsampling with the corners aligned, as PyTorch's {@code nn.UpsamplingBilinear2d}:
 * an {@link Upsample} with mode "bilinear" and {@code align_corners=True} (unlike
 * {@code Upsample(..., "bilinear")}, whose default leaves them unaligned).
 */
public class UpsamplingBilinear2d extends Upsample {
    /** {@code size} ({height, width}, or one number for both) or {@code scaleFactor}, the other null. */
    public UpsamplingBilinear2d(int[] size, double[] scaleFactor) { super(size, scaleFactor, "bilinear", true); }

    public UpsamplingBilinear2d(double scaleFactor) { this(null, new double[] {scaleFactor}); }
}
