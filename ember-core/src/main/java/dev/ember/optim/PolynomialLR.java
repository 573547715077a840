package dev.ember.optim;

import java.util.List;

/**
 * Decays the learning rate as a polynomial of the epoch until {@code totalIters}, then keeps it,
 * as PyTorch's {@code PolynomialLR}:
 * {@code lr = initial_lr * (1 - min(epoch, total_iters) / total_iters)^power}, computed recursively
 * as PyTorch does (each step multiplies the group's current rate by the ratio of two consecutive
 * factors), so it chains with other schedulers on the same optimizer.
 */
public final class PolynomialLR extends LRScheduler {
    private final int totalIters;
    private final double power;

    /** PyTorch's defaults: {@code total_iters=5, power=1.0} (a linear decay to 0 over 5 epochs). */
    public PolynomialLR(Optimizer optimizer) { this(optimizer, 5, 1.0); }

    public PolynomialLR(Optimizer optimizer, int totalIters, double power) {
        super(checked(optimizer, totalIters));
        this.totalIters = totalIters;
        this.power = power;
        initialStep();
    }

    /** PyTorch divides by total_iters at the first step; a non-positive one is refused here, where it is given. */
    private static Optimizer checked(Optimizer optimizer, int totalIters) {
        if (totalIters <= 0) throw new IllegalArgumentException("total_iters must be a positive number of epochs, got " + totalIters);
        return optimizer;
    }

    @Override
    protected List<Double> computeLr() {
        int epoch = lastEpoch();
        List<Double> lrs = groupLrs();
        if (epoch == 0 || epoch > totalIters) return lrs;
        double factor = Math.pow((1.0 - (double) epoch / totalIters) / (1.0 - (double) (epoch - 1) / totalIters), power);
        return lrs.stream().map(lr -> lr * factor).toList();
    }

    /** The closed form at epoch 0: the initial rates. */
    @Override
    protected List<Double> lrsAtRestart() { return baseLrs(); }
}
