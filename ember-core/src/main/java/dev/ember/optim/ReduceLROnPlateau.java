package dev.ember.optim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Lowers the learning rate when a metric stops improving, as PyTorch's {@code ReduceLROnPlateau}:
 * after more than {@code patience} epochs without an improvement (in {@code mode} "min" a fall
 * below {@code best * (1 - threshold)} for {@code thresholdMode} "rel", below
 * {@code best - threshold} for "abs"; "max" mirrors it), every group's rate becomes
 * {@code max(lr * factor, min_lr)} (a change under {@code eps} is skipped), then {@code cooldown}
 * epochs pass before bad epochs count again. It is stepped with the metric:
 * <pre>{@code
 * var sched = new ReduceLROnPlateau(opt, ReduceLROnPlateau.options().patience(2));
 * for (...) { train(); sched.step(validationLoss); }
 * }</pre>
 * Unlike the other schedulers it reads no {@code initial_lr} and keeps the rates it finds.
 */
public final class ReduceLROnPlateau {

    /** The options, with PyTorch's defaults. */
    public static final class Options {
        private String mode = "min", thresholdMode = "rel";
        private double factor = 0.1, threshold = 1e-4, eps = 1e-8;
        private int patience = 10, cooldown;
        private List<Double> minLrs = List.of(0.0);

        private Options() {}

        /** {@code "min"} (a loss) or {@code "max"} (an accuracy). */
        public Options mode(String mode) { this.mode = mode; return this; }

        public Options factor(double factor) { this.factor = factor; return this; }

        public Options patience(int patience) { this.patience = patience; return this; }

        public Options threshold(double threshold) { this.threshold = threshold; return this; }

        /** {@code "rel"} or {@code "abs"}. */
        public Options thresholdMode(String thresholdMode) { this.thresholdMode = thresholdMode; return this; }

        public Options cooldown(int cooldown) { this.cooldown = cooldown; return this; }

        /** One floor for every group. */
        public Options minLr(double minLr) { this.minLrs = List.of(minLr); return this; }

        /** One floor per group. */
        public Options minLrs(List<Double> minLrs) { this.minLrs = List.copyOf(minLrs); return this; }

        public Options eps(double eps) { this.eps = eps; return this; }
    }

    public static Options options() { return new Options(); }

    private final Optimizer optimizer;
    private final boolean minMode, relative;
    private final double factor, threshold, eps;
    private final int patience, cooldown;
    private final List<Double> minLrs;
    private double best;
    private int numBadEpochs, cooldownCounter, lastEpoch;
    private List<Double> lastLr;

    public ReduceLROnPlateau(Optimizer optimizer) { this(optimizer, options()); }

    public ReduceLROnPlateau(Optimizer optimizer, Options o) {
        if (optimizer == null) throw new IllegalArgumentException("a scheduler needs an optimizer");
        if (o.factor >= 1.0) throw new IllegalArgumentException("Factor should be < 1.0.");
        if (!o.mode.equals("min") && !o.mode.equals("max")) throw new IllegalArgumentException("mode " + o.mode + " is unknown!");
        if (!o.thresholdMode.equals("rel") && !o.thresholdMode.equals("abs")) throw new IllegalArgumentException("threshold mode " + o.thresholdMode + " is unknown!");
        int groups = optimizer.paramGroups().size();
        if (o.minLrs.size() != 1 && o.minLrs.size() != groups) throw new IllegalArgumentException("expected " + groups + " min_lrs, got " + o.minLrs.size());
        this.optimizer = optimizer;
        this.minMode = o.mode.equals("min");
        this.relative = o.thresholdMode.equals("rel");
        this.factor = o.factor;
        this.threshold = o.threshold;
        this.eps = o.eps;
        this.patience = o.patience;
        this.cooldown = o.cooldown;
        this.minLrs = o.minLrs.size() == 1 ? Collections.nCopies(groups, o.minLrs.get(0)) : o.minLrs;
        this.best = minMode ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
        this.lastLr = currentLrs();
    }

    /** One epoch ended with {@code metric}: counts it as an improvement or not, and lowers the rates after too many that are not. */
    public void step(double metric) {
        lastEpoch++;
        if (isBetter(metric)) {
            best = metric;
            numBadEpochs = 0;
        } else {
            numBadEpochs++;
        }
        if (cooldownCounter > 0) {
            cooldownCounter--;
            numBadEpochs = 0;   // bad epochs during the cooldown are forgiven
        }
        if (numBadEpochs > patience) {
            reduce();
            cooldownCounter = cooldown;
            numBadEpochs = 0;
        }
        lastLr = currentLrs();
    }

    private boolean isBetter(double a) {
        if (minMode) return relative ? a < best * (1.0 - threshold) : a < best - threshold;
        return relative ? a > best * (threshold + 1.0) : a > best + threshold;
    }

    private void reduce() {
        List<Optimizer.ParamGroup> groups = optimizer.paramGroups();
        for (int i = 0; i < groups.size(); i++) {
            double old = groups.get(i).lr(), next = Math.max(old * factor, minLrs.get(i));
            if (old - next > eps) groups.get(i).put("lr", next);
        }
    }

    private List<Double> currentLrs() {
        List<Double> out = new ArrayList<>();
        for (Optimizer.ParamGroup g : optimizer.paramGroups()) out.add(g.lr());
        return Collections.unmodifiableList(out);
    }

    /** The rates after the last step, one per group. */
    public List<Double> getLastLr() { return lastLr; }

    /** The best metric so far. */
    public double best() { return best; }

    /** Epochs in a row without an improvement. */
    public int numBadEpochs() { return numBadEpochs; }

    public int lastEpoch() { return lastEpoch; }
}
