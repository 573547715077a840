package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Average pooling over {@code [N, C, H, W]} input, as PyTorch's {@code nn.AvgPool2d} (stride defaults to the kernel size). */
public class AvgPool2d extends Module {
    public final int kernelSize;
    public final int stride;
    public final int padding;

    public AvgPool2d(int kernelSize) { this(kernelSize, kernelSize, 0); }

    public AvgPool2d(int kernelSize, int stride) { this(kernelSize, stride, 0); }

    public AvgPool2d(int kernelSize, int stride, int padding) {
        this.kernelSize = kernelSize;
        this.stride = stride;
        this.padding = padding;
    }

    @Override
    public Tensor forward(Tensor input) { return F.avgPool2d(input, kernelSize, stride, padding); }

    @Override
    protected String extraRepr() { return "kernel_size=" + kernelSize + ", stride=" + stride + ", padding=" + padding; }
}
