package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Average pooling over {@code [N, C, D, H, W]} input, as PyTorch's {@code nn.AvgPool3d} (stride
 * defaults to the kernel size; {@code divisorOverride} null for none).
 */
public class AvgPool3d extends AvgPoolNd {
    public AvgPool3d(int kernelSize) { this(kernelSize, kernelSize, 0); }

    public AvgPool3d(int kernelSize, int stride) { this(kernelSize, stride, 0); }

    public AvgPool3d(int kernelSize, int stride, int padding) {
        this(Conv3d.triple(kernelSize), Conv3d.triple(stride), Conv3d.triple(padding), false, true, null, true);
    }

    /** Per-dimension sizes are {depth, height, width}. */
    public AvgPool3d(int[] kernelSize, int[] stride, int[] padding, boolean ceilMode, boolean countIncludePad, Integer divisorOverride) {
        this(kernelSize, stride, padding, ceilMode, countIncludePad, divisorOverride, false);
    }

    private AvgPool3d(int[] kernelSize, int[] stride, int[] padding, boolean ceilMode, boolean countIncludePad, Integer divisorOverride, boolean givenAsInts) {
        super(kernelSize, stride, padding, ceilMode, countIncludePad, divisorOverride, givenAsInts);
    }

    @Override
    public Tensor forward(Tensor input) { return F.avgPool3d(input, kernelSize, stride, padding, ceilMode, countIncludePad, divisorOverride); }
}
