package dev.ember.optim;

import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleUnaryOperator;

/**
 * Cyclical learning rates, as PyTorch's {@code CyclicLR}: the rate goes from {@code base_lr} up to
 * {@code max_lr} over {@code step_size_up} steps and back over {@code step_size_down}, with the
 * height of each cycle scaled by the mode's function ({@code triangular}: constant;
 * {@code triangular2}: halved every cycle; {@code exp_range}: {@code gamma^iteration}), or by a
 * user's {@code scaleFn}. With {@code cycleMomentum} (the default) the momentum (SGD's
 * {@code momentum}, or the first beta of Adam-like optimizers) moves the other way between
 * {@code max_momentum} and {@code base_momentum}. Step it after every batch. Construction sets each
 * group's rate to {@code base_lr} (and momentum to {@code max_momentum}), as PyTorch's.
 * <pre>{@code
 * var sched = new CyclicLR(opt, CyclicLR.options(0.001, 0.1).stepSizeUp(500).mode("triangular2"));
 * }</pre>
 */
public final class CyclicLR extends LRScheduler {

    /** CyclicLR's options with PyTorch's defaults. */
    public static final class Options {
        private final double baseLr, maxLr;
        private double stepSizeUp = 2000, gamma = 1.0, baseMomentum = 0.8, maxMomentum = 0.9;
        /** Null until given: then it is step_size_up, as PyTorch's None. */
        private Double stepSizeDown;
        private String mode = "triangular", scaleMode = "cycle";
        private DoubleUnaryOperator scaleFn;
        private boolean cycleMomentum = true;

        private Options(double baseLr, double maxLr) { this.baseLr = baseLr; this.maxLr = maxLr; }

        /** Steps from the bottom of a cycle to its top. */
        public Options stepSizeUp(int steps) { this.stepSizeUp = steps; return this; }

        /** Steps from the top back to the bottom; {@code stepSizeUp} unless given. */
        public Options stepSizeDown(int steps) { this.stepSizeDown = (double) steps; return this; }

        /** {@code "triangular"}, {@code "triangular2"} or {@code "exp_range"}; ignored when a {@link #scaleFn} is given. */
        public Options mode(String mode) { this.mode = mode; return this; }

        /** The base of {@code exp_range}'s scale, {@code gamma^iteration}. */
        public Options gamma(double gamma) { this.gamma = gamma; return this; }

        /**
         * A custom scale of each cycle's height, called with the cycle number (from 1) when
         * {@code scaleMode} is {@code "cycle"}, or with the iteration when it is {@code "iterations"}.
         */
        public Options scaleFn(DoubleUnaryOperator scaleFn, String scaleMode) { this.scaleFn = scaleFn; this.scaleMode = scaleMode; return this; }

        public Options cycleMomentum(boolean cycleMomentum) { this.cycleMomentum = cycleMomentum; return this; }

        public Options baseMomentum(double baseMomentum) { this.baseMomentum = baseMomentum; return this; }

        public Options maxMomentum(double maxMomentum) { this.maxMomentum = maxMomentum; return this; }
    }

    /** Options for cycles between {@code baseLr} and {@code maxLr} in every group. */
    public static Options options(double baseLr, double maxLr) { return new Options(baseLr, maxLr); }

    private final double baseLr, maxLr, totalSize, stepRatio, baseMomentum, maxMomentum;
    private final DoubleUnaryOperator scaleFn;
    private final boolean byCycle, cycleMomentum, useBeta1;

    public CyclicLR(Optimizer optimizer, Options o) {
        super(prepared(optimizer, o));
        this.baseLr = o.baseLr;
        this.maxLr = o.maxLr;
        double down = o.stepSizeDown != null ? o.stepSizeDown : o.stepSizeUp;
        this.totalSize = o.stepSizeUp + down;
        this.stepRatio = o.stepSizeUp / totalSize;
        if (o.scaleFn != null) {
            this.scaleFn = o.scaleFn;
            this.byCycle = o.scaleMode.equals("cycle");
        } else {
            double gamma = o.gamma;
            this.scaleFn = switch (o.mode) {
                case "triangular" -> x -> 1.0;
                case "triangular2" -> x -> 1 / Math.pow(2.0, x - 1);
                default -> x -> Math.pow(gamma, x);   // exp_range
            };
            this.byCycle = !o.mode.equals("exp_range");
        }
        this.cycleMomentum = o.cycleMomentum;
        this.baseMomentum = o.baseMomentum;
        this.maxMomentum = o.maxMomentum;
        this.useBeta1 = optimizer.defaults().containsKey("betas");
        initialStep();
    }

    /** Checks the options and sets each group's rate to base_lr and momentum to max_momentum, before the base class reads initial_lr. */
    private static Optimizer prepared(Optimizer optimizer, Options o) {
        if (o.scaleFn == null && !List.of("triangular", "triangular2", "exp_range").contains(o.mode)) {
            throw new IllegalArgumentException("mode is invalid and scale_fn is None");
        }
        if (o.scaleFn != null && !o.scaleMode.equals("cycle") && !o.scaleMode.equals("iterations")) {
            throw new IllegalArgumentException("scale_mode must be 'cycle' or 'iterations', got " + o.scaleMode);
        }
        if (!(o.stepSizeUp > 0) || (o.stepSizeDown != null && !(o.stepSizeDown > 0))) {
            throw new IllegalArgumentException("step_size_up and step_size_down must be positive numbers of steps");
        }
        boolean useBeta1 = optimizer.defaults().containsKey("betas");
        if (o.cycleMomentum && !useBeta1 && !optimizer.defaults().containsKey("momentum")) {
            throw new IllegalArgumentException("optimizer must support momentum or beta1 with `cycle_momentum` option enabled");
        }
        for (Optimizer.ParamGroup g : optimizer.paramGroups()) {
            g.put("lr", o.baseLr);
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

    @Override
    protected List<Double> computeLr() {
        int epoch = lastEpoch();
        double cycle = Math.floor(1 + epoch / totalSize);
        double x = 1.0 + epoch / totalSize - cycle;
        double scaleFactor = x <= stepRatio ? x / stepRatio : (x - 1) / (stepRatio - 1);
        double scale = scaleFn.applyAsDouble(byCycle ? cycle : epoch);
        List<Double> lrs = new ArrayList<>();
        for (Optimizer.ParamGroup g : optimizer.paramGroups()) {
            lrs.add(baseLr + (maxLr - baseLr) * scaleFactor * scale);
            if (cycleMomentum) setMomentum(g, useBeta1, maxMomentum - (maxMomentum - baseMomentum) * scaleFactor * scale);
        }
        return lrs;
    }
}
