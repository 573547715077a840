package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Max pooling over {@code [N, C, H, W]} input, as PyTorch's {@code nn.MaxPool2d} (stride defaults to the kernel size). */
public class MaxPool2d extends MaxPoolNd {
    public MaxPool2d(int kernelSize) { this(kernelSize, kernelSize, 0); }

    public MaxPool2d(int kernelSize, int stride) { this(kernelSize, stride, 0); }

    public MaxPool2d(int kernelSize, int stride, int padding) { this(kernelSize, stride, padding, 1, false); }

    public MaxPool2d(int kernelSize, int stride, int padding, int dilation, boolean ceilMode) {
        this(Conv2d.pair(kernelSize), Conv2d.pair(stride), Conv2d.pair(padding), Conv2d.pair(dilation), ceilMode, true);
    }

    /** Per-dimension sizes are {height, width}. */
    public MaxPool2d(int[] kernelSize, int[] stride, int[] padding, int[] dilation, boolean ceilMode) {
        this(kernelSize, stride, padding, dilation, ceilMode, false);
    }

    private MaxPool2d(int[] kernelSize, int[] stride, int[] padding, int[] dilation, boolean ceilMode, boolean givenAsInts) {
        super(kernelSize, stride, padding, dilation, ceilMode, givenAsInts);
    }

    @Override
    public Tensor forward(Tensor input) { return F.maxPool2d(input, kernelSize, stride, padding, dilation, ceilMode); }

    /** The pooled output and each maximum's index in its channel's flattened H·W (PyTorch's {@code return_indices=True}), as {@link MaxUnpool2d} takes them. */
    public java.util.List<Tensor> forwardWithIndices(Tensor input) { return F.maxPool2dWithIndices(input, kernelSize, stride, padding, dilation, ceilMode); }
}
