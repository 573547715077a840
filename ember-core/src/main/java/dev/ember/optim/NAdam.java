package dev.ember.optim;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * NAdam (Adam with Nesterov momentum), as PyTorch's {@code torch.optim.NAdam}, step for step: with
 * {@code g} the gradient (negated when {@code maximize}) and {@code t} the step count,
 * <pre>
 * p = p * (1 - lr * weight_decay)                      (decoupled weight decay)
 * g = g + weight_decay * p                             (otherwise, if weight_decay != 0)
 * mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay))
 * P = P * mu_t                                         (mu_product, a float32 scalar)
 * m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g²
 * d = sqrt(v / (1 - beta2^t)) + eps
 * p = p - lr * (1 - mu_t) / (1 - P) * g / d - lr * mu_{t+1} / (1 - P * mu_{t+1}) * m / d
 * </pre>
 * State: {@code step} and {@code mu_product} (0-d float32 tensors), {@code exp_avg},
 * {@code exp_avg_sq}, as PyTorch's.
 */
public final class NAdam extends Optimizer {

    /** NAdam's options with PyTorch's defaults; each setter checks its value as PyTorch's constructor does. */
    public static final class Options {
        private double lr = 2e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0, momentumDecay = 4e-3;
        private boolean decoupledWeightDecay, maximize;

        private Options() {}

        public Options lr(double lr) { Checks.lr(lr); this.lr = lr; return this; }

        public Options betas(double beta1, double beta2) { Checks.betas(beta1, beta2); this.beta1 = beta1; this.beta2 = beta2; return this; }

        public Options eps(double eps) { Checks.eps(eps); this.eps = eps; return this; }

        public Options weightDecay(double weightDecay) { Checks.weightDecay(weightDecay); this.weightDecay = weightDecay; return this; }

        /** How fast the momentum schedule {@code mu_t} rises to {@code beta1}. */
        public Options momentumDecay(double momentumDecay) { checkMomentumDecay(momentumDecay); this.momentumDecay = momentumDecay; return this; }

        /** Weight decay as AdamW applies it (NAdamW), {@code p * (1 - lr * weight_decay)}, instead of through the gradient. */
        public Options decoupledWeightDecay(boolean decoupled) { this.decoupledWeightDecay = decoupled; return this; }

        public Options maximize(boolean maximize) { this.maximize = maximize; return this; }

        Options copy() {
            Options o = new Options();
            o.lr = lr; o.beta1 = beta1; o.beta2 = beta2; o.eps = eps; o.weightDecay = weightDecay; o.momentumDecay = momentumDecay;
            o.decoupledWeightDecay = decoupledWeightDecay; o.maximize = maximize;
            return o;
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("lr", lr);
            m.put("betas", List.of(beta1, beta2));
            m.put("eps", eps);
            m.put("weight_decay", weightDecay);
            m.put("momentum_decay", momentumDecay);
            m.put("decoupled_weight_decay", decoupledWeightDecay);
            m.put("maximize", maximize);
            return m;
        }
    }

    /** PyTorch's defaults: {@code lr=2e-3, betas=(0.9, 0.999), eps=1e-8, momentum_decay=4e-3}, no weight decay. */
    public static Options options() { return new Options(); }

    private final Options defaults;

    public NAdam(Iterable<? extends Tensor> params, Options options) {
        super(params, options.toMap());
        this.defaults = options.copy();
    }

    /** Adds a parameter group whose options are the defaults changed by {@code overrides}. */
    public NAdam addParamGroup(Iterable<? extends Tensor> params, Consumer<Options> overrides) {
        Options o = defaults.copy();
        overrides.accept(o);
        addGroup(params, o.toMap());
        return this;
    }

    private static void checkMomentumDecay(double momentumDecay) {
        if (!(momentumDecay >= 0)) throw new IllegalArgumentException("Invalid momentum_decay value: " + Py.repr(momentumDecay));
    }

    @Override
    protected void validate(Map<String, Object> o) {
        Checks.adamOptions(o);
        checkMomentumDecay((Double) o.get("momentum_decay"));
    }

    @Override
    protected void update(ParamGroup group) {
        double lr = group.lr(), eps = group.getDouble("eps"), weightDecay = group.getDouble("weight_decay"), momentumDecay = group.getDouble("momentum_decay");
        double[] betas = group.getPair("betas");
        double beta1 = betas[0], beta2 = betas[1];
        boolean maximize = group.getBoolean("maximize"), decoupled = group.getBoolean("decoupled_weight_decay");
        List<Tensor> params = new ArrayList<>(), grads = new ArrayList<>(), states = new ArrayList<>();
        StepNumbers numbers = new StepNumbers().add(lr, eps, weightDecay, StepNumbers.flag(decoupled), beta1, beta2);
        for (Tensor p : group.params()) {
            Tensor grad = p.grad();
            if (grad == null) continue;
            if (maximize) grad = grad.neg();
            Map<String, Tensor> state = stateOf(p);
            if (state.isEmpty()) {
                state.put("step", Tensor.zeros(DType.FLOAT32));
                state.put("mu_product", Tensor.ones(DType.FLOAT32));
                state.put("exp_avg", Tensor.zerosLike(p));
                state.put("exp_avg_sq", Tensor.zerosLike(p));
            }
            Tensor stepT = state.get("step"), muProduct = state.get("mu_product");
            stepT.add_(1.0);
            double step = stepT.item();
            double mu = beta1 * (1.0 - 0.5 * Math.pow(0.96, step * momentumDecay));
            double muNext = beta1 * (1.0 - 0.5 * Math.pow(0.96, (step + 1) * momentumDecay));
            muProduct.mul_(mu);
            double product = muProduct.item();
            double productNext = product * muNext;
            params.add(p);
            grads.add(grad);
            states.add(state.get("exp_avg"));
            states.add(state.get("exp_avg_sq"));
            numbers.add(1 - Math.pow(beta2, step), -lr * (1.0 - mu) / (1.0 - product), -lr * muNext / (1.0 - productNext));
        }
        runUpdates(NAdam::foreachUpdate, params, grads, states, numbers.toArray());
    }

    /**
     * Every parameter's update as one function of lists ({@link ForeachUpdate}), eager and
     * compiled alike: {@code h} holds lr, eps, weight_decay, decoupled (1 or 0), beta1 and beta2,
     * then per parameter the second moment's bias correction and the two momentum-corrected step
     * sizes (of the gradient, of exp_avg); {@code states} each parameter's exp_avg and exp_avg_sq.
     */
    static List<Tensor> foreachUpdate(List<Tensor> params, List<Tensor> grads, List<Tensor> states, double[] h) {
        double lr = h[0], eps = h[1], weightDecay = h[2], beta1 = h[4], beta2 = h[5];
        boolean decoupled = h[3] != 0;
        for (int i = 0; i < params.size(); i++) {
            Tensor p = params.get(i), grad = grads.get(i);
            Tensor expAvg = states.get(2 * i), expAvgSq = states.get(2 * i + 1);
            grad = Adam.decayAndMoments(p, grad, expAvg, expAvgSq, lr, beta1, beta2, weightDecay, decoupled);
            Tensor denom = expAvgSq.div(h[6 + 3 * i]).sqrt_().add_(eps);
            p.add_(grad.mul(h[7 + 3 * i]).div_(denom));     // addcdiv_(grad, denom, value=…)
            p.add_(expAvg.mul(h[8 + 3 * i]).div_(denom));   // addcdiv_(exp_avg, denom, value=…)
        }
        return params;
    }
}
