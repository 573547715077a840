package dev.ember.dynamo;

import dev.ember.dynamo.variables.VariableTracker;

/**
 * The traced program throws, and the tracer knows the exception: its class, and (for one made in
 * the trace) its message. Each frame of the trace, innermost first, looks for a handler of its
 * own that catches it and continues there, as the JVM does; one that leaves the root frame is the
 * graph break {@link #uncaught}, made where the exception was thrown.
 */
final class Raised extends RuntimeException {
    final VariableTracker exception;
    final Class<?> type;
    final Unsupported uncaught;

    Raised(VariableTracker exception, Class<?> type, Unsupported uncaught) {
        super(uncaught.reason(), null, false, false);
        this.exception = exception;
        this.type = type;
        this.uncaught = uncaught;
    }
}
