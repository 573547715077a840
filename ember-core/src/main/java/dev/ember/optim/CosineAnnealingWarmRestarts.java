package dev.ember.optim;

import java.util.List;

/**
 * Cosine annealing that restarts, as PyTorch's {@code CosineAnnealingWarmRestarts} (SGDR): the rate
 * falls from its initial value to {@code etaMin} over {@code T_i} epochs, {@code lr = etaMin +
 * (initial_lr - etaMin) * (1 + cos(pi * T_cur / T_i)) / 2}, then jumps back up; the first period is
 * {@code T_0} and each next one {@code T_mult} times longer.
 */
public final class CosineAnnealingWarmRestarts extends LRScheduler {
    private final int t0, tMult;
    private final double etaMin;
    /** The current period's length and the epochs since its restart. */
    private int tI, tCur;

    /** {@code CosineAnnealingWarmRestarts(optimizer, T_0, T_mult=1, eta_min=0)}. */
    public CosineAnnealingWarmRestarts(Optimizer optimizer, int t0) { this(optimizer, t0, 1, 0.0); }

    public CosineAnnealingWarmRestarts(Optimizer optimizer, int t0, int tMult, double etaMin) {
        super(checked(optimizer, t0, tMult));
        this.t0 = t0;
        this.tMult = tMult;
        this.etaMin = etaMin;
        this.tI = t0;
        this.tCur = -1;   // the first step makes it 0
        initialStep();
    }

    private static Optimizer checked(Optimizer optimizer, int t0, int tMult) {
        if (t0 <= 0) throw new IllegalArgumentException("Expected positive integer T_0, but got " + t0);
        if (tMult < 1) throw new IllegalArgumentException("Expected integer T_mult >= 1, but got " + tMult);
        return optimizer;
    }

    @Override
    public void step() {
        tCur++;
        if (tCur >= tI) {
            tCur -= tI;
            tI *= tMult;
        }
        super.step();
    }

    @Override
    protected List<Double> computeLr() {
        return baseLrs().stream().map(b -> etaMin + (b - etaMin) * (1 + Math.cos(Math.PI * tCur / tI)) / 2).toList();
    }

    /** PyTorch's step(0): the first period from its start. */
    @Override
    protected List<Double> lrsAtRestart() {
        tI = t0;
        tCur = 0;
        return computeLr();
    }
}
