package dev.ember.nn;

import dev.ember.ops.OpRegistry;
import dev.ember.ops.PointwiseOps;
import dev.ember.tensor.Tensor;

/**
 * Batch normalization over the channels of {@code [N, C, H, W]} input, as PyTorch's
 * {@code nn.BatchNorm2d}. In training it normalizes with the batch's statistics and updates
 * {@code running_mean}/{@code running_var} (weight {@code momentum}) and {@code num_batches_tracked};
 * in evaluation it normalizes with the running statistics.
 */
public class BatchNorm2d extends Module {
    public final int numFeatures;
    public final double eps;
    public final double momentum;
    public final boolean affine;
    public final boolean trackRunningStats;
    /** Scale and shift, ones and zeros at first; null without {@code affine}. */
    public Parameter weight;
    public Parameter bias;
    /** Running statistics; null without {@code trackRunningStats}. */
    public Tensor runningMean;
    public Tensor runningVar;
    public Tensor numBatchesTracked;

    public BatchNorm2d(int numFeatures) { this(numFeatures, 1e-5, 0.1, true, true); }

    public BatchNorm2d(int numFeatures, double eps, double momentum, boolean affine, boolean trackRunningStats) {
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

    @Override
    public Tensor forward(Tensor input) {
        if (input.dim() != 4) throw new IllegalArgumentException("BatchNorm2d: expected 4D input (got " + input.dim() + "D input)");
        if (isTraining() && trackRunningStats) PointwiseOps.ADD__SCALAR.callTensor(numBatchesTracked, 1L);
        // Running statistics are used in evaluation and updated in training; without them every call uses batch statistics.
        boolean useBatchStats = isTraining() || runningMean == null;
        return F.batchNorm(input, runningMean, runningVar, weight, bias, useBatchStats, momentum, eps);
    }

    @Override
    protected String extraRepr() {
        return numFeatures + ", eps=" + Repr.number(eps) + ", momentum=" + Repr.number(momentum) + ", affine=" + Repr.bool(affine)
                + ", track_running_stats=" + Repr.bool(trackRunningStats);
    }
}
