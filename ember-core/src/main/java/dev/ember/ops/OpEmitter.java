package dev.ember.ops;

import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

/**
 * What a {@link Decomposition} is written against, so one definition serves both eager calls and
 * graph rewriting: tensor values are opaque ({@code Tensor}s eagerly, graph nodes when decomposing
 * a graph), ops are named by their constants, and metadata is available for either.
 */
public interface OpEmitter {

    /** Calls {@code op} on positional arguments; returns its tensor value. */
    Object call(OpOverload op, Object... args);

    /** The metadata (dtype, shape, strides) of a tensor value this emitter produced or was given. */
    TensorMeta meta(Object tensor);

    /** Runs each call on real (or fake) tensors, straight through the op. */
    OpEmitter EAGER = new OpEmitter() {
        @Override
        public Object call(OpOverload op, Object... args) { return op.call(args); }

        @Override
        public TensorMeta meta(Object tensor) { return ((Tensor) tensor).meta(); }
    };
}
