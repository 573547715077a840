package dev.ember.ops;

/**
 * An op written with other ops, defined once in the op's own entry ({@link OpOverload.Builder#decomposition})
 * and used both eagerly ({@link OpOverload#decompose}) and by AOT, which rewrites graphs with it.
 * {@code args} are the op's positional arguments with defaults filled in; tensors are the emitter's
 * opaque values. Returns the result value, or {@code null} when this call is one the decomposition
 * does not cover (e.g. batch_norm in training mode, which mutates its running statistics): the op
 * then stays as it is.
 */
@FunctionalInterface
public interface Decomposition {
    Object apply(OpEmitter e, Object[] args);
}
