package dev.ember.optim;

import java.util.List;

/**
 * Multiplies the learning rate by {@code gamma} every {@code stepSize} epochs, as PyTorch's
 * {@code StepLR}: {@code lr = initial_lr * gamma^(epoch / stepSize)} (integer division),
 * computed as PyTorch does, by multiplying the current rate.
 */
public final class StepLR extends LRScheduler {
    private final int stepSize;
    private final double gamma;

    /** {@code StepLR(optimizer, step_size, gamma=0.1)}. */
    public StepLR(Optimizer optimizer, int stepSize) { this(optimizer, stepSize, 0.1); }

    public StepLR(Optimizer optimizer, int stepSize, double gamma) {
        super(checked(optimizer, stepSize));
        this.stepSize = stepSize;
        this.gamma = gamma;
        initialStep();
    }

    private static Optimizer checked(Optimizer optimizer, int stepSize) {
        if (stepSize <= 0) throw new IllegalArgumentException("step_size must be a positive number of epochs, got " + stepSize);
        return optimizer;
    }

    @Override
    protected List<Double> computeLr() {
        List<Double> lrs = groupLrs();
        if (lastEpoch() == 0 || lastEpoch() % stepSize != 0) return lrs;
        return lrs.stream().map(lr -> lr * gamma).toList();
    }

    /** The closed form at epoch 0. */
    @Override
    protected List<Double> lrsAtRestart() { return baseLrs(); }
}
