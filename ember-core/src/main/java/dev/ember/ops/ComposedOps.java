package dev.ember.ops;

import dev.ember.tensor.Tensor;

/** The builder of ops defined by their decomposition, shared by every ops class that has such ops. */
final class ComposedOps {
    private ComposedOps() {}

    /**
     * An op defined by its decomposition: its eager kernel runs the decomposition (autograd is off
     * in kernels), so eager, AOT and the inductor compute the same formula, and eager autograd, where
     * the op has no derivative of its own, differentiates through it (PyTorch's
     * CompositeImplicitAutograd). The caller adds tags or a derivative, then registers.
     */
    static OpOverload.Builder composed(String schema, OpOverload.MetaFn meta, Decomposition decomposition) {
        return OpOverload.define(schema)
                .meta(meta)
                .kernel((a, m) -> eagerly(decomposition, a))
                .decomposition(decomposition);
    }

    /**
     * A decomposition run eagerly, its result made the op's own: a fresh contiguous tensor (a copy
     * when the result is an argument or a view, as constant_pad_nd's crops are).
     */
    static Tensor eagerly(Decomposition decomposition, Args a) {
        Tensor out = (Tensor) decomposition.apply(OpEmitter.EAGER, a.toArray());
        boolean aliases = out.isView();
        for (int i = 0; i < a.size() && !aliases; i++) aliases = a.get(i) == out;
        return aliases ? ShapeOps.CLONE.callTensor(out).contiguous() : out.contiguous();
    }

}
