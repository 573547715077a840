package dev.ember.optim;

import java.util.ArrayList;
import java.util.List;

/**
 * Anneals the learning rate from its initial value to {@code etaMin} along a half cosine over
 * {@code tMax} epochs, as PyTorch's {@code CosineAnnealingLR} (SGDR without restarts):
 * {@code lr = eta_min + (initial_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2}. PyTorch
 * computes it recursively from the current rate, and so does this class, to give the same values;
 * past {@code tMax} the rate rises again, as PyTorch's does.
 */
public final class CosineAnnealingLR extends LRScheduler {
    private final int tMax;
    private final double etaMin;

    /** {@code CosineAnnealingLR(optimizer, T_max, eta_min=0.0)}. */
    public CosineAnnealingLR(Optimizer optimizer, int tMax) { this(optimizer, tMax, 0.0); }

    public CosineAnnealingLR(Optimizer optimizer, int tMax, double etaMin) {
        super(checked(optimizer, tMax));
        this.tMax = tMax;
        this.etaMin = etaMin;
        initialStep();
    }

    private static Optimizer checked(Optimizer optimizer, int tMax) {
        if (tMax <= 0) throw new IllegalArgumentException("T_max must be a positive number of epochs, got " + tMax);
        return optimizer;
    }

    @Override
    protected List<Double> computeLr() {
        int epoch = lastEpoch();
        List<Double> lrs = groupLrs(), base = baseLrs(), out = new ArrayList<>();
        for (int i = 0; i < lrs.size(); i++) {
            double lr = lrs.get(i), baseLr = base.get(i);
            if (epoch == 0) {
                out.add(lr);
            } else if (Math.floorMod(epoch - 1 - tMax, 2 * tMax) == 0) {   // Python's %: the step after a minimum
                out.add(lr + (baseLr - etaMin) * (1 - Math.cos(Math.PI / tMax)) / 2);
            } else {
                out.add((1 + Math.cos(Math.PI * epoch / tMax)) / (1 + Math.cos(Math.PI * (epoch - 1) / tMax)) * (lr - etaMin) + etaMin);
            }
        }
        return out;
    }

    /** The closed form at epoch 0, computed as PyTorch's _get_closed_form_lr (eta_min + (base - eta_min) · 2 / 2 may round off base). */
    @Override
    protected List<Double> lrsAtRestart() { return baseLrs().stream().map(b -> etaMin + (b - etaMin) * (1 + Math.cos(0.0)) / 2).toList(); }
}
