package dev.ember.optim;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Adam, as PyTorch's {@code torch.optim.Adam} (its single-tensor implementation, op for op). With
 * {@code g} the gradient (negated when {@code maximize}) and {@code t} the step count:
 * <pre>
 * p = p * (1 - lr * weight_decay)      (decoupled weight decay: AdamW)
 * g = g + weight_decay * p             (otherwise, if weight_decay != 0)
 * m = lerp(m, g, 1 - beta1)            (= beta1 * m + (1 - beta1) * g)
 * v = beta2 * v + (1 - beta2) * g * g
 * vmax = max(vmax, v)                  (amsgrad; then vmax replaces v below)
 * p = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
 * </pre>
 * A parameter's state holds {@code step} (a 0-d float32 tensor, as PyTorch's), {@code exp_avg},
 * {@code exp_avg_sq} and, with amsgrad, {@code max_exp_avg_sq}.
 * <pre>{@code
 * var opt = new Adam(model.parameters(), Adam.options().lr(1e-3).betas(0.9, 0.99).amsgrad(true));
 * }</pre>
 */
public class Adam extends Optimizer {

    /** Adam's options, with PyTorch's defaults; each setter checks its value as PyTorch's constructor does. */
    public static final class Options {
        private double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0;
        private boolean amsgrad, maximize, decoupledWeightDecay;

        private Options() {}

        public Options lr(double lr) { Checks.lr(lr); this.lr = lr; return this; }

        /** The decay rates of the running averages of the gradient and of its square. */
        public Options betas(double beta1, double beta2) { Checks.betas(beta1, beta2); this.beta1 = beta1; this.beta2 = beta2; return this; }

        /** Added to the denominator for numerical stability. */
        public Options eps(double eps) { Checks.eps(eps); this.eps = eps; return this; }

        /** An L2 penalty added to the gradient, or with {@link #decoupledWeightDecay} (AdamW) a shrinking of the parameter. */
        public Options weightDecay(double weightDecay) { Checks.weightDecay(weightDecay); this.weightDecay = weightDecay; return this; }

        /** The AMSGrad variant: the largest second moment so far in the denominator. */
        public Options amsgrad(boolean amsgrad) { this.amsgrad = amsgrad; return this; }

        public Options maximize(boolean maximize) { this.maximize = maximize; return this; }

        /** Weight decay as AdamW applies it, {@code p * (1 - lr * weight_decay)}, instead of through the gradient. */
        public Options decoupledWeightDecay(boolean decoupled) { this.decoupledWeightDecay = decoupled; return this; }

        Options copy() {
            Options o = new Options();
            o.lr = lr; o.beta1 = beta1; o.beta2 = beta2; o.eps = eps; o.weightDecay = weightDecay;
            o.amsgrad = amsgrad; o.maximize = maximize; o.decoupledWeightDecay = decoupledWeightDecay;
            return o;
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("lr", lr);
            m.put("betas", List.of(beta1, beta2));
            m.put("eps", eps);
            m.put("weight_decay", weightDecay);
            m.put("amsgrad", amsgrad);
            m.put("maximize", maximize);
            m.put("decoupled_weight_decay", decoupledWeightDecay);
            return m;
        }
    }

    /** PyTorch's defaults: {@code lr=1e-3, betas=(0.9, 0.999), eps=1e-8}, no weight decay. */
    public static Options options() { return new Options(); }

    private final Options defaults;

    public Adam(Iterable<? extends Tensor> params, Options options) {
        super(params, options.toMap());
        this.defaults = options.copy();
    }

