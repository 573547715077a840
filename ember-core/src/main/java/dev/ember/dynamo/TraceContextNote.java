package dev.ember.dynamo;

/**
 * Attached (suppressed) to an error of Ember's own when {@code EMBER_VERBOSE=1}: the context of the
 * compile it broke, such as the graph a backend failed on (Python's exception notes).
 */
final class TraceContextNote extends RuntimeException {
    TraceContextNote(String context) { super(context, null, false, false); }
}
