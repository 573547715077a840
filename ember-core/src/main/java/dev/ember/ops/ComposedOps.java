package dev.ember.ops;

import dev.ember.ops.eager.Copy;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.List;

/**
 * Ops defined by their decomposition alone (PyTorch's CompositeImplicitAutograd ops): the eager
 * kernel runs the decomposition, eager autograd differentiates through it, and AOT rewrites graphs
 * with it, so all three compute the same thing from one definition. Two forms: {@link #define}
 * derives the output metadata from the decomposition, {@link #composed} takes a meta function.
 *
 * <p>{@link #define}'s meta function checks the arguments (ATen's errors, naming the op) and then runs the
 * decomposition on metadata alone: each op it names computes only its output metadata, so the
 * result's shape, dtype and (for a view) strides are the decomposition's own, never a second copy
 * of its shape logic that could drift from it.
 */
final class ComposedOps {
    private ComposedOps() {}

    /** An op's own argument checks, run before its decomposition; throws ATen's error for bad input. */
    @FunctionalInterface
    interface Check { void check(Args a); }

    /**
     * Defines and registers an op computed by {@code decomposition}. An op whose schema says it may
     * alias its input ({@code Tensor(a) self -> Tensor(a)}) returns the decomposition's view as it is;
     * any other returns a contiguous tensor of its own. Its argument checks are those of the ops its
     * decomposition calls, their errors prefixed with the op's name.
     */
    static OpOverload define(String schema, Decomposition decomposition) { return define(schema, a -> { }, decomposition); }

    /** {@link #define(String, Decomposition)} after {@code check}, which throws ATen's error for arguments the op refuses. */
    static OpOverload define(String schema, Check check, Decomposition decomposition) {
        return OpOverload.define(schema)
                .meta(a -> {
                    check.check(a);
                    try {
                        return outputMeta(a.op(), decomposition.apply(META, a.toArray()));
                    } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
                        throw named(a.op().schema().name(), e);
                    }
                })
                .kernel((a, m) -> ownResult(a, decomposition.apply(OpEmitter.EAGER, a.toArray())))
                .decomposition(decomposition)
                .register();
    }

    /**
     * The other form, for ops whose output metadata is quicker written than derived: an op defined
     * by its decomposition with its meta function given. Its eager kernel runs the decomposition
     * (autograd is off in kernels), so eager, AOT and the inductor compute the same formula, and
     * eager autograd, where the op has no derivative of its own, differentiates through it. The
     * caller adds tags or a derivative, then registers.
     */
    static OpOverload.Builder composed(String schema, OpOverload.MetaFn meta, Decomposition decomposition) {
        return OpOverload.define(schema)
                .meta(meta)
                .kernel((a, m) -> eagerly(decomposition, a))
                .decomposition(decomposition);
    }

    /**
     * A decomposition run eagerly, its result always a fresh contiguous tensor (a copy when the
     * result is an argument or a view, as constant_pad_nd's crops and its all-zero padding are).
     */
    static Tensor eagerly(Decomposition decomposition, Args a) {
        Tensor out = (Tensor) decomposition.apply(OpEmitter.EAGER, a.toArray());
        boolean aliases = out.isView();
        for (int i = 0; i < a.size() && !aliases; i++) aliases = a.get(i) == out;
        return aliases ? ShapeOps.CLONE.callTensor(out).contiguous() : out.contiguous();
    }

    /** Runs each call as its meta function alone: metadata in, fake tensors out, nothing computed or dispatched. */
    private static final OpEmitter META = new OpEmitter() {
        @Override
        public Object call(OpOverload op, Object... args) {
            Args bound = op.bind(args);
            return op.fakeOutputs(bound, op.inferMeta(bound));
        }

        @Override
        public TensorMeta meta(Object tensor) { return ((Tensor) tensor).meta(); }
    };

    /**
     * An error of an op the decomposition calls, named for the op the user called as well
     * ({@code expand_as: expand: the expanded size …}), of the same type.
     */
    private static RuntimeException named(String op, RuntimeException e) {
        if (e.getMessage() != null && e.getMessage().startsWith(op + ":")) return e;
        String message = op + ": " + e.getMessage();
        RuntimeException named = e instanceof IndexOutOfBoundsException ? new IndexOutOfBoundsException(message) : new IllegalArgumentException(message);
        named.initCause(e);
        return named;
    }

    private static Object outputMeta(OpOverload op, Object result) {
        if (result instanceof List<?> list) {
            List<TensorMeta> metas = new ArrayList<>(list.size());
            for (Object t : list) metas.add(((Tensor) t).meta());
            return metas;
        }
        TensorMeta m = ((Tensor) result).meta();
        return op.returnsAlias() ? m : TensorMeta.contiguous(m.dtype(), m.shape());
    }

    /**
     * The decomposition's result as an op that returns a fresh tensor must give it: an input
     * returned as it is stays (ATen's {@code type_as} to the same dtype returns self), a result
     * sharing an input's memory (a view, as {@code repeat} by ones makes) or not contiguous is copied.
     */
    private static Object ownResult(Args a, Object result) {
        if (a.op().returnsAlias() || !(result instanceof Tensor t)) return result;
        boolean shares = false;
        for (Object v : a.toArray()) {
            for (Object x : v instanceof List<?> list ? list : java.util.Collections.singletonList(v)) {   // einsum's operands come as a list
                if (x == t) return t;
                if (x instanceof Tensor in && in.storage() != null && in.storage() == t.storage()) shares = true;
            }
        }
        if (!shares && t.isContiguous()) return t;
        Tensor own = Tensor.allocateUninitialized(TensorMeta.contiguous(t.dtype(), t.shape()));
        Copy.copy(t, own);
        return own;
    }
}
