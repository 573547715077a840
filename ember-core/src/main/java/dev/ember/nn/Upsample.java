package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Resizes the last 1, 2 or 3 dims of its input to a size or by a scale factor, as PyTorch's
 * {@code nn.Upsample}: {@link F#interpolate} with mode "nearest" (the default), "nearest-exact",
 * "area", "linear", "bilinear", "bicubic" or "trilinear".
 */
public class Upsample extends Module {
    public final int[] size;
    public final double[] scaleFactor;
    public final String mode;
    public final Boolean alignCorners;
    /** PyTorch's {@code recompute_scale_factor}: null or false computes with the scale factor given, true as for the output size alone. */
    public final Boolean recomputeScaleFactor;

    /** {@code size} or {@code scaleFactor} (the other null); {@code alignCorners} null or, for the interpolating modes, a flag. */
    public Upsample(int[] size, double[] scaleFactor, String mode, Boolean alignCorners) { this(size, scaleFactor, mode, alignCorners, null); }

    /** With PyTorch's {@code recompute_scale_factor} (null for its default). */
    public Upsample(int[] size, double[] scaleFactor, String mode, Boolean alignCorners, Boolean recomputeScaleFactor) {
        this.recomputeScaleFactor = recomputeScaleFactor;
        this.size = size == null ? null : size.clone();
        this.scaleFactor = scaleFactor == null ? null : scaleFactor.clone();
        this.mode = mode;
        this.alignCorners = alignCorners;
    }

    /** Scales by {@code scaleFactor} in every spatial dim, nearest. */
    public Upsample(double scaleFactor) { this(null, new double[] {scaleFactor}, "nearest", null); }

    public Upsample(double scaleFactor, String mode) { this(null, new double[] {scaleFactor}, mode, null); }

    @Override
    public Tensor forward(Tensor input) { return F.interpolate(input, size, scaleFactor, mode, alignCorners, recomputeScaleFactor); }

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
