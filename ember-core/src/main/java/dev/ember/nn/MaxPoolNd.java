package dev.ember.nn;

/**
 * What {@link MaxPool2d} and {@link MaxPool3d} share, as PyTorch's {@code _MaxPoolNd}: the window's
 * per-dimension sizes and the printed form (a size given as one int prints as an int, as PyTorch
 * prints what it was given); each subclass says which functional computes it.
 */
public abstract class MaxPoolNd extends Module {
    final int[] kernelSize;
    final int[] stride;
    final int[] padding;
    final int[] dilation;
    public final boolean ceilMode;
    private final boolean givenAsInts;

    MaxPoolNd(int[] kernelSize, int[] stride, int[] padding, int[] dilation, boolean ceilMode, boolean givenAsInts) {
        this.kernelSize = kernelSize.clone();
        this.stride = stride.clone();
        this.padding = padding.clone();
        this.dilation = dilation.clone();
        this.ceilMode = ceilMode;
        this.givenAsInts = givenAsInts;
    }

    @Override
    protected String extraRepr() {
        return "kernel_size=" + Repr.intOrTuple(kernelSize, givenAsInts) + ", stride=" + Repr.intOrTuple(stride, givenAsInts)
                + ", padding=" + Repr.intOrTuple(padding, givenAsInts) + ", dilation=" + Repr.intOrTuple(dilation, givenAsInts)
                + ", ceil_mode=" + Repr.bool(ceilMode);
    }
}
