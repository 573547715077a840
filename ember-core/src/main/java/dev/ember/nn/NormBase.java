package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * What {@link BatchNorm} and {@link InstanceNorm} share, as PyTorch's {@code _NormBase}: the
 * options, a per-feature scale and shift (ones and zeros at first; null without {@code affine}) and
 * the running statistics with {@code num_batches_tracked} (null without {@code trackRunningStats}),
 * under PyTorch's state-dict names.
 */
public abstract class NormBase extends Module {
    /** Set by the {@code LazyBatchNorm} modules when they materialize. */
    public int numFeatures;
    public final double eps;
    public final double momentum;
    public final boolean affine;
    public final boolean trackRunningStats;
    public Parameter weight;
    public Parameter bias;
    public Tensor runningMean;
    public Tensor runningVar;
    public Tensor numBatchesTracked;

    NormBase(int numFeatures, double eps, double momentum, boolean affine, boolean trackRunningStats) {
        this.numFeatures = numFeatures;
        this.eps = eps;
        this.momentum = momentum;
        this.affine = affine;
        this.trackRunningStats = trackRunningStats;
        if (affine) {
            weight = new Parameter(Tensor.ones(numFeatures));
            bias = new Parameter(Tensor.zeros(numFeatures));
        }
        if (trackRunningStats) {
            runningMean = Tensor.zeros(numFeatures);
            runningVar = Tensor.ones(numFeatures);
            numBatchesTracked = Tensor.scalar(0L);
        }
    }
}
