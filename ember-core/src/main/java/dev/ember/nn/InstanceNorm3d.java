package dev.ember.nn;

/** Instance normalization of {@code [N, C, D, H, W]} (or unbatched) input, as PyTorch's {@code nn.InstanceNorm3d}; see {@link InstanceNorm}. */
public class InstanceNorm3d extends InstanceNorm {
    /** PyTorch's defaults: eps 1e-5, momentum 0.1, no affine part, no running statistics. */
    public InstanceNorm3d(int numFeatures) { this(numFeatures, 1e-5, 0.1, false, false); }

    public InstanceNorm3d(int numFeatures, double eps, double momentum, boolean affine, boolean trackRunningStats) {
        super(numFeatures, eps, momentum, affine, trackRunningStats);
    }

    @Override
    int batchedRank() { return 5; }
}
