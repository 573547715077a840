package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.Source;

/**
 * The value's class is exactly {@code type} (so methods resolve and fields exist as traced); for an
 * interface type such as {@code java.util.List}, the value implements it (any List reads alike).
 */
public record TypeMatch(Source source, Class<?> type) implements Guard {
    @Override
    public String kind() { return "TYPE_MATCH"; }

    @Override
    public boolean test(Object value) { return value != null && (type.isInterface() ? type.isInstance(value) : value.getClass() == type); }

    @Override
    public String explainFailure(Object value) {
        return (type.isInterface() ? "isinstance(" + source.name() + ", " + type.getName() + ")" : "type(" + source.name() + ") is " + type.getName())
                + " failed: actual " + (value == null ? "null" : value.getClass().getName());
    }

    @Override
    public String describe() {
        return "TYPE_MATCH: " + (type.isInterface() ? "isinstance(" + source.name() + ", " + type.getName() + ")" : "type(" + source.name() + ") is " + type.getName());
    }
}
