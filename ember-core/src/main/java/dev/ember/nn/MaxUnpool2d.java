package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * The inverse of {@code MaxPool2d}: each value put back at the index max pooling gave it,
 * zeros elsewhere, as PyTorch's {@code nn.MaxUnpool2d} (stride defaults to the kernel size);
 * see {@link F#maxUnpool2d}. Per-dimension sizes are {height, width}.
 */
public class MaxUnpool2d extends Module {
    private final int[] kernelSize;
    private final int[] stride;
    private final int[] padding;

    public MaxUnpool2d(int kernelSize) { this(kernelSize, kernelSize, 0); }

    public MaxUnpool2d(int kernelSize, int stride, int padding) { this(ConvNd.repeat(kernelSize, 2), ConvNd.repeat(stride, 2), ConvNd.repeat(padding, 2)); }

    public MaxUnpool2d(int[] kernelSize, int[] stride, int[] padding) {
        for (int[] v : new int[][] {kernelSize, stride, padding}) {
            if (v.length != 2) throw new IllegalArgumentException("MaxUnpool2d: kernel_size, stride and padding must have 2 entries {height, width}, got " + v.length);
        }
        this.kernelSize = kernelSize.clone();
        this.stride = stride.clone();
        this.padding = padding.clone();
    }

    @Override
    public Tensor forward(Tensor input) { throw new UnsupportedOperationException("MaxUnpool2d takes the pooled input and its indices: call forward(input, indices)"); }

    public Tensor forward(Tensor input, Tensor indices) { return forward(input, indices, null); }

    /** {@code outputSize} (null for the default) picks among the sizes max pooling maps to the input's (PyTorch's {@code output_size}). */
    public Tensor forward(Tensor input, Tensor indices, int[] outputSize) {
        return F.maxUnpool2d(input, indices, kernelSize, stride, padding, outputSize);
    }

    @Override
    protected String extraRepr() { return "kernel_size=" + Repr.tuple(kernelSize) + ", stride=" + Repr.tuple(stride) + ", padding=" + Repr.tuple(padding); }
}
