package dev.ember.optim;

import java.util.List;

/**
 * Multiplies the learning rate by {@code gamma} every epoch, as PyTorch's {@code ExponentialLR}:
 * {@code lr = initial_lr * gamma^epoch}, computed as PyTorch does, from the current rate.
 */
public final class ExponentialLR extends LRScheduler {
    private final double gamma;

    public ExponentialLR(Optimizer optimizer, double gamma) {
        super(optimizer);
        this.gamma = gamma;
        initialStep();
    }

    @Override
    protected List<Double> computeLr() {
        List<Double> lrs = groupLrs();
        if (lastEpoch() == 0) return lrs;
        return lrs.stream().map(lr -> lr * gamma).toList();
    }

    @Override
    protected List<Double> lrsAtRestart() { return baseLrs(); }
}
