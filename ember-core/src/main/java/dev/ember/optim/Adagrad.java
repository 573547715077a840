package dev.ember.optim;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Adagrad, as PyTorch's {@code torch.optim.Adagrad}, step for step: with {@code g} the gradient
 * (negated when {@code maximize}) and {@code t} the step count,
 * <pre>
 * g = g + weight_decay * p                 (if weight_decay != 0)
 * clr = lr / (1 + (t - 1) * lr_decay)
 * s = s + g²                               (sum, starting at initial_accumulator_value)
 * p = p - clr * g / (sqrt(s) + eps)
 * </pre>
 * State ({@code step}, a 0-d float32 tensor, and {@code sum}) is made when a parameter joins, as
 * PyTorch's.
 */
public final class Adagrad extends Optimizer {

    /** Adagrad's options with PyTorch's defaults; each setter checks its value as PyTorch's constructor does. */
    public static final class Options {
        private double lr = 1e-2, lrDecay = 0, weightDecay = 0, initialAccumulatorValue = 0, eps = 1e-10;
        private boolean maximize;

        private Options() {}

        public Options lr(double lr) { check("learning rate", lr); this.lr = lr; return this; }

        public Options lrDecay(double lrDecay) { check("lr_decay value", lrDecay); this.lrDecay = lrDecay; return this; }

        public Options weightDecay(double weightDecay) { check("weight_decay value", weightDecay); this.weightDecay = weightDecay; return this; }

        public Options initialAccumulatorValue(double v) { check("initial_accumulator_value value", v); this.initialAccumulatorValue = v; return this; }

        public Options eps(double eps) { check("epsilon value", eps); this.eps = eps; return this; }

        public Options maximize(boolean maximize) { this.maximize = maximize; return this; }

        Options copy() {
            Options o = new Options();
            o.lr = lr; o.lrDecay = lrDecay; o.weightDecay = weightDecay; o.initialAccumulatorValue = initialAccumulatorValue; o.eps = eps; o.maximize = maximize;
            return o;
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("lr", lr);
            m.put("lr_decay", lrDecay);
            m.put("eps", eps);
            m.put("weight_decay", weightDecay);
            m.put("initial_accumulator_value", initialAccumulatorValue);
            m.put("maximize", maximize);
            return m;
        }
    }

    /** PyTorch's defaults: {@code lr=1e-2, lr_decay=0, eps=1e-10}, no weight decay, accumulators from 0. */
    public static Options options() { return new Options(); }

    private final Options defaults;

    public Adagrad(Iterable<? extends Tensor> params, Options options) {
        super(params, options.toMap());
        this.defaults = options.copy();
        initState();
    }

    /** Adds a parameter group whose options are the defaults changed by {@code overrides}. */
    public Adagrad addParamGroup(Iterable<? extends Tensor> params, Consumer<Options> overrides) {
        Options o = defaults.copy();
        overrides.accept(o);
        addGroup(params, o.toMap());
        initState();
        return this;
    }

    /** PyTorch makes each parameter's step and sum when it joins, so the state dict has them before the first step. */
    private void initState() {
        for (ParamGroup g : paramGroups()) {
            for (Tensor p : g.params()) initState(p, g.getDouble("initial_accumulator_value"));
        }
    }

    private void initState(Tensor p, double initial) {
        Map<String, Tensor> state = stateOf(p);
        if (!state.isEmpty()) return;
        state.put("step", Tensor.zeros(DType.FLOAT32));
        state.put("sum", Tensor.fullLike(p, initial));
    }

    private static void check(String what, double v) {
        if (!(v >= 0)) throw new IllegalArgumentException("Invalid " + what + ": " + Py.repr(v));
    }

    @Override
    protected void validate(Map<String, Object> o) {
        check("learning rate", (Double) o.get("lr"));
        check("lr_decay value", (Double) o.get("lr_decay"));
        check("weight_decay value", (Double) o.get("weight_decay"));
        check("initial_accumulator_value value", (Double) o.get("initial_accumulator_value"));
        check("epsilon value", (Double) o.get("eps"));
    }

    @Override
    protected void update(ParamGroup group) {
        double lr = group.lr(), lrDecay = group.getDouble("lr_decay"), eps = group.getDouble("eps"), weightDecay = group.getDouble("weight_decay");
        boolean maximize = group.getBoolean("maximize");
        List<Tensor> params = new ArrayList<>(), grads = new ArrayList<>(), states = new ArrayList<>();
        StepNumbers numbers = new StepNumbers().add(eps, weightDecay);
        for (Tensor p : group.params()) {
            Tensor grad = p.grad();
            if (grad == null) continue;
            initState(p, group.getDouble("initial_accumulator_value"));   // after a loadStateDict that had none
            Map<String, Tensor> state = stateOf(p);
            Tensor stepT = state.get("step");
            stepT.add_(1.0);
            double step = stepT.item();
            if (maximize) grad = grad.neg();
            params.add(p);
            grads.add(grad);
            states.add(state.get("sum"));
            numbers.add(lr / (1 + (step - 1) * lrDecay));
        }
        runUpdates(Adagrad::foreachUpdate, params, grads, states, numbers.toArray());
    }

    /**
     * Every parameter's update as one function of lists ({@link ForeachUpdate}), eager and
     * compiled alike: {@code h} holds eps and weight_decay, then each parameter's decayed learning
     * rate; {@code states} each parameter's sum.
     */
    static List<Tensor> foreachUpdate(List<Tensor> params, List<Tensor> grads, List<Tensor> states, double[] h) {
        double eps = h[0], weightDecay = h[1];
        for (int i = 0; i < params.size(); i++) {
            Tensor p = params.get(i), grad = grads.get(i);
            if (weightDecay != 0) grad = grad.add(p, weightDecay);
            Tensor sum = states.get(i);
            sum.add_(grad.mul(1.0).mul_(grad));            // addcmul_(grad, grad, value=1)
            Tensor std = sum.sqrt().add_(eps);
            p.add_(grad.mul(-h[2 + i]).div_(std));         // addcdiv_(grad, std, value=-clr): value * t1 / t2, ATen's order
        }
        return params;
    }
}
