package dev.ember.optim;

import java.util.List;

/**
 * Scales the learning rate linearly from {@code startFactor} to {@code endFactor} times its
 * initial value over {@code totalIters} epochs, then keeps it, as PyTorch's {@code LinearLR}
 * (a warmup, with the defaults): {@code lr = initial_lr * (start + (end - start) * min(epoch, total_iters) / total_iters)},
 * computed recursively as PyTorch does.
 */
public final class LinearLR extends LRScheduler {
    private final double startFactor, endFactor;
    private final int totalIters;

    /** PyTorch's defaults: {@code start_factor=1/3, end_factor=1.0, total_iters=5}. */
    public LinearLR(Optimizer optimizer) { this(optimizer, 1.0 / 3, 1.0, 5); }

    public LinearLR(Optimizer optimizer, double startFactor, double endFactor, int totalIters) {
        super(checked(optimizer, startFactor, endFactor, totalIters));
        this.startFactor = startFactor;
        this.endFactor = endFactor;
        this.totalIters = totalIters;
        initialStep();
    }

    private static Optimizer checked(Optimizer optimizer, double startFactor, double endFactor, int totalIters) {
        if (startFactor > 1.0 || !(startFactor > 0)) {
            throw new IllegalArgumentException("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.");
        }
        if (endFactor > 1.0 || !(endFactor >= 0)) throw new IllegalArgumentException("Ending multiplicative factor expected to be between 0 and 1.");
        if (totalIters <= 0) throw new IllegalArgumentException("total_iters must be a positive number of epochs, got " + totalIters);
        return optimizer;
    }

    @Override
    protected List<Double> computeLr() {
        int epoch = lastEpoch();
        List<Double> lrs = groupLrs();
        if (epoch == 0) return lrs.stream().map(lr -> lr * startFactor).toList();
        if (epoch > totalIters) return lrs;
        double factor = 1.0 + (endFactor - startFactor) / (totalIters * startFactor + (epoch - 1) * (endFactor - startFactor));
        return lrs.stream().map(lr -> lr * factor).toList();
    }

    /** The closed form at epoch 0. */
    @Override
    protected List<Double> lrsAtRestart() { return baseLrs().stream().map(lr -> lr * startFactor).toList(); }
}
