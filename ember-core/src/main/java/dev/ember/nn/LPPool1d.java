package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Power-average pooling {@code (Σ x^p)^(1/p)} over windows of {@code [N, C, L]}, as PyTorch's {@code nn.LPPool1d}; see {@link F#lpPool1d}. */
public class LPPool1d extends Module {
    public final double normType;
    public final int kernelSize;
    /** Null: the kernel size. */
    public final Integer stride;
    public final boolean ceilMode;

    public LPPool1d(double normType, int kernelSize) { this(normType, kernelSize, null, false); }

    public LPPool1d(double normType, int kernelSize, Integer stride, boolean ceilMode) {
        this.normType = normType;
        this.kernelSize = kernelSize;
        this.stride = stride;
        this.ceilMode = ceilMode;
    }

    @Override
    public Tensor forward(Tensor input) { return F.lpPool1d(input, normType, kernelSize, stride == null ? kernelSize : stride, ceilMode); }

    @Override
    protected String extraRepr() {
        return "norm_type=" + Repr.number(normType) + ", kernel_size=" + kernelSize + ", stride=" + (stride == null ? "None" : stride) + ", ceil_mode=" + (ceilMode ? "True" : "False");
    }
}
