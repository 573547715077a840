package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * {@link InstanceNorm2d} whose {@code num_features} is its first input's dim 1, as PyTorch's
 * {@code nn.LazyInstanceNorm2d}; until then it has no weight, bias or running statistics. PyTorch's lazy
 * norms default to {@code affine=True, track_running_stats=True} (its {@code _LazyNormBase}'s
 * defaults, unlike the eager instance norms'), and so does this. Like PyTorch's, it takes dim 1 of
 * unbatched input too, so unbatched input with an affine part is refused unless its dims 0 and 1 agree.
 * Loading a state dict before the first call materializes it from the saved tensors.
 */
public class LazyInstanceNorm2d extends InstanceNorm2d {
    private boolean materialized;

    public LazyInstanceNorm2d() { this(1e-5, 0.1, true, true); }

    public LazyInstanceNorm2d(double eps, double momentum, boolean affine, boolean trackRunningStats) {
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
        LazyModules.adopt(this, new InstanceNorm2d(numFeatures, eps, momentum, affine, trackRunningStats));
        this.numFeatures = numFeatures;
        materialized = true;
    }

    @Override
    public Tensor forward(Tensor input) {
        // a rank the norm refuses is refused in its words before dim 1 is read
        if (!materialized && (input.dim() == batchedRank() || input.dim() == batchedRank() - 1)) materialize(input.shape()[1]);
        return super.forward(input);
    }
}
