package dev.ember.optim;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Adadelta, as PyTorch's {@code torch.optim.Adadelta}, step for step: with {@code g} the gradient
 * (negated when {@code maximize}),
 * <pre>
 * g = g + weight_decay * p                                  (if weight_decay != 0)
 * v = rho * v + (1 - rho) * g²                              (square_avg)
 * d = sqrt(u + eps) / sqrt(v + eps) * g
 * u = rho * u + (1 - rho) * d²                              (acc_delta)
 * p = p - lr * d
 * </pre>
 * State: {@code step} (a 0-d float32 tensor), {@code square_avg}, {@code acc_delta}, as PyTorch's.
 */
public final class Adadelta extends Optimizer {

    /** Adadelta's options with PyTorch's defaults; each setter checks its value as PyTorch's constructor does. */
    public static final class Options {
        private double lr = 1.0, rho = 0.9, eps = 1e-6, weightDecay = 0;
        private boolean maximize;

        private Options() {}

        /** Scales the delta before it is applied; PyTorch's default is 1. */
        public Options lr(double lr) { Checks.lr(lr); this.lr = lr; return this; }

        /** The decay of the running averages of the squared gradient and the squared delta, in [0, 1]. */
        public Options rho(double rho) { checkRho(rho); this.rho = rho; return this; }

        public Options eps(double eps) { Checks.eps(eps); this.eps = eps; return this; }

        public Options weightDecay(double weightDecay) { Checks.weightDecay(weightDecay); this.weightDecay = weightDecay; return this; }

        public Options maximize(boolean maximize) { this.maximize = maximize; return this; }

        Options copy() {
            Options o = new Options();
            o.lr = lr; o.rho = rho; o.eps = eps; o.weightDecay = weightDecay; o.maximize = maximize;
            return o;
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("lr", lr);
            m.put("rho", rho);
            m.put("eps", eps);
            m.put("weight_decay", weightDecay);
            m.put("maximize", maximize);
            return m;
        }
    }

    /** PyTorch's defaults: {@code lr=1.0, rho=0.9, eps=1e-6}, no weight decay. */
    public static Options options() { return new Options(); }

    private final Options defaults;

    public Adadelta(Iterable<? extends Tensor> params, Options options) {
        super(params, options.toMap());
        this.defaults = options.copy();
    }

    /** Adds a parameter group whose options are the defaults changed by {@code overrides}. */
    public Adadelta addParamGroup(Iterable<? extends Tensor> params, Consumer<Options> overrides) {
        Options o = defaults.copy();
        overrides.accept(o);
        addGroup(params, o.toMap());
        return this;
    }

    private static void checkRho(double rho) {
        if (!(rho >= 0 && rho <= 1)) throw new IllegalArgumentException("Invalid rho value: " + Py.repr(rho));
    }

    @Override
    protected void validate(Map<String, Object> o) {
        Checks.lr((Double) o.get("lr"));
        checkRho((Double) o.get("rho"));
        Checks.eps((Double) o.get("eps"));
        Checks.weightDecay((Double) o.get("weight_decay"));
    }

    @Override
    protected void update(ParamGroup group) {
        double lr = group.lr(), rho = group.getDouble("rho"), eps = group.getDouble("eps"), weightDecay = group.getDouble("weight_decay");
        boolean maximize = group.getBoolean("maximize");
        List<Tensor> params = new ArrayList<>(), grads = new ArrayList<>(), states = new ArrayList<>();
        for (Tensor p : group.params()) {
            Tensor grad = p.grad();
            if (grad == null) continue;
            if (maximize) grad = grad.neg();
            Map<String, Tensor> state = stateOf(p);
            if (state.isEmpty()) {
                state.put("step", Tensor.zeros(DType.FLOAT32));
                state.put("square_avg", Tensor.zerosLike(p));
                state.put("acc_delta", Tensor.zerosLike(p));
            }
            state.get("step").add_(1.0);
            params.add(p);
            grads.add(grad);
            states.add(state.get("square_avg"));
            states.add(state.get("acc_delta"));
        }
        runUpdates(Adadelta::foreachUpdate, params, grads, states, new double[] {lr, rho, eps, weightDecay});
    }

    /**
     * Every parameter's update as one function of lists ({@link ForeachUpdate}), eager and
     * compiled alike: {@code h} holds lr, rho, eps and weight_decay; {@code states} each
     * parameter's square_avg and acc_delta.
     */
    static List<Tensor> foreachUpdate(List<Tensor> params, List<Tensor> grads, List<Tensor> states, double[] h) {
        double lr = h[0], rho = h[1], eps = h[2], weightDecay = h[3];
        for (int i = 0; i < params.size(); i++) {
            Tensor p = params.get(i), grad = grads.get(i);
            if (weightDecay != 0) grad = grad.add(p, weightDecay);
            Tensor squareAvg = states.get(2 * i), accDelta = states.get(2 * i + 1);
            squareAvg.mul_(rho).add_(grad.mul(1 - rho).mul_(grad));        // addcmul_(grad, grad, value=1 - rho)
            Tensor std = squareAvg.add(eps).sqrt_();
            Tensor delta = accDelta.add(eps).sqrt_().div_(std).mul_(grad);
            accDelta.mul_(rho).add_(delta.mul(1 - rho).mul_(delta));       // addcmul_(delta, delta, value=1 - rho)
            p.add_(delta, -lr);
        }
        return params;
    }
}
