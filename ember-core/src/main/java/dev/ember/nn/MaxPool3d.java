package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Max pooling over {@code [N, C, D, H, W]} input, as PyTorch's {@code nn.MaxPool3d} (stride defaults to the kernel size). */
public class MaxPool3d extends Module {
    private final int[] kernelSize;
    private final int[] stride;
    private final int[] padding;
    private final int[] dilation;
    public final boolean ceilMode;
    private final boolean givenAsInts;

    public MaxPool3d(int kernelSize) { this(kernelSize, kernelSize, 0); }

    public MaxPool3d(int kernelSize, int stride) { this(kernelSize, stride, 0); }

    public MaxPool3d(int kernelSize, int stride, int padding) { this(kernelSize, stride, padding, 1, false); }

    public MaxPool3d(int kernelSize, int stride, int padding, int dilation, boolean ceilMode) {
        this(Conv3d.triple(kernelSize), Conv3d.triple(stride), Conv3d.triple(padding), Conv3d.triple(dilation), ceilMode, true);
    }

    /** Per-dimension sizes are {depth, height, width}. */
    public MaxPool3d(int[] kernelSize, int[] stride, int[] padding, int[] dilation, boolean ceilMode) {
        this(kernelSize, stride, padding, dilation, ceilMode, false);
    }

    private MaxPool3d(int[] kernelSize, int[] stride, int[] padding, int[] dilation, boolean ceilMode, boolean givenAsInts) {
        this.kernelSize = kernelSize.clone();
        this.stride = stride.clone();
        this.padding = padding.clone();
        this.dilation = dilation.clone();
        this.ceilMode = ceilMode;
        this.givenAsInts = givenAsInts;
    }

    @Override
    public Tensor forward(Tensor input) { return F.maxPool3d(input, kernelSize, stride, padding, dilation, ceilMode); }

    /** The pooled output and each maximum's index in its channel's flattened D·H·W (PyTorch's {@code return_indices=True}). */
    public java.util.List<Tensor> forwardWithIndices(Tensor input) { return F.maxPool3dWithIndices(input, kernelSize, stride, padding, dilation, ceilMode); }

    @Override
    protected String extraRepr() {
        return "kernel_size=" + Repr.intOrTuple(kernelSize, givenAsInts) + ", stride=" + Repr.intOrTuple(stride, givenAsInts)
                + ", padding=" + Repr.intOrTuple(padding, givenAsInts) + ", dilation=" + Repr.intOrTuple(dilation, givenAsInts)
                + ", ceil_mode=" + Repr.bool(ceilMode);
    }
}
