package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Max pooling over {@code [N, C, L]} input, as PyTorch's {@code nn.MaxPool1d} (stride defaults to the kernel size). */
public class MaxPool1d extends Module {
    public final int kernelSize;
    public final int stride;
    public final int padding;
    public final int dilation;
    public final boolean ceilMode;

    public MaxPool1d(int kernelSize) { this(kernelSize, kernelSize, 0, 1, false); }

    public MaxPool1d(int kernelSize, int stride, int padding, int dilation, boolean ceilMode) {
        this.kernelSize = kernelSize;
        this.stride = stride;
        this.padding = padding;
        this.dilation = dilation;
        this.ceilMode = ceilMode;
    }

    @Override
    public Tensor forward(Tensor input) { return F.maxPool1d(input, kernelSize, stride, padding, dilation, ceilMode); }

    /** The pooled output and each maximum's index along the last dim (PyTorch's {@code return_indices=True}), as {@link MaxUnpool1d} takes them. */
    public java.util.List<Tensor> forwardWithIndices(Tensor input) { return F.maxPool1dWithIndices(input, kernelSize, stride, padding, dilation, ceilMode); }

    @Override
    protected String extraRepr() {
        return "kernel_size=" + kernelSize + ", stride=" + stride + ", padding=" + padding + ", dilation=" + dilation + ", ceil_mode=" + Repr.bool(ceilMode);
    }
}
