package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

/**
 * A value known while tracing: a JVM primitive (Integer for int/short/byte/char/boolean on the
 * stack, Long, Float, Double), a String, an enum such as DType, a class, an immutable library object,
 * or null. Values from the frame's inputs carry a source and an EQUALS_MATCH/ID_MATCH guard.
 */
public record ConstantVariable(Object value, Source source, DeferredInt deferred) implements VariableTracker {

    public ConstantVariable(Object value, Source source) { this(value, source, null); }

    public static ConstantVariable of(Object value) { return new ConstantVariable(value, null); }

    /** An int input (or an input plus a constant) whose value guard is deferred until the value is read; its source only when it is the input itself. */
    public static ConstantVariable deferred(int value, DeferredInt d) { return new ConstantVariable(value, d.offset() == 0 ? d.source() : null, d); }

    /** The value: for a {@link DeferredInt}, reading it installs its value guard, since the trace now depends on the value. */
    @Override
    public Object value() {
        if (deferred != null) deferred.specialize().run();
        return value;
    }

    /** The value without installing a deferred guard: for the comparisons that guard it by a range instead. */
    public Object peek() { return value; }

    // equality is the value's, so that a decision made by comparing constants guards a deferred one
    @Override
    public boolean equals(Object o) { return o instanceof ConstantVariable c && java.util.Objects.equals(value(), c.value()) && java.util.Objects.equals(source, c.source); }

    @Override
    public int hashCode() { return java.util.Objects.hash(value(), source); }

    public static final ConstantVariable NULL = new ConstantVariable(null, null);

    @Override
    public boolean isWide() { return value instanceof Long || value instanceof Double; }

    @Override
    public String describe() {
        if (value == null) return "null";
        if (value instanceof String s) return "String \"" + s + "\"";
        return value.getClass().getSimpleName() + " " + value;
    }
}
