package dev.ember.nn;

/**
 * What {@link AvgPool2d} and {@link AvgPool3d} share, as PyTorch's {@code _AvgPoolNd}: the window's
 * per-dimension sizes, {@code ceilMode}, {@code countIncludePad}, {@code divisorOverride} (null for
 * none) and the printed form (a size given as one int prints as an int, as PyTorch prints what it
 * was given); each subclass says which functional computes it.
 */
public abstract class AvgPoolNd extends Module {
    final int[] kernelSize;
    final int[] stride;
    final int[] padding;
    public final boolean ceilMode;
    public final boolean countIncludePad;
    public final Integer divisorOverride;
    private final boolean givenAsInts;

    AvgPoolNd(int[] kernelSize, int[] stride, int[] padding, boolean ceilMode, boolean countIncludePad, Integer divisorOverride, boolean givenAsInts) {
        this.kernelSize = kernelSize.clone();
        this.stride = stride.clone();
        this.padding = padding.clone();
        this.ceilMode = ceilMode;
        this.countIncludePad = countIncludePad;
        this.divisorOverride = divisorOverride;
        this.givenAsInts = givenAsInts;
    }

    @Override
    protected String extraRepr() {
        return "kernel_size=" + Repr.intOrTuple(kernelSize, givenAsInts) + ", stride=" + Repr.intOrTuple(stride, givenAsInts)
                + ", padding=" + Repr.intOrTuple(padding, givenAsInts);
    }
}
