package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Average pooling over {@code [N, C, H, W]} (or batch-less {@code [C, H, W]}) input, as PyTorch's
 * {@code nn.AvgPool2d}: stride defaults to the kernel size; {@code ceilMode},
 * {@code countIncludePad} and {@code divisorOverride} (null for none) as there.
 *
 * <pre>{@code
 * new AvgPool2d(new int[] {2, 2}, new int[] {2, 2}, new int[] {1, 1}, false, true, 1)   // nn.AvgPool2d((2, 2), (2, 2), (1, 1), divisor_override=1)
 * }</pre>
 */
public class AvgPool2d extends AvgPoolNd {
    public AvgPool2d(int kernelSize) { this(kernelSize, kernelSize, 0); }

    public AvgPool2d(int kernelSize, int stride) { this(kernelSize, stride, 0); }

    public AvgPool2d(int kernelSize, int stride, int padding) {
        this(Conv2d.pair(kernelSize), Conv2d.pair(stride), Conv2d.pair(padding), false, true, null, true);
    }

    /** Per-dimension sizes are {height, width}; {@code stride} null for the kernel size. */
    public AvgPool2d(int[] kernelSize, int[] stride, int[] padding, boolean ceilMode, boolean countIncludePad, Integer divisorOverride) {
        this(kernelSize, stride != null ? stride : kernelSize, padding, ceilMode, countIncludePad, divisorOverride, false);
    }

    private AvgPool2d(int[] kernelSize, int[] stride, int[] padding, boolean ceilMode, boolean countIncludePad, Integer divisorOverride, boolean givenAsInts) {
        super(kernelSize, stride, padding, ceilMode, countIncludePad, divisorOverride, givenAsInts);
    }

    @Override
    public Tensor forward(Tensor input) { return F.avgPool2d(input, kernelSize, stride, padding, ceilMode, countIncludePad, divisorOverride); }
}
