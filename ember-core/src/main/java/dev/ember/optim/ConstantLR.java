package dev.ember.optim;

import java.util.List;

/**
 * Scales the learning rate by {@code factor} until epoch {@code totalIters}, then restores it, as
 * PyTorch's {@code ConstantLR} (a constant warmup): {@code lr = initial_lr * (epoch < total_iters ? factor : 1)}.
 */
public final class ConstantLR extends LRScheduler {
    private final double factor;
    private final int totalIters;

    /** PyTorch's defaults: {@code factor=1/3, total_iters=5}. */
    public ConstantLR(Optimizer optimizer) { this(optimizer, 1.0 / 3, 5); }

    public ConstantLR(Optimizer optimizer, double factor, int totalIters) {
        super(checked(optimizer, factor));
        this.factor = factor;
        this.totalIters = totalIters;
        initialStep();
    }

    private static Optimizer checked(Optimizer optimizer, double factor) {
        if (factor > 1.0 || !(factor >= 0)) throw new IllegalArgumentException("Constant multiplicative factor expected to be between 0 and 1.");
        return optimizer;
    }

    @Override
    protected List<Double> computeLr() {
        List<Double> lrs = groupLrs();
        if (lastEpoch() == 0) return lrs.stream().map(lr -> lr * factor).toList();
        if (lastEpoch() != totalIters) return lrs;
        return lrs.stream().map(lr -> lr * (1.0 / factor)).toList();
    }

    @Override
    protected List<Double> lrsAtRestart() { return baseLrs().stream().map(b -> b * (factor + (0 >= totalIters ? 1 : 0) * (1 - factor))).toList(); }
}
