package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * The inverse of {@code MaxPool1d}: each value put back at the index max pooling gave it,
 * zeros elsewhere, as PyTorch's {@code nn.MaxUnpool1d} (stride defaults to the kernel size);
 * see {@link F#maxUnpool1d}.
 */
public class MaxUnpool1d extends Module {
    private final int[] kernelSize;
    private final int[] stride;
    private final int[] padding;

    public MaxUnpool1d(int kernelSize) { this(kernelSize, kernelSize, 0); }

    public MaxUnpool1d(int kernelSize, int stride, int padding) { this(ConvNd.repeat(kernelSize, 1), ConvNd.repeat(stride, 1), ConvNd.repeat(padding, 1)); }

    public MaxUnpool1d(int[] kernelSize, int[] stride, int[] padding) {
        for (int[] v : new int[][] {kernelSize, stride, padding}) {
            if (v.length != 1) throw new IllegalArgumentException("MaxUnpool1d: kernel_size, stride and padding must have 1 entries, got " + v.length);
        }
        this.kernelSize = kernelSize.clone();
        this.stride = stride.clone();
        this.padding = padding.clone();
    }

    @Override
    public Tensor forward(Tensor input) { throw new UnsupportedOperationException("MaxUnpool1d takes the pooled input and its indices: call forward(input, indices)"); }

    public Tensor forward(Tensor input, Tensor indices) { return forward(input, indices, null); }

    /** {@code outputSize} (null for the default) picks among the sizes max pooling maps to the input's (PyTorch's {@code output_size}). */
    public Tensor forward(Tensor input, Tensor indices, int[] outputSize) {
        return F.maxUnpool1d(input, indices, kernelSize[0], stride[0], padding[0], outputSize);
    }

    @Override
    protected String extraRepr() { return "kernel_size=" + Repr.tuple(kernelSize) + ", stride=" + Repr.tuple(stride) + ", padding=" + Repr.tuple(padding); }
}
