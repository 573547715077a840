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
    /** The running statistics' update weight; 0 when {@link #cumulativeMovingAverage} (torch's {@code momentum=None}). */
    public final double momentum;
    /**
     * torch's {@code momentum=None}: the running statistics are the plain average of every batch seen,
     * updated with weight {@code 1 / num_batches_tracked}.
     */
    public final boolean cumulativeMovingAverage;
    public final boolean affine;
    public final boolean trackRunningStats;
    public Parameter weight;
    public Parameter bias;
    public Tensor runningMean;
    public Tensor runningVar;
    public Tensor numBatchesTracked;

    NormBase(int numFeatures, double eps, double momentum, boolean affine, boolean trackRunningStats) {
        this(numFeatures, eps, (Double) momentum, affine, trackRunningStats);
    }

    /** {@code momentum} null is torch's {@code momentum=None} ({@link #cumulativeMovingAverage}). */
    NormBase(int numFeatures, double eps, Double momentum, boolean affine, boolean trackRunningStats) {
        this.numFeatures = numFeatures;
        this.eps = eps;
        this.momentum = momentum == null ? 0.0 : momentum;
        this.cumulativeMovingAverage = momentum == null;
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

    /** The momentum as torch's attribute holds it: null for {@code momentum=None}. */
    public Double momentumOrNone() { return cumulativeMovingAverage ? null : momentum; }

    /** The momentum as torch prints it. */
    String momentumRepr() { return cumulativeMovingAverage ? "None" : Repr.number(momentum); }
}
