package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

/**
 * A value known while tracing: a JVM primitive (Integer for int/short/byte/char/boolean on the
 * stack, Long, Float, Double), a String, an enum such as DType, a class, an immutable library object,
 * or null. Values from the frame's inputs carry a source and an EQUALS_MATCH/ID_MATCH guard.
 */
public record ConstantVariable(Object value, Source source) implements VariableTracker {

    public static ConstantVariable of(Object value) { return new ConstantVariable(value, null); }

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
