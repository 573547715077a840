package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Power-average pooling {@code (Σ x^p)^(1/p)} over windows of {@code [N, C, D, H, W]}, as PyTorch's {@code nn.LPPool3d}; see {@link F#lpPool3d}. */
public class LPPool3d extends Module {
    public final double normType;
    private final int[] kernelSize;
    /** Null: the kernel size. */
    private final int[] stride;
    public final boolean ceilMode;

    public LPPool3d(double normType, int kernelSize) { this(normType, new int[] {kernelSize, kernelSize, kernelSize}, null, false); }

    /** Sizes are {depth, height, width}; a null stride is the kernel size. */
    public LPPool3d(double normType, int[] kernelSize, int[] stride, boolean ceilMode) {
        if (kernelSize.length != 3 || stride != null && stride.length != 3) throw new IllegalArgumentException("LPPool3d: kernel_size and stride must have 3 entries {depth, height, width}");
        this.normType = normType;
        this.kernelSize = kernelSize.clone();
        this.stride = stride == null ? null : stride.clone();
        this.ceilMode = ceilMode;
    }

    @Override
    public Tensor forward(Tensor input) { return F.lpPool3d(input, normType, kernelSize, stride, ceilMode); }

    @Override
    protected String extraRepr() {
        return "norm_type=" + Repr.number(normType) + ", kernel_size=" + Repr.tuple(kernelSize) + ", stride=" + (stride == null ? "None" : Repr.tuple(stride))
                + ", ceil_mode=" + (ceilMode ? "True" : "False");
    }
}
