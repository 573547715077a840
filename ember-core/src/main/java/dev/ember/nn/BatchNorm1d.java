package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Batch normalization over the features of {@code [N, C]} or {@code [N, C, L]} input, as PyTorch's
 * {@code nn.BatchNorm1d}; the statistics and modes are {@link BatchNorm}'s.
 */
public class BatchNorm1d extends BatchNorm {
    public BatchNorm1d(int numFeatures) { this(numFeatures, 1e-5, 0.1, true, true); }

    public BatchNorm1d(int numFeatures, double eps, double momentum, boolean affine, boolean trackRunningStats) {
        super(numFeatures, eps, momentum, affine, trackRunningStats);
    }

    /** {@code momentum} null is torch's {@code momentum=None}: running statistics that average every batch seen ({@link #cumulativeMovingAverage}). */
    public BatchNorm1d(int numFeatures, double eps, Double momentum, boolean affine, boolean trackRunningStats) {
        super(numFeatures, eps, momentum, affine, trackRunningStats);
    }

    @Override
    void checkInputDim(Tensor input) {
        if (input.dim() != 2 && input.dim() != 3) throw new IllegalArgumentException("BatchNorm1d: expected 2D or 3D input (got " + input.dim() + "D input)");
    }
}
