package dev.ember.nn;

import dev.ember.ops.OpRegistry;
import dev.ember.ops.PointwiseOps;
import dev.ember.tensor.Tensor;

/**
 * Batch normalization over the channels (dimension 1) of its input, as PyTorch's
 * {@code nn._BatchNorm}, the base of {@link BatchNorm1d}, {@link BatchNorm2d} and {@link BatchNorm3d}, which say which
 * input ranks they take. In training it normalizes with the batch's statistics and updates
 * {@code running_mean}/{@code running_var} (weight {@code momentum}) and {@code num_batches_tracked};
 * in evaluation it normalizes with the running statistics.
 */
public abstract class BatchNorm extends NormBase {
    BatchNorm(int numFeatures, double eps, double momentum, boolean affine, boolean trackRunningStats) {
        super(numFeatures, eps, momentum, affine, trackRunningStats);
    }

    BatchNorm(int numFeatures, double eps, Double momentum, boolean affine, boolean trackRunningStats) {
        super(numFeatures, eps, momentum, affine, trackRunningStats);
    }

    @Override
    public Tensor forward(Tensor input) {
        checkInputDim(input);
        Tensor mean = read("running_mean", runningMean), var = read("running_var", runningVar);
        double factor = momentum;
        if (isTraining() && trackRunningStats) {
            Tensor tracked = read("num_batches_tracked", numBatchesTracked);
            PointwiseOps.ADD__SCALAR.callTensor(tracked, 1L);
            // torch's momentum=None: the plain average so far (1 / batches seen, read from the buffer: a graph break when compiled, as in torch)
            if (cumulativeMovingAverage) factor = 1.0 / tracked.item();
        }
        // Running statistics are used in evaluation and updated in training; without them every call uses batch statistics.
        boolean useBatchStats = isTraining() || mean == null;
        return F.batchNorm(input, mean, var, read("weight", weight), read("bias", bias), useBatchStats, factor, eps);
    }

    /** PyTorch's {@code _check_input_dim}: the input ranks this layer takes. */
    abstract void checkInputDim(Tensor input);

    @Override
    protected String extraRepr() {
        return numFeatures + ", eps=" + Repr.number(eps) + ", momentum=" + momentumRepr() + ", affine=" + Repr.bool(affine)
                + ", track_running_stats=" + Repr.bool(trackRunningStats);
    }
}
