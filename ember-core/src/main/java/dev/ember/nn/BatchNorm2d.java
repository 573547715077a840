package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Batch normalization over the channels of {@code [N, C, H, W]} input, as PyTorch's
 * {@code nn.BatchNorm2d}; the statistics and modes are {@link BatchNorm}'s.
 */
public class BatchNorm2d extends BatchNorm {
    public BatchNorm2d(int numFeatures) { this(numFeatures, 1e-5, 0.1, true, true); }

    public BatchNorm2d(int numFeatures, double eps, double momentum, boolean affine, boolean trackRunningStats) {
        super(numFeatures, eps, momentum, affine, trackRunningStats);
    }

    /** {@code momentum} null is torch's {@code momentum=None}: running statistics that average every batch seen ({@link #cumulativeMovingAverage}). */
    public BatchNorm2d(int numFeatures, double eps, Double momentum, boolean affine, boolean trackRunningStats) {
        super(numFeatures, eps, momentum, affine, trackRunningStats);
    }

    @Override
    void checkInputDim(Tensor input) {
        if (input.dim() != 4) throw new IllegalArgumentException("BatchNorm2d: expected 4D input (got " + input.dim() + "D input)");
    }
}
