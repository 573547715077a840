package dev.ember.nn;

/**
 * Nearest-neighbour 2-d upsampling, as PyTorch's {@code nn.UpsamplingNearest2d}: an
 * {@link Upsample} with mode "nearest" (PyTorch keeps the class for old code; it prints as one).
 */
public class UpsamplingNearest2d extends Upsample {
    /** {@code size} ({height, width}, or one number for both) or {@code scaleFactor}, the other null. */
    public UpsamplingNearest2d(int[] size, double[] scaleFactor) { super(size, scaleFactor, "nearest", null); }

    public UpsamplingNearest2d(double scaleFactor) { this(null, new double[] {scaleFactor}); }
}
