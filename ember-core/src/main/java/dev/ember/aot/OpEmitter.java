package dev.ember.aot;

import dev.ember.tensor.TensorMeta;

/**
 * What a {@link Decomposition} is written against, so one definition serves both eager calls and
 * graph rewriting: tensor values are opaque ({@code Tensor}s eagerly, graph {@code Node}s when
 * decomposing a graph), ops are called by name, and metadata is available for either.
 */
public interface OpEmitter {

    /** Calls the op {@code name} ({@code aten.sub.Tensor}) on positional arguments; returns its tensor value. */
    Object call(String name, Object... args);

    /** The metadata (dtype, shape, strides) of a tensor value this emitter produced or was given. */
    TensorMeta meta(Object tensor);
}
