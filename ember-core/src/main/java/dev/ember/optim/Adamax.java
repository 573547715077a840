package dev.ember.optim;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Adamax (Adam with the infinity norm), as PyTorch's {@code torch.optim.Adamax}, step for step: with
 * {@code g} the gradient (negated when {@code maximize}) and {@code t} the step count,
 * <pre>
 * g = g + weight_decay * p                 (if weight_decay != 0)
 * m = lerp(m, g, 1 - beta1)                (exp_avg)
 * u = max(beta2 * u, |g| + eps)            (exp_inf)
 * p = p - lr / (1 - beta1^t) * m / u
 * </pre>
 * State: {@code step} (a 0-d float32 tensor), {@code exp_avg}, {@code exp_inf}, as PyTorch's.
 * <pre>{@code
 * var opt = new Adamax(model.parameters(), Adamax.options().lr(2e-3));
 * }</pre>
 */
public final class Adamax extends Optimizer {

    /** Adamax's options with PyTorch's defaults; each setter checks its value as PyTorch's constructor does. */
    public static final class Options {
        private double lr = 2e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0;
        private boolean maximize;

        private Options() {}

        public Options lr(double lr) { Checks.lr(lr); this.lr = lr; return this; }

        public Options betas(double beta1, double beta2) { Checks.betas(beta1, beta2); this.beta1 = beta1; this.beta2 = beta2; return this; }

        public Options eps(double eps) { Checks.eps(eps); this.eps = eps; return this; }

        public Options weightDecay(double weightDecay) { Checks.weightDecay(weightDecay); this.weightDecay = weightDecay; return this; }

        public Options maximize(boolean maximize) { this.maximize = maximize; return this; }

        Options copy() {
            Options o = new Options();
            o.lr = lr; o.beta1 = beta1; o.beta2 = beta2; o.eps = eps; o.weightDecay = weightDecay; o.maximize = maximize;
            return o;
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("lr", lr);
            m.put("betas", List.of(beta1, beta2));
            m.put("eps", eps);
            m.put("weight_decay", weightDecay);
            m.put("maximize", maximize);
            return m;
        }
    }

    /** PyTorch's defaults: {@code lr=2e-3, betas=(0.9, 0.999), eps=1e-8}, no weight decay. */
    public static Options options() { return new Options(); }

    private final Options defaults;

    public Adamax(Iterable<? extends Tensor> params, Options options) {
        super(params, options.toMap());
        this.defaults = options.copy();
    }

    /** Adds a parameter group whose options are the defaults changed by {@code overrides}. */
    public Adamax addParamGroup(Iterable<? extends Tensor> params, Consumer<Options> overrides) {
        Options o = defaults.copy();
        overrides.accept(o);
        addGroup(params, o.toMap());
        return this;
    }

    @Override
    protected void validate(Map<String, Object> o) {
        Checks.adamOptions(o);
    }

    @Override
    protected void update(ParamGroup group) {
        double lr = group.lr(), eps = group.getDouble("eps"), weightDecay = group.getDouble("weight_decay");
        double[] betas = group.getPair("betas");
        double beta1 = betas[0], beta2 = betas[1];
        boolean maximize = group.getBoolean("maximize");
        List<Tensor> params = new ArrayList<>(), grads = new ArrayList<>(), states = new ArrayList<>();
        StepNumbers numbers = new StepNumbers().add(eps, weightDecay, beta1, beta2);
        for (Tensor p : group.params()) {
            Tensor grad = p.grad();
            if (grad == null) continue;
            if (maximize) grad = grad.neg();
            Map<String, Tensor> state = stateOf(p);
            if (state.isEmpty()) {
                state.put("step", Tensor.zeros(DType.FLOAT32));
                state.put("exp_avg", Tensor.zerosLike(p));
                state.put("exp_inf", Tensor.zerosLike(p));
            }
            Tensor stepT = state.get("step");
            stepT.add_(1.0);
            double step = stepT.item();
            params.add(p);
            grads.add(grad);
            states.add(state.get("exp_avg"));
            states.add(state.get("exp_inf"));
            numbers.add(lr / (1 - Math.pow(beta1, step)));
        }
        runUpdates(Adamax::foreachUpdate, params, grads, states, numbers.toArray());
    }

    /**
     * Every parameter's update as one function of lists ({@link ForeachUpdate}), eager and
     * compiled alike: {@code h} holds eps, weight_decay, beta1 and beta2, then each parameter's
     * bias-corrected learning rate; {@code states} each parameter's exp_avg and exp_inf.
     */
    static List<Tensor> foreachUpdate(List<Tensor> params, List<Tensor> grads, List<Tensor> states, double[] h) {
        double eps = h[0], weightDecay = h[1], beta1 = h[2], beta2 = h[3];
        for (int i = 0; i < params.size(); i++) {
            Tensor p = params.get(i), grad = grads.get(i);
            if (weightDecay != 0) grad = grad.add(p, weightDecay);
            Tensor expAvg = states.get(2 * i), expInf = states.get(2 * i + 1);
            Adam.lerp_(expAvg, grad, 1 - beta1);
            // torch.amax(cat([exp_inf * beta2, |g| + eps]), 0): the elementwise maximum
            expInf.copy_(expInf.mul_(beta2).maximum(grad.abs().add_(eps)));
            p.add_(expAvg.mul(-h[4 + i]).div_(expInf));   // addcdiv_(exp_avg, exp_inf, value=-clr): value * t1 / t2, ATen's order
        }
        return params;
    }
}
