package dev.ember.optim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Changes an optimizer's learning rates as training goes, as PyTorch's
 * {@code torch.optim.lr_scheduler.LRScheduler}. Call {@link #step()} once per epoch (or per
 * iteration, as the schedule is meant), after {@code optimizer.step()}:
 * <pre>{@code
 * var sched = new CosineAnnealingLR(opt, 100, 0.0);
 * for (int epoch = 0; epoch < 100; epoch++) {
 *     train(opt);              // zeroGrad, backward, opt.step() per batch
 *     sched.step();
 * }
 * }</pre>
 * Making a scheduler records each group's {@code initial_lr} (once: a second scheduler on the same
 * optimizer keeps it) and performs the first step, which sets epoch 0's rates. Each step computes
 * the new rates from the current ones (PyTorch's chainable form), so schedulers can be combined
 * on one optimizer, and the values are those PyTorch computes, rounding included.
 */
public abstract class LRScheduler {
    protected final Optimizer optimizer;
    private final List<Double> baseLrs;
    private int lastEpoch = -1;
    private int stepCount;
    private List<Double> lastLr = List.of();

    protected LRScheduler(Optimizer optimizer) {
        if (optimizer == null) throw new IllegalArgumentException("a scheduler needs an optimizer");
        this.optimizer = optimizer;
        List<Double> base = new ArrayList<>();
        for (Optimizer.ParamGroup g : optimizer.paramGroups()) {
            if (!g.options().containsKey("initial_lr")) g.put("initial_lr", g.lr());
            base.add(g.getDouble("initial_lr"));
        }
        this.baseLrs = List.copyOf(base);
    }

    /** Sets epoch 0's rates; every subclass constructor calls it last, once its own fields are set. */
    protected final void initialStep() {
        if (stepCount != 0) throw new IllegalStateException("initialStep runs once, from the constructor");
        step();
    }

    /** Advances one epoch and sets each group's learning rate for it. */
    public void step() {
        stepCount++;
        lastEpoch++;
        apply(computeLr());
    }

    /** Sets each group's rate to {@code lrs} and records them as the last rates. */
    final void apply(List<Double> lrs) {
        List<Optimizer.ParamGroup> groups = optimizer.paramGroups();
        if (lrs.size() != groups.size()) throw new IllegalStateException(getClass().getSimpleName() + " computed " + lrs.size() + " rates for " + groups.size() + " groups");
        List<Double> now = new ArrayList<>();
        for (int i = 0; i < groups.size(); i++) {
            groups.get(i).put("lr", lrs.get(i));
            now.add(groups.get(i).lr());
        }
        lastLr = Collections.unmodifiableList(now);
    }

    /**
     * Starts the schedule over at epoch 0 (PyTorch's {@code step(0)}, what {@link SequentialLR} calls
     * at a milestone): the rates become {@link #lrsAtRestart()}.
     */
    void restart() {
        stepCount++;
        lastEpoch = 0;
        apply(lrsAtRestart());
    }

    /** Moves one epoch without computing rates: a scheduler that sets them another way ({@link SequentialLR}) calls it. */
    final void advance() {
        stepCount++;
        lastEpoch++;
    }

    /** Records the rates another scheduler set ({@link SequentialLR}). */
    final void setLastLr(List<Double> lrs) { lastLr = lrs; }

    /** Epoch 0 with the rates another scheduler set ({@link SequentialLR}'s construction). */
    final void markFirstEpoch(List<Double> lrs) {
        lastEpoch = 0;
        lastLr = lrs;
    }

    /** {@link SequentialLR} undoes the step every scheduler made when it was constructed (PyTorch's {@code last_epoch -= 1}). */
    void undoStep() { lastEpoch--; }

    /**
     * Epoch 0's rates when the schedule restarts: PyTorch uses a scheduler's closed form there when it
     * has one (the base rates, or a factor of them), so the schedulers with one override this;
     * the default is {@link #computeLr()} at epoch 0, PyTorch's {@code get_lr} for the others.
     */
    protected List<Double> lrsAtRestart() { return computeLr(); }

    /** The optimizer whose rates this changes. */
    public Optimizer optimizer() { return optimizer; }

    /**
     * The learning rates for {@link #lastEpoch()}, one per group, computed from the groups' current
     * rates (PyTorch's {@code get_lr}).
     */
    protected abstract List<Double> computeLr();

    /** The rates the last {@link #step()} set, one per parameter group (PyTorch's {@code get_last_lr()}). */
    public List<Double> getLastLr() { return lastLr; }

    /** The epoch of the last step: 0 right after construction. */
    public int lastEpoch() { return lastEpoch; }

    /** Each group's {@code initial_lr}. */
    public List<Double> baseLrs() { return baseLrs; }

    /**
     * {@code optimizer} once {@code lrLambdas} holds one function per parameter group, PyTorch's error
     * otherwise (LambdaLR, MultiplicativeLR): checked in the constructor's {@code super(…)} call, before
     * the groups get their {@code initial_lr}, so a refused scheduler leaves the optimizer as it was.
     */
    static Optimizer withOnePerGroup(Optimizer optimizer, List<?> lrLambdas) {
        if (lrLambdas.size() != optimizer.paramGroups().size()) {
            throw new IllegalArgumentException("Expected " + optimizer.paramGroups().size() + " lr_lambdas, but got " + lrLambdas.size());
        }
        return optimizer;
    }

    /** The groups' current learning rates. */
    protected final List<Double> groupLrs() {
        List<Double> out = new ArrayList<>();
        for (Optimizer.ParamGroup g : optimizer.paramGroups()) out.add(g.lr());
        return out;
    }
}
