package dev.ember.aot;

/**
 * An op expressed with other (more core) ops. {@code args} are the op's positional arguments with
 * defaults filled in, tensors being the emitter's opaque values. Returns the result value, or
 * {@code null} when this call is one the decomposition does not cover (e.g. batch_norm in
 * training mode, which mutates its running statistics): the op then stays as it is.
 */
@FunctionalInterface
public interface Decomposition {
    Object apply(OpEmitter e, Object[] args);
}
