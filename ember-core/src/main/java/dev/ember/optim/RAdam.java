package dev.ember.optim;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * RAdam (rectified Adam), as PyTorch's {@code torch.optim.RAdam}, step for step: with {@code g} the
 * gradient (negated when {@code maximize}) and {@code t} the step count,
 * <pre>
 * p = p * (1 - lr * weight_decay)                      (decoupled weight decay)
 * g = g + weight_decay * p                             (otherwise, if weight_decay != 0)
 * m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g²
 * rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
 * p = p - m / (1 - beta1^t) * lr * sqrt(1 - beta2^t) / (sqrt(v) + eps) * r_t   (rho_t > 5; r_t the rectification)
 * p = p - m / (1 - beta1^t) * lr                                               (otherwise)
 * </pre>
 * State: {@code step} (a 0-d float32 tensor), {@code exp_avg}, {@code exp_avg_sq}, as PyTorch's.
 */
public final class RAdam extends Optimizer {

    /** RAdam's options with PyTorch's defaults; each setter checks its value as PyTorch's constructor does. */
    public static final class Options {
        private double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0;
        private boolean decoupledWeightDecay, maximize;

        private Options() {}

        public Options lr(double lr) { Checks.lr(lr); this.lr = lr; return this; }

        public Options betas(double beta1, double beta2) { Checks.betas(beta1, beta2); this.beta1 = beta1; this.beta2 = beta2; return this; }

        public Options eps(double eps) { Checks.eps(eps); this.eps = eps; return this; }

        public Options weightDecay(double weightDecay) { Checks.weightDecay(weightDecay); this.weightDecay = weightDecay; return this; }

        /** Weight decay as AdamW applies it, {@code p * (1 - lr * weight_decay)}, instead of through the gradient. */
        public Options decoupledWeightDecay(boolean decoupled) { this.decoupledWeightDecay = decoupled; return this; }

        public Options maximize(boolean maximize) { this.maximize = maximize; return this; }

        Options copy() {
            Options o = new Options();
            o.lr = lr; o.beta1 = beta1; o.beta2 = beta2; o.eps = eps; o.weightDecay = weightDecay;
            o.decoupledWeightDecay = decoupledWeightDecay; o.maximize = maximize;
            return o;
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("lr", lr);
            m.put("betas", List.of(beta1, beta2));
            m.put("eps", eps);
            m.put("weight_decay", weightDecay);
            m.put("decoupled_weight_decay", decoupledWeightDecay);
            m.put("maximize", maximize);
            return m;
        }
    }

    /** PyTorch's defaults: {@code lr=1e-3, betas=(0.9, 0.999), eps=1e-8}, no weight decay. */
    public static Options options() { return new Options(); }

    private final Options defaults;

    public RAdam(Iterable<? extends Tensor> params, Options options) {
        super(params, options.toMap());
        this.defaults = options.copy();
    }

    /** Adds a parameter group whose options are the defaults changed by {@code overrides}. */
    public RAdam addParamGroup(Iterable<? extends Tensor> params, Consumer<Options> overrides) {
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
        boolean maximize = group.getBoolean("maximize"), decoupled = group.getBoolean("decoupled_weight_decay");
        List<Tensor> params = new ArrayList<>(), grads = new ArrayList<>(), states = new ArrayList<>();
        StepNumbers numbers = new StepNumbers().add(lr, eps, weightDecay, StepNumbers.flag(decoupled), beta1, beta2);
        double rhoInf = 2 / (1 - beta2) - 1;
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
            Tensor stepT = state.get("step");
            stepT.add_(1.0);
            double step = stepT.item();
            double biasCorrection1 = 1 - Math.pow(beta1, step), biasCorrection2 = 1 - Math.pow(beta2, step);
            double rhoT = rhoInf - 2 * step * Math.pow(beta2, step) / biasCorrection2;
            // the rectification term, or 0 while the variance is not tractable (rho_t <= 5): the plain momentum step
            double rect = rhoT > 5.0 ? Math.sqrt((rhoT - 4) * (rhoT - 2) * rhoInf / ((rhoInf - 4) * (rhoInf - 2) * rhoT)) : 0;
            params.add(p);
            grads.add(grad);
            states.add(state.get("exp_avg"));
            states.add(state.get("exp_avg_sq"));
            numbers.add(biasCorrection1, biasCorrection2, rect);
        }
        runUpdates(RAdam::foreachUpdate, params, grads, states, numbers.toArray());
    }

    /**
     * Every parameter's update as one function of lists ({@link ForeachUpdate}), eager and
     * compiled alike: {@code h} holds lr, eps, weight_decay, decoupled (1 or 0), beta1 and beta2,
     * then per parameter both bias corrections and the rectification (0 for the unrectified step,
     * a branch the compiled code specializes on); {@code states} each parameter's exp_avg and exp_avg_sq.
     */
    static List<Tensor> foreachUpdate(List<Tensor> params, List<Tensor> grads, List<Tensor> states, double[] h) {
        double lr = h[0], eps = h[1], weightDecay = h[2], beta1 = h[4], beta2 = h[5];
        boolean decoupled = h[3] != 0;
        for (int i = 0; i < params.size(); i++) {
            Tensor p = params.get(i), grad = grads.get(i);
            double biasCorrection1 = h[6 + 3 * i], biasCorrection2 = h[7 + 3 * i], rect = h[8 + 3 * i];
            Tensor expAvg = states.get(2 * i), expAvgSq = states.get(2 * i + 1);
            grad = Adam.decayAndMoments(p, grad, expAvg, expAvgSq, lr, beta1, beta2, weightDecay, decoupled);
            Tensor corrected = expAvg.div(biasCorrection1);
            if (rect != 0) {
                // (sqrt(1 - beta2^t) / (sqrt(v) + eps)): a scalar over a tensor, as PyTorch's reciprocal-times
                Tensor adaptiveLr = expAvgSq.sqrt().add_(eps).reciprocal_().mul_(Math.sqrt(biasCorrection2));
                p.sub_(corrected.mul_(lr).mul_(adaptiveLr).mul_(rect));
            } else {
                p.sub_(corrected.mul_(lr));
            }
        }
        return params;
    }
}
