package dev.ember.dynamo;

/**
 * A bug in the translator (not in user code): something it should handle failed while tracing.
 * Names the method, the user line and the instruction, so a report can reproduce it.
 */
public final class InternalTraceError extends RuntimeException {
    InternalTraceError(String message, Throwable cause) { super(message, cause); }
}
