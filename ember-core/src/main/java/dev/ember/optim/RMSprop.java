package dev.ember.optim;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * RMSprop, as PyTorch's {@code torch.optim.RMSprop}, step for step: with {@code g} the gradient
 * (negated when {@code maximize}),
 * <pre>
 * g = g + weight_decay * p                                  (if weight_decay != 0)
 * v = alpha * v + (1 - alpha) * g²                          (square_avg)
 * avg = sqrt(v - ḡ²) + eps with ḡ = lerp(ḡ, g, 1 - alpha)   (centered; grad_avg)
 *       sqrt(v) + eps                                       (otherwise)
 * b = momentum * b + g / avg;  p = p - lr * b               (if momentum > 0; momentum_buffer)
 * p = p - lr * g / avg                                      (otherwise)
 * </pre>
 * State: {@code step} (a 0-d float32 tensor), {@code square_avg}, {@code momentum_buffer},
 * {@code grad_avg}, as PyTorch's.
 * <pre>{@code
 * var opt = new RMSprop(model.parameters(), RMSprop.options().lr(1e-3).momentum(0.9));
 * }</pre>
 */
public final class RMSprop extends Optimizer {

    /** RMSprop's options with PyTorch's defaults; each setter checks its value as PyTorch's constructor does. */
    public static final class Options {
        private double lr = 1e-2, alpha = 0.99, eps = 1e-8, weightDecay = 0, momentum = 0;
        private boolean centered, maximize;

        private Options() {}

        public Options lr(double lr) { Checks.lr(lr); this.lr = lr; return this; }

        /** The decay of the running average of the squared gradient. */
        public Options alpha(double alpha) { checkAlpha(alpha); this.alpha = alpha; return this; }

        public Options eps(double eps) { Checks.eps(eps); this.eps = eps; return this; }

        public Options weightDecay(double weightDecay) { Checks.weightDecay(weightDecay); this.weightDecay = weightDecay; return this; }

        public Options momentum(double momentum) { Checks.momentum(momentum); this.momentum = momentum; return this; }

        /** Normalizes by an estimate of the gradient's variance (the square average less the squared average gradient). */
        public Options centered(boolean centered) { this.centered = centered; return this; }

        public Options maximize(boolean maximize) { this.maximize = maximize; return this; }

        Options copy() {
            Options o = new Options();
            o.lr = lr; o.alpha = alpha; o.eps = eps; o.weightDecay = weightDecay; o.momentum = momentum; o.centered = centered; o.maximize = maximize;
            return o;
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("lr", lr);
            m.put("momentum", momentum);
            m.put("alpha", alpha);
            m.put("eps", eps);
            m.put("centered", centered);
            m.put("weight_decay", weightDecay);
            m.put("maximize", maximize);
            return m;
        }
    }

    /** PyTorch's defaults: {@code lr=1e-2, alpha=0.99, eps=1e-8}, no momentum, no weight decay. */
    public static Options options() { return new Options(); }

    private final Options defaults;

    public RMSprop(Iterable<? extends Tensor> params, Options options) {
        super(params, options.toMap());
        this.defaults = options.copy();
    }

    /** Adds a parameter group whose options are the defaults changed by {@code overrides}. */
    public RMSprop addParamGroup(Iterable<? extends Tensor> params, Consumer<Options> overrides) {
        Options o = defaults.copy();
        overrides.accept(o);
        addGroup(params, o.toMap());
        return this;
    }

    @Override
    protected void validate(Map<String, Object> o) {
        Checks.lr((Double) o.get("lr"));
        Checks.eps((Double) o.get("eps"));
        Checks.momentum((Double) o.get("momentum"));
        Checks.weightDecay((Double) o.get("weight_decay"));
        checkAlpha((Double) o.get("alpha"));
    }

    private static void checkAlpha(double alpha) {
        if (!(alpha >= 0)) throw new IllegalArgumentException("Invalid alpha value: " + Py.repr(alpha));
    }

    @Override
    protected void update(ParamGroup group) {
        double lr = group.lr(), alpha = group.getDouble("alpha"), eps = group.getDouble("eps"), weightDecay = group.getDouble("weight_decay");
        double momentum = group.getDouble("momentum");
        boolean centered = group.getBoolean("centered"), maximize = group.getBoolean("maximize");
        List<Tensor> params = new ArrayList<>(), grads = new ArrayList<>(), states = new ArrayList<>();
        StepNumbers numbers = new StepNumbers().add(lr, alpha, eps, weightDecay, momentum, StepNumbers.flag(centered));
        for (Tensor p : group.params()) {
            Tensor grad = p.grad();
            if (grad == null) continue;
            if (maximize) grad = grad.neg();
            Map<String, Tensor> state = stateOf(p);
            if (state.isEmpty()) {
                state.put("step", Tensor.zeros(DType.FLOAT32));
                state.put("square_avg", Tensor.zerosLike(p));
            }
            state.get("step").add_(1.0);
            params.add(p);
            grads.add(grad);
            states.add(state.get("square_avg"));
            if (momentum > 0) states.add(state.computeIfAbsent("momentum_buffer", k -> Tensor.zerosLike(p)));
            if (centered) states.add(state.computeIfAbsent("grad_avg", k -> Tensor.zerosLike(p)));
        }
        runUpdates(RMSprop::foreachUpdate, params, grads, states, numbers.toArray());
    }

    /**
     * Every parameter's update as one function of lists ({@link ForeachUpdate}), eager and
     * compiled alike: {@code h} holds lr, alpha, eps, weight_decay, momentum and centered (1 or 0);
     * {@code states} each parameter's square_avg, then momentum_buffer (with momentum) and
     * grad_avg (centered).
     */
    static List<Tensor> foreachUpdate(List<Tensor> params, List<Tensor> grads, List<Tensor> states, double[] h) {
        double lr = h[0], alpha = h[1], eps = h[2], weightDecay = h[3], momentum = h[4];
        boolean centered = h[5] != 0;
        int k = 1 + (momentum > 0 ? 1 : 0) + (centered ? 1 : 0);
        for (int i = 0; i < params.size(); i++) {
            Tensor p = params.get(i), grad = grads.get(i);
            if (weightDecay != 0) grad = grad.add(p, weightDecay);
            Tensor squareAvg = states.get(k * i);
            squareAvg.mul_(alpha).add_(grad.mul(1 - alpha).mul_(grad));   // addcmul_(grad, grad, value=1 - alpha): value * t1 * t2, ATen's order
            Tensor avg;
            if (centered) {
                Tensor gradAvg = states.get(k * i + k - 1);
                Adam.lerp_(gradAvg, grad, 1 - alpha);
                avg = squareAvg.add(gradAvg.mul(-1.0).mul_(gradAvg)).sqrt_();   // addcmul(grad_avg, grad_avg, value=-1)
            } else {
                avg = squareAvg.sqrt();
            }
            avg.add_(eps);
            if (momentum > 0) {
                Tensor buf = states.get(k * i + 1);
                buf.mul_(momentum).add_(grad.div(avg));   // addcdiv_(grad, avg): value 1
                p.add_(buf, -lr);
            } else {
                p.add_(grad.mul(-lr).div_(avg));          // addcdiv_(grad, avg, value=-lr): value * t1 / t2, ATen's order
            }
        }
        return params;
    }
}
