package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Instance normalization over each sample's channels, as PyTorch's {@code nn._InstanceNorm}, the
 * base of {@link InstanceNorm1d}, {@link InstanceNorm2d} and {@link InstanceNorm3d}: each (sample, channel) is normalized by
 * its own mean and biased variance over the spatial dims ({@link F#instanceNorm}). PyTorch's
 * defaults differ from BatchNorm's: no affine part and no running statistics. With
 * {@code trackRunningStats} the running statistics are updated in training and used in evaluation.
 * Unbatched input (one rank lower) is taken as a batch of one.
 */
public abstract class InstanceNorm extends NormBase {
    InstanceNorm(int numFeatures, double eps, double momentum, boolean affine, boolean trackRunningStats) {
        super(numFeatures, eps, momentum, affine, trackRunningStats);
    }

    /** The rank of batched input: 3 for 1d, 4 for 2d, 5 for 3d. */
    abstract int batchedRank();

    @Override
    public Tensor forward(Tensor input) {
        int rank = batchedRank();
        if (input.dim() != rank && input.dim() != rank - 1) {
            throw new IllegalArgumentException(getClass().getSimpleName() + ": expected " + (rank - 1) + "D or " + rank + "D input (got " + input.dim() + "D input)");
        }
        boolean unbatched = input.dim() == rank - 1;
        int channels = input.size(unbatched ? 0 : 1);
        if (affine && channels != numFeatures) {
            throw new IllegalArgumentException("expected input's size at dim=" + (unbatched ? 0 : 1) + " to match num_features (" + numFeatures + "), but got: " + channels + ".");
        }
        Tensor x = unbatched ? input.unsqueeze(0) : input;
        boolean useInputStats = isTraining() || !trackRunningStats;
        Tensor y = F.instanceNorm(x, read("running_mean", runningMean), read("running_var", runningVar), read("weight", weight), read("bias", bias), useInputStats, momentum, eps);
        return unbatched ? y.squeeze(0) : y;
    }

    @Override
    protected String extraRepr() {
        return numFeatures + ", eps=" + Repr.number(eps) + ", momentum=" + Repr.number(momentum) + ", affine=" + Repr.bool(affine)
                + ", track_running_stats=" + Repr.bool(trackRunningStats);
    }
}
