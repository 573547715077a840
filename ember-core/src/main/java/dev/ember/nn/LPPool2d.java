package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Power-average pooling {@code (Σ x^p)^(1/p)} over windows of {@code [N, C, H, W]}, as PyTorch's {@code nn.LPPool2d}; see {@link F#lpPool2d}. */
public class LPPool2d extends Module {
    public final double normType;
    private final int[] kernelSize;
    /** Null: the kernel size. */
    private final int[] stride;
    public final boolean ceilMode;

    public LPPool2d(double normType, int kernelSize) { this(normType, new int[] {kernelSize, kernelSize}, null, false); }

    /** Sizes are {height, width}; a null stride is the kernel size. */
    public LPPool2d(double normType, int[] kernelSize, int[] stride, boolean ceilMode) {
        if (kernelSize.length != 2 || stride != null && stride.length != 2) throw new IllegalArgumentException("LPPool2d: kernel_size and stride must have 2 entries {height, width}");
        this.normType = normType;
        this.kernelSize = kernelSize.clone();
        this.stride = stride == null ? null : stride.clone();
        this.ceilMode = ceilMode;
    }

    @Override
    public Tensor forward(Tensor input) { return F.lpPool2d(input, normType, kernelSize, stride, ceilMode); }

    @Override
    protected String extraRepr() {
        return "norm_type=" + Repr.number(normType) + ", kernel_size=" + Repr.tuple(kernelSize) + ", stride=" + (stride == null ? "None" : Repr.tuple(stride))
                + ", ceil_mode=" + (ceilMode ? "True" : "False");
    }
}
