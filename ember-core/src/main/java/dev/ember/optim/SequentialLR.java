package dev.ember.optim;

import java.util.Arrays;
import java.util.List;

/**
 * Runs schedulers one after another, switching at milestone epochs, as PyTorch's
 * {@code SequentialLR} — typically a warmup then a decay:
 * <pre>{@code
 * var warmup = new LinearLR(opt, 0.1, 1.0, 5);
 * var decay = new CosineAnnealingLR(opt, 95);
 * var sched = new SequentialLR(opt, List.of(warmup, decay), List.of(5));   // decay from epoch 5
 * }</pre>
 * Making it puts the rates back to each group's {@code initial_lr} and starts the first scheduler
 * over; at a milestone the next scheduler restarts at its epoch 0 (its closed form there, as
 * PyTorch's {@code step(0)}), and each step steps only the scheduler whose span holds the epoch.
 */
public final class SequentialLR extends LRScheduler {
    private final List<LRScheduler> schedulers;
    private final int[] milestones;

    public SequentialLR(Optimizer optimizer, List<? extends LRScheduler> schedulers, List<Integer> milestones) {
        super(checked(optimizer, schedulers, milestones));
        this.schedulers = List.copyOf(schedulers);
        this.milestones = milestones.stream().mapToInt(Integer::intValue).toArray();
        for (Optimizer.ParamGroup g : optimizer.paramGroups()) g.put("lr", g.getDouble("initial_lr"));
        for (LRScheduler s : this.schedulers) s.undoStep();
        this.schedulers.get(0).step();   // the first scheduler's epoch 0 again, from the initial rates
        markFirstEpoch(this.schedulers.get(0).getLastLr());
    }

    private static Optimizer checked(Optimizer optimizer, List<? extends LRScheduler> schedulers, List<Integer> milestones) {
        if (schedulers.isEmpty()) throw new IllegalArgumentException("SequentialLR expects at least one scheduler");
        for (int i = 0; i < schedulers.size(); i++) {
            if (schedulers.get(i).optimizer() != optimizer) {
                throw new IllegalArgumentException("Sequential Schedulers expects all schedulers to belong to the same optimizer, but got scheduler "
                        + schedulers.get(i).getClass().getSimpleName() + " at index " + i + " has another optimizer");
            }
        }
        if (milestones.size() != schedulers.size() - 1) {
            throw new IllegalArgumentException("Sequential Schedulers expects number of schedulers provided to be one more than the number of milestone points, "
                    + "but got number of schedulers " + schedulers.size() + " and the number of milestones to be equal to " + milestones.size());
        }
        return optimizer;
    }

    @Override
    public void step() {
        advance();
        int epoch = lastEpoch();
        int idx = bisectRight(milestones, epoch);
        LRScheduler s = schedulers.get(idx);
        if (idx > 0 && milestones[idx - 1] == epoch) s.restart();
        else s.step();
        setLastLr(s.getLastLr());
    }

    /** How many milestones are at or before {@code epoch} (Python's bisect_right). */
    private static int bisectRight(int[] sorted, int epoch) {
        int n = 0;
        while (n < sorted.length && sorted[n] <= epoch) n++;
        return n;
    }

    /** Never called: {@link #step()} delegates to the scheduler in charge. */
    @Override
    protected List<Double> computeLr() { throw new IllegalStateException("SequentialLR steps its schedulers"); }

    @Override
    public String toString() { return "SequentialLR" + schedulers.stream().map(s -> s.getClass().getSimpleName()).toList() + " at " + Arrays.toString(milestones); }
}