    /** Adds a parameter group whose options are the defaults changed by {@code overrides}: {@code opt.addParamGroup(head.parameters(), o -> o.lr(1e-2))}. */
    public Adam addParamGroup(Iterable<? extends Tensor> params, Consumer<Options> overrides) {
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
        boolean amsgrad = group.getBoolean("amsgrad"), maximize = group.getBoolean("maximize"), decoupled = group.getBoolean("decoupled_weight_decay");
        List<Tensor> params = new ArrayList<>(), grads = new ArrayList<>(), states = new ArrayList<>();
        StepNumbers numbers = new StepNumbers().add(lr, beta1, beta2, eps, weightDecay, StepNumbers.flag(decoupled), StepNumbers.flag(amsgrad));
        for (Tensor p : group.params()) {
            Tensor grad = p.grad();
            if (grad == null) continue;
            if (maximize) grad = grad.neg();
            Map<String, Tensor> state = stateOf(p);
            if (state.isEmpty()) {
                state.put("step", Tensor.zeros(DType.FLOAT32));
                state.put("exp_avg", Tensor.zerosLike(p));
                state.put("exp_avg_sq", Tensor.zerosLike(p));
            }
            if (amsgrad && !state.containsKey("max_exp_avg_sq")) state.put("max_exp_avg_sq", Tensor.zerosLike(p));
            Tensor stepT = state.get("step");
            stepT.add_(1.0);
            double step = stepT.item();
            double stepSize = lr / (1 - Math.pow(beta1, step));
            double biasCorrection2Sqrt = Math.sqrt(1 - Math.pow(beta2, step));
            Tensor expAvg = state.get("exp_avg"), expAvgSq = state.get("exp_avg_sq"), maxExpAvgSq = state.get("max_exp_avg_sq");
            if (!stepsCompiled() && FusedUpdate.applies(p, grad, expAvg, expAvgSq, maxExpAvgSq)) {
                // one pass, the same float32 operations in the same order (FusedUpdate)
                FusedUpdate.adam(p, grad, expAvg, expAvgSq, maxExpAvgSq, lr, beta1, beta2, eps, weightDecay, decoupled, stepSize, biasCorrection2Sqrt);
                continue;
            }
            params.add(p);
            grads.add(grad);
            states.add(expAvg);
            states.add(expAvgSq);
            if (amsgrad) states.add(maxExpAvgSq);
            numbers.add(stepSize, biasCorrection2Sqrt);
        }
        runUpdates(Adam::foreachUpdate, params, grads, states, numbers.toArray());
    }

    /**
     * Every parameter's update as one function of lists ({@link ForeachUpdate}), what
     * {@code Ember.compile(optimizer)} compiles: {@code h} holds lr, beta1, beta2, eps,
     * weight_decay, decoupled and amsgrad (1 or 0), then each parameter's step size and
     * bias-correction root; {@code states} each parameter's exp_avg, exp_avg_sq and, with amsgrad,
     * max_exp_avg_sq.
     */
    static List<Tensor> foreachUpdate(List<Tensor> params, List<Tensor> grads, List<Tensor> states, double[] h) {
        boolean decoupled = h[5] != 0, amsgrad = h[6] != 0;
        int k = amsgrad ? 3 : 2;
        for (int i = 0; i < params.size(); i++) {
            updateOne(params.get(i), grads.get(i), states.get(k * i), states.get(k * i + 1), amsgrad ? states.get(k * i + 2) : null,
                    h[0], h[1], h[2], h[3], h[4], decoupled, h[7 + 2 * i], h[8 + 2 * i]);
        }
        return params;
    }

    /** One parameter's update once its step count has advanced, eager and compiled alike. */
    private static void updateOne(Tensor p, Tensor grad, Tensor expAvg, Tensor expAvgSq, Tensor maxExpAvgSq, double lr, double beta1, double beta2,
                                  double eps, double weightDecay, boolean decoupled, double stepSize, double biasCorrection2Sqrt) {
        decayAndMoments(p, grad, expAvg, expAvgSq, lr, beta1, beta2, weightDecay, decoupled);
        Tensor second = expAvgSq;
        if (maxExpAvgSq != null) {
            maxExpAvgSq.maximumOut(expAvgSq, maxExpAvgSq);
            second = maxExpAvgSq;
        }
        Tensor denom = second.sqrt().div_(biasCorrection2Sqrt).add_(eps);
        p.add_(expAvg.mul(-stepSize).div_(denom));   // addcdiv_(exp_avg, denom, value=-step_size): value * t1 / t2, in ATen's order
    }

    /**
     * The start Adam, NAdam and RAdam share: weight decay (decoupled, AdamW's {@code p * (1 - lr *
     * weight_decay)}, or added to the gradient), then both moments. Returns the gradient the
     * moments saw. Temporaries are updated in place (the same operations in the same order, so the
     * same values): each new tensor is a parameter-sized array the JVM must zero first.
     */
    static Tensor decayAndMoments(Tensor p, Tensor grad, Tensor expAvg, Tensor expAvgSq, double lr, double beta1, double beta2,
                                  double weightDecay, boolean decoupled) {
        if (weightDecay != 0) {
            if (decoupled) p.mul_(1 - lr * weightDecay);
            else grad = grad.add(p, weightDecay);
        }
        lerp_(expAvg, grad, 1 - beta1);
        expAvgSq.mul_(beta2).add_(grad.mul(1 - beta2).mul_(grad));   // addcmul_(grad, grad, value=1 - beta2): value * t1 * t2, in ATen's order
        return grad;
    }

    /** ATen's lerp with a scalar weight, in place: {@code self + w * (end - self)} for {@code w < 0.5}, else {@code end - (end - self) * (1 - w)}. */
    static void lerp_(Tensor self, Tensor end, double weight) {
        if (Math.abs(weight) < 0.5) self.add_(end.sub(self), weight);
        else self.copy_(end.sub(end.sub(self).mul(1 - weight)));
    }
}
