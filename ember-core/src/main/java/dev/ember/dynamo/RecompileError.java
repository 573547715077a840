package dev.ember.dynamo;

/**
 * A compiled function would have recompiled under {@code Stance.FAIL_ON_RECOMPILE} (PyTorch's
 * {@code RecompileError}): the message names the function, where it starts, and for each cache
 * entry the guard that failed.
 */
public final class RecompileError extends RuntimeException {
    RecompileError(String message) { super(message); }
}
