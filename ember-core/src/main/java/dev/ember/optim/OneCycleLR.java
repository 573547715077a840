package dev.ember.optim;

import java.util.ArrayList;
import java.util.List;

/**
 * The 1cycle policy, as PyTorch's {@code OneCycleLR}: the rate rises from
 * {@code max_lr / div_factor} to {@code max_lr} over the first {@code pct_start} of
 * {@code total_steps}, then falls to {@code initial_lr / final_div_factor} (cosine or linear
 * annealing), while the momentum (SGD's {@code momentum}, or Adam's first beta) moves the other way
 * between {@code max_momentum} and {@code base_momentum}. With {@code threePhase} the rate comes
 * back down to its initial value before the final fall. Step it after every batch, not every epoch:
 * {@code total_steps} steps in all, and one more is an error.
 * <pre>{@code
 * var sched = new OneCycleLR(opt, OneCycleLR.options(0.1).epochs(10).stepsPerEpoch(batches));
 * }</pre>
 */
public final class OneCycleLR extends LRScheduler {

    /** OneCycleLR's options with PyTorch's defaults; {@code totalSteps} or both {@code epochs} and {@code stepsPerEpoch} must be given. */
    public static final class Options {
        private final double maxLr;
        /** Null until given, as PyTorch's None. */
        private Integer totalSteps, epochs, stepsPerEpoch;
        private double pctStart = 0.3, baseMomentum = 0.85, maxMomentum = 0.95, divFactor = 25, finalDivFactor = 1e4;
        private String annealStrategy = "cos";
        private boolean cycleMomentum = true, threePhase;

        private Options(double maxLr) { this.maxLr = maxLr; }

        public Options totalSteps(int totalSteps) { this.totalSteps = totalSteps; return this; }

        public Options epochs(int epochs) { this.epochs = epochs; return this; }

        public Options stepsPerEpoch(int stepsPerEpoch) { this.stepsPerEpoch = stepsPerEpoch; return this; }

        public Options pctStart(double pctStart) { this.pctStart = pctStart; return this; }

        /** {@code "cos"} or {@code "linear"}. */
        public Options annealStrategy(String annealStrategy) { this.annealStrategy = annealStrategy; return this; }

        public Options cycleMomentum(boolean cycleMomentum) { this.cycleMomentum = cycleMomentum; return this; }

        public Options baseMomentum(double baseMomentum) { this.baseMomentum = baseMomentum; return this; }

        public Options maxMomentum(double maxMomentum) { this.maxMomentum = maxMomentum; return this; }

        public Options divFactor(double divFactor) { this.divFactor = divFactor; return this; }

        public Options finalDivFactor(double finalDivFactor) { this.finalDivFactor = finalDivFactor; return this; }

        public Options threePhase(boolean threePhase) { this.threePhase = threePhase; return this; }
    }

    /** Options for a cycle peaking at {@code maxLr}. */
    public static Options options(double maxLr) { return new Options(maxLr); }

    /** One phase: from {@code startLr} to {@code endLr} (and the momenta) until step {@code endStep}; the values are group option names. */
    private record Phase(double endStep, String startLr, String endLr, String startMomentum, String endMomentum) {}

    private final int totalSteps;
    private final List<Phase> phases;
    private final boolean cos, cycleMomentum, useBeta1;

    public OneCycleLR(Optimizer optimizer, Options o) {
        super(prepared(optimizer, o));
        this.totalSteps = o.totalSteps != null ? o.totalSteps : o.epochs * o.stepsPerEpoch;
        double pct = o.pctStart * totalSteps;
        this.phases = o.threePhase
                ? List.of(new Phase(pct - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                          new Phase(2 * pct - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"),
                          new Phase(totalSteps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"))
                : List.of(new Phase(pct - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                          new Phase(totalSteps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"));
        this.cos = o.annealStrategy.equals("cos");
        this.cycleMomentum = o.cycleMomentum;
        this.useBeta1 = optimizer.defaults().containsKey("betas");
        initialStep();
    }

    /** Checks the options and writes each group's initial, max and min rates and momenta, before the base class reads initial_lr. */
    private static Optimizer prepared(Optimizer optimizer, Options o) {
        if (o.totalSteps != null) {
            if (o.totalSteps <= 0) throw new IllegalArgumentException("Expected positive integer total_steps, but got " + o.totalSteps);
        } else if (o.epochs == null || o.stepsPerEpoch == null) {
            throw new IllegalArgumentException("You must define either total_steps OR (epochs AND steps_per_epoch)");
        } else {
            if (o.epochs <= 0) throw new IllegalArgumentException("Expected positive integer epochs, but got " + o.epochs);
            if (o.stepsPerEpoch <= 0) throw new IllegalArgumentException("Expected positive integer steps_per_epoch, but got " + o.stepsPerEpoch);
        }
        if (!(o.pctStart >= 0 && o.pctStart <= 1)) throw new IllegalArgumentException("Expected float between 0 and 1 pct_start, but got " + Py.repr(o.pctStart));
        if (!o.annealStrategy.equals("cos") && !o.annealStrategy.equals("linear")) {
            throw new IllegalArgumentException("anneal_strategy must be one of 'cos' or 'linear', instead got " + o.annealStrategy);
        }
        boolean useBeta1 = optimizer.defaults().containsKey("betas");
        if (o.cycleMomentum && !useBeta1 && !optimizer.defaults().containsKey("momentum")) {
            throw new IllegalArgumentException("optimizer must support momentum or beta1 with `cycle_momentum` option enabled");
        }
        for (Optimizer.ParamGroup g : optimizer.paramGroups()) {
            double initial = o.maxLr / o.divFactor;
            g.put("initial_lr", initial);
            g.put("max_lr", o.maxLr);
            g.put("min_lr", initial / o.finalDivFactor);
            if (o.cycleMomentum) {
                setMomentum(g, useBeta1, o.maxMomentum);
                g.put("max_momentum", o.maxMomentum);
                g.put("base_momentum", o.baseMomentum);
            }
        }
        return optimizer;
    }

    private static void setMomentum(Optimizer.ParamGroup g, boolean useBeta1, double momentum) {
        if (useBeta1) g.put("betas", List.of(momentum, g.getPair("betas")[1]));
        else g.put("momentum", momentum);
    }

    private double anneal(double start, double end, double pct) {
        return cos ? end + (start - end) / 2.0 * (Math.cos(Math.PI * pct) + 1) : (end - start) * pct + start;
    }

    @Override
    protected List<Double> computeLr() {
        int step = lastEpoch();
        if (step > totalSteps) throw new IllegalStateException("Tried to step " + step + " times. The specified number of total steps is " + totalSteps);
        List<Double> lrs = new ArrayList<>();
        for (Optimizer.ParamGroup g : optimizer.paramGroups()) {
            double start = 0, lr = 0, momentum = 0;
            for (int i = 0; i < phases.size(); i++) {
                Phase p = phases.get(i);
                if (step <= p.endStep() || i == phases.size() - 1) {
                    double pct = (step - start) / (p.endStep() - start);
                    lr = anneal(g.getDouble(p.startLr()), g.getDouble(p.endLr()), pct);
                    if (cycleMomentum) momentum = anneal(g.getDouble(p.startMomentum()), g.getDouble(p.endMomentum()), pct);
                    break;
                }
                start = p.endStep();
            }
            lrs.add(lr);
            if (cycleMomentum) setMomentum(g, useBeta1, momentum);
        }
        return lrs;
    }
}
