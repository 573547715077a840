package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * The inverse of {@code MaxPool3d}: each value put back at the index max pooling gave it,
 * zeros elsewhere, as PyTorch's {@code nn.MaxUnpool3d} (stride defaults to the kernel size);
 * see {@link F#maxUnpool3d}. Per-dimension sizes are {depth, height, width}.
 */
public class MaxUnpool3d extends Module {
    private final int[] kernelSize;
    private final int[] stride;
    private final int[] padding;

    public MaxUnpool3d(int kernelSize) { this(kernelSize, kernelSize, 0); }

    public MaxUnpool3d(int kernelSize, int stride, int padding) { this(ConvNd.repeat(kernelSize, 3), ConvNd.repeat(stride, 3), ConvNd.repeat(padding, 3)); }

    public MaxUnpool3d(int[] kernelSize, int[] stride, int[] padding) {
        for (int[] v : new int[][] {kernelSize, stride, padding}) {
            if (v.length != 3) throw new IllegalArgumentException("MaxUnpool3d: kernel_size, stride and padding must have 3 entries {depth, height, width}, got " + v.length);
        }
        this.kernelSize = kernelSize.clone();
        this.stride = stride.clone();
        this.padding = padding.clone();
    }

    @Override
    public Tensor forward(Tensor input) { throw new UnsupportedOperationException("MaxUnpool3d takes the pooled input and its indices: call forward(input, indices)"); }

    public Tensor forward(Tensor input, Tensor indices) { return forward(input, indices, null); }

    /** {@code outputSize} (null for the default) picks among the sizes max pooling maps to the input's (PyTorch's {@code output_size}). */
    public Tensor forward(Tensor input, Tensor indices, int[] outputSize) {
        return F.maxUnpool3d(input, indices, kernelSize, stride, padding, outputSize);
    }

    @Override
    protected String extraRepr() { return "kernel_size=" + Repr.tuple(kernelSize) + ", stride=" + Repr.tuple(stride) + ", padding=" + Repr.tuple(padding); }
}
