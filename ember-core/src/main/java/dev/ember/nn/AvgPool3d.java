package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Average pooling over {@code [N, C, D, H, W]} input, as PyTorch's {@code nn.AvgPool3d} (stride
 * defaults to the kernel size; {@code divisorOverride} null for none).
 */
public class AvgPool3d extends Module {
    private final int[] kernelSize;
    private final int[] stride;
    private final int[] padding;
    public final boolean ceilMode;
    public final boolean countIncludePad;
    public final Integer divisorOverride;
    private final boolean givenAsInts;

    public AvgPool3d(int kernelSize) { this(kernelSize, kernelSize, 0); }

    public AvgPool3d(int kernelSize, int stride) { this(kernelSize, stride, 0); }

    public AvgPool3d(int kernelSize, int stride, int padding) {
        this(Conv3d.triple(kernelSize), Conv3d.triple(stride), Conv3d.triple(padding), false, true, null, true);
    }

    /** Per-dimension sizes are {depth, height, width}. */
    public AvgPool3d(int[] kernelSize, int[] stride, int[] padding, boolean ceilMode, boolean countIncludePad, Integer divisorOverride) {
        this(kernelSize, stride, padding, ceilMode, countIncludePad, divisorOverride, false);
    }

    private AvgPool3d(int[] kernelSize, int[] stride, int[] padding, boolean ceilMode, boolean countIncludePad, Integer divisorOverride, boolean givenAsInts) {
        this.kernelSize = kernelSize.clone();
        this.stride = stride.clone();
        this.padding = padding.clone();
        this.ceilMode = ceilMode;
        this.countIncludePad = countIncludePad;
        this.divisorOverride = divisorOverride;
        this.givenAsInts = givenAsInts;
    }

    @Override
    public Tensor forward(Tensor input) { return F.avgPool3d(input, kernelSize, stride, padding, ceilMode, countIncludePad, divisorOverride); }

    @Override
    protected String extraRepr() {
        return "kernel_size=" + Repr.intOrTuple(kernelSize, givenAsInts) + ", stride=" + Repr.intOrTuple(stride, givenAsInts)
                + ", padding=" + Repr.intOrTuple(padding, givenAsInts);
    }
}
