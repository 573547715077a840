package dev.ember.optim;

import java.util.List;
import java.util.TreeMap;

/**
 * Multiplies the learning rate by {@code gamma} at each milestone epoch, as PyTorch's
 * {@code MultiStepLR}: {@code lr = initial_lr * gamma^(number of milestones <= epoch)}. A milestone
 * given twice multiplies twice there (PyTorch counts them).
 */
public final class MultiStepLR extends LRScheduler {
    /** Milestone → how many times it was given. */
    private final TreeMap<Integer, Integer> milestones = new TreeMap<>();
    private final double gamma;

    /** {@code MultiStepLR(optimizer, milestones, gamma=0.1)}. */
    public MultiStepLR(Optimizer optimizer, List<Integer> milestones) { this(optimizer, milestones, 0.1); }

    public MultiStepLR(Optimizer optimizer, List<Integer> milestones, double gamma) {
        super(optimizer);
        for (int m : milestones) this.milestones.merge(m, 1, Integer::sum);
        this.gamma = gamma;
        initialStep();
    }

    @Override
    protected List<Double> computeLr() {
        List<Double> lrs = groupLrs();
        Integer times = milestones.get(lastEpoch());
        if (times == null) return lrs;
        double factor = Math.pow(gamma, times);
        return lrs.stream().map(lr -> lr * factor).toList();
    }

    @Override
    protected List<Double> lrsAtRestart() {
        int passed = 0;
        for (var e : milestones.headMap(0, true).entrySet()) passed += e.getValue();
        double factor = Math.pow(gamma, passed);
        return baseLrs().stream().map(b -> b * factor).toList();
    }
}
