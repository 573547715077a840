package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Average pooling over {@code [N, C, L]} input, as PyTorch's {@code nn.AvgPool1d} (stride defaults to the kernel size). */
public class AvgPool1d extends Module {
    public final int kernelSize;
    public final int stride;
    public final int padding;
    public final boolean ceilMode;
    public final boolean countIncludePad;

    public AvgPool1d(int kernelSize) { this(kernelSize, kernelSize, 0, false, true); }

    public AvgPool1d(int kernelSize, int stride, int padding, boolean ceilMode, boolean countIncludePad) {
        this.kernelSize = kernelSize;
        this.stride = stride;
        this.padding = padding;
        this.ceilMode = ceilMode;
        this.countIncludePad = countIncludePad;
    }

    @Override
    public Tensor forward(Tensor input) { return F.avgPool1d(input, kernelSize, stride, padding, ceilMode, countIncludePad); }

    @Override
    protected String extraRepr() { return "kernel_size=(" + kernelSize + ",), stride=(" + stride + ",), padding=(" + padding + ",)"; }
}
