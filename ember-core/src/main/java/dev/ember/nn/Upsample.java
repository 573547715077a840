package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Resizes the last 1 or 2 dims of its input to a size or by a scale factor, as PyTorch's
 * {@code nn.Upsample}: {@link F#interpolate} with mode "nearest" (the default), "linear" or "bilinear".
 */
public class Upsample extends Module {
    public final int[] size;
    public final double[] scaleFactor;
    public final String mode;
    public final Boolean alignCorners;

    /** {@code size} or {@code scaleFactor} (the other null); {@code alignCorners} null or, for the linear modes, a flag. */
    public Upsample(int[] size, double[] scaleFactor, String mode, Boolean alignCorners) {
        this.size = size == null ? null : size.clone();
        this.scaleFactor = scaleFactor == null ? null : scaleFactor.clone();
        this.mode = mode;
        this.alignCorners = alignCorners;
    }

    /** Scales by {@code scaleFactor} in every spatial dim, nearest. */
    public Upsample(double scaleFactor) { this(null, new double[] {scaleFactor}, "nearest", null); }

    public Upsample(double scaleFactor, String mode) { this(null, new double[] {scaleFactor}, mode, null); }

    @Override
    public Tensor forward(Tensor input) { return F.interpolate(input, size, scaleFactor, mode, alignCorners, null); }

    /** PyTorch's: the scale factor or the size, and the mode (align_corners is not shown, as in PyTorch). */
    @Override
    protected String extraRepr() {
        String what = size != null ? "size=" + python(size.length == 1 ? Integer.toString(size[0]) : java.util.Arrays.toString(size))
                : "scale_factor=" + python(scaleFactor.length == 1 ? Double.toString(scaleFactor[0]) : java.util.Arrays.toString(scaleFactor));
        return what + ", mode='" + mode + "'";
    }

    /** A Java array's text as Python prints the tuple: (2, 3). */
    private static String python(String text) { return text.startsWith("[") ? "(" + text.substring(1, text.length() - 1) + ")" : text; }
}
