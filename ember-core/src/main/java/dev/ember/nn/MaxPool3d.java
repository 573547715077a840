package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Max pooling over {@code [N, C, D, H, W]} input, as PyTorch's {@code nn.MaxPool3d} (stride defaults to the kernel size). */
public class MaxPool3d extends MaxPoolNd {
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
        super(kernelSize, stride, padding, dilation, ceilMode, givenAsInts);
    }

    @Override
    public Tensor forward(Tensor input) { return F.maxPool3d(input, kernelSize, stride, padding, dilation, ceilMode); }

    /** The pooled output and each maximum's index in its channel's flattened D·H·W (PyTorch's {@code return_indices=True}). */
    public java.util.List<Tensor> forwardWithIndices(Tensor input) { return F.maxPool3dWithIndices(input, kernelSize, stride, padding, dilation, ceilMode); }
}
