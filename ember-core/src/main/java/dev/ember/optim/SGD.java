package dev.ember.optim;

import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Stochastic gradient descent with optional momentum, as PyTorch's {@code torch.optim.SGD}, step
 * for step: with {@code g} the gradient (negated when {@code maximize}),
 * <pre>
 * g = g + weight_decay * p                          (if weight_decay != 0)
 * b = g on the first step, else momentum * b + (1 - dampening) * g   (if momentum != 0)
 * g = g + momentum * b if nesterov, else b          (if momentum != 0)
 * p = p - lr * g
 * </pre>
 * The momentum buffer is the parameter's state {@code momentum_buffer}.
 * <pre>{@code
 * var opt = new SGD(model.parameters(), SGD.options().lr(0.1).momentum(0.9).nesterov(true));
 * }</pre>
 */
public final class SGD extends Optimizer {

    /** SGD's options, with PyTorch's defaults; each setter checks its value as PyTorch's constructor does. */
    public static final class Options {
        private double lr = 1e-3, momentum = 0, dampening = 0, weightDecay = 0;
        private boolean nesterov, maximize;

        private Options() {}

        public Options lr(double lr) { Checks.lr(lr); this.lr = lr; return this; }

        public Options momentum(double momentum) { Checks.momentum(momentum); this.momentum = momentum; return this; }

        public Options dampening(double dampening) { this.dampening = dampening; return this; }

        /** L2 penalty added to the gradient: {@code g + weight_decay * p}. */
        public Options weightDecay(double weightDecay) { Checks.weightDecay(weightDecay); this.weightDecay = weightDecay; return this; }

        /** Nesterov momentum; needs a positive momentum and zero dampening. */
        public Options nesterov(boolean nesterov) { this.nesterov = nesterov; return this; }

        /** Maximizes the objective instead of minimizing it. */
        public Options maximize(boolean maximize) { this.maximize = maximize; return this; }

        Options copy() {
            Options o = new Options();
            o.lr = lr; o.momentum = momentum; o.dampening = dampening; o.weightDecay = weightDecay; o.nesterov = nesterov; o.maximize = maximize;
            return o;
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("lr", lr);
            m.put("momentum", momentum);
            m.put("dampening", dampening);
            m.put("weight_decay", weightDecay);
            m.put("nesterov", nesterov);
            m.put("maximize", maximize);
            return m;
        }
    }

    /** PyTorch's defaults: {@code lr=1e-3}, no momentum, no weight decay. */
    public static Options options() { return new Options(); }

    private final Options defaults;

    public SGD(Iterable<? extends Tensor> params, Options options) {
        super(params, options.toMap());
        this.defaults = options.copy();
    }

    /** Adds a parameter group whose options are the defaults changed by {@code overrides}: {@code opt.addParamGroup(head.parameters(), o -> o.lr(0.01))}. */
    public SGD addParamGroup(Iterable<? extends Tensor> params, Consumer<Options> overrides) {
        Options o = defaults.copy();
        overrides.accept(o);
        addGroup(params, o.toMap());
        return this;
    }

    @Override
    protected void validate(Map<String, Object> o) {
        Checks.lr((Double) o.get("lr"));
        Checks.momentum((Double) o.get("momentum"));
        Checks.weightDecay((Double) o.get("weight_decay"));
        if ((Boolean) o.get("nesterov") && (!((Double) o.get("momentum") > 0) || (Double) o.get("dampening") != 0)) {
            throw new IllegalArgumentException("Nesterov momentum requires a momentum and zero dampening");
        }
    }

    @Override
    protected void update(ParamGroup group) {
        double lr = group.lr(), momentum = group.getDouble("momentum"), dampening = group.getDouble("dampening"), weightDecay = group.getDouble("weight_decay");
        boolean nesterov = group.getBoolean("nesterov"), maximize = group.getBoolean("maximize");
        List<Tensor> params = new ArrayList<>(), grads = new ArrayList<>(), states = new ArrayList<>();
        StepNumbers numbers = new StepNumbers().add(lr, momentum, dampening, weightDecay, StepNumbers.flag(nesterov));
        boolean anyFirst = false;
        for (Tensor p : group.params()) {
            Tensor grad = p.grad();
            if (grad == null) continue;
            if (maximize) grad = grad.neg();
            Tensor stored = momentum == 0 ? null : stateOf(p).get("momentum_buffer");
            boolean first = momentum != 0 && stored == null;
            if (!stepsCompiled() && FusedUpdate.applies(p, grad, stored)) {
                // one pass, the same float32 operations in the same order (FusedUpdate)
                if (first) {
                    stored = Tensor.allocate(dev.ember.tensor.TensorMeta.contiguous(grad.dtype(), grad.shape()));
                    stateOf(p).put("momentum_buffer", stored);
                }
                FusedUpdate.sgd(p, grad, stored, first, lr, momentum, dampening, weightDecay, nesterov);
                continue;
            }
            if (first) {
                stored = Tensor.zerosLike(grad);   // the first step copies the gradient into it (PyTorch's clone)
                stateOf(p).put("momentum_buffer", stored);
            }
            anyFirst |= first;
            params.add(p);
            grads.add(grad);
            if (momentum != 0) states.add(stored);
            numbers.add(StepNumbers.flag(first));
        }
        // a step that creates momentum buffers runs eagerly: compiled, it would be a second
        // specialization (on the per-parameter flags) for one call
        if (anyFirst) foreachUpdate(params, grads, states, numbers.toArray());
        else runUpdates(SGD::foreachUpdate, params, grads, states, numbers.toArray());
    }

    /**
     * Every parameter's update as one function of lists ({@link ForeachUpdate}), eager and
     * compiled alike: {@code h} holds lr, momentum, dampening, weight_decay and nesterov (1 or 0),
     * then per parameter whether this step creates its momentum buffer (which then takes the
     * gradient as it is, as PyTorch's first step clones it); {@code states} the momentum buffers
     * (none without momentum).
     */
    static List<Tensor> foreachUpdate(List<Tensor> params, List<Tensor> grads, List<Tensor> states, double[] h) {
        double lr = h[0], momentum = h[1], dampening = h[2], weightDecay = h[3];
        boolean nesterov = h[4] != 0;
        for (int i = 0; i < params.size(); i++) {
            Tensor p = params.get(i), grad = grads.get(i);
            if (weightDecay != 0) grad = grad.add(p, weightDecay);
            if (momentum != 0) {
                Tensor buf = states.get(i);
                if (h[5 + i] != 0) buf.copy_(grad);
                else buf.mul_(momentum).add_(grad, 1 - dampening);
                grad = nesterov ? grad.add(buf, momentum) : buf;
            }
            p.add_(grad, -lr);
        }
        return params;
    }
}
