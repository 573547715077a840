package dev.ember;

import dev.ember.tensor.Tensor;

import java.io.Serializable;
import java.util.List;

/**
 * {@code Cond.cond(pred, trueFn, falseFn, operands)}: a branch that stays in the graph (PyTorch's
 * {@code torch.cond}). Inside {@code Ember.compile}, when {@code pred} is a tensor, both branches are
 * traced into subgraphs and the call becomes one {@code higher_order.cond} node that picks a branch
 * at run time, so a data-dependent choice no longer breaks the graph; the branches must return
 * tensors of the same dtype and shape. When {@code pred} is a Java boolean only the chosen branch
 * is traced. Run eagerly, it simply calls the chosen branch.
 * <pre>{@code
 * Tensor y = Cond.cond(x.sum().gt(0.0), ops -> ops.get(0).sin(), ops -> ops.get(0).cos(), List.of(x));
 * }</pre>
 */
public final class Cond {
    private Cond() {}

    /** One branch: the operands in, one tensor out. Branches pass tensors through {@code operands}, not by capture. */
    @FunctionalInterface
    public interface Branch extends Serializable {
        Tensor apply(List<Tensor> operands);
    }

    /**
     * {@code pred ? trueFn(operands) : falseFn(operands)}; {@code pred} is a Boolean or a
     * one-element tensor (read as Python's {@code bool(t)}).
     */
    public static Tensor cond(Object pred, Branch trueFn, Branch falseFn, List<Tensor> operands) {
        boolean p = switch (pred) {
            case Boolean b -> b;
            case Tensor t -> t.asBoolean();
            case null, default -> throw new IllegalArgumentException("Cond.cond: pred must be a Boolean or a one-element Tensor, got " + pred);
        };
        return p ? trueFn.apply(operands) : falseFn.apply(operands);
    }
}
