package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * {@link BatchNorm1d} whose {@code num_features} is its first input's dim 1, as PyTorch's
 * {@code nn.LazyBatchNorm1d}; until then it has no weight, bias or running statistics. Loading a
 * state dict before the first call materializes it from the saved tensors.
 */
public class LazyBatchNorm1d extends BatchNorm1d {
    private boolean materialized;

    public LazyBatchNorm1d() { this(1e-5, 0.1, true, true); }

    public LazyBatchNorm1d(double eps, double momentum, boolean affine, boolean trackRunningStats) {
        super(0, eps, momentum, affine, trackRunningStats);
        this.weight = null;
        this.bias = null;
        this.runningMean = null;
        this.runningVar = null;
        this.numBatchesTracked = null;
        LazyModules.materializeFromStateDict(this, this::materialize, w -> w.shape()[0], () -> materialized);
    }

    /** Whether the first call (or a state dict) has given the layer its size and tensors. */
    public boolean isMaterialized() { return materialized; }

    private void materialize(int numFeatures) {
        LazyModules.adopt(this, new BatchNorm1d(numFeatures, eps, momentumOrNone(), affine, trackRunningStats));
        this.numFeatures = numFeatures;
        materialized = true;
    }

    @Override
    public Tensor forward(Tensor input) {
        if (!materialized) {
            if (input.dim() < 2) checkInputDim(input);
            materialize(input.shape()[1]);
        }
        return super.forward(input);
    }
}
