package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.Source;

/**
 * The value's class is exactly {@code type} (so methods resolve and fields exist as traced); for an
 * interface type such as {@code java.util.List}, the value implements it (any List reads alike).
 * {@code List.of}'s classes count as one: the JDK picks one for 0 to 2 elements and another for
 * more, which behave alike (the length, where the trace reads it, has a guard of its own).
 */
public record TypeMatch(Source source, Class<?> type) implements Guard {
    private static final java.util.Set<Class<?>> LIST_OF = java.util.Set.of(java.util.List.of().getClass(), java.util.List.of(1).getClass());

    @Override
    public String kind() { return "TYPE_MATCH"; }

    @Override
    public boolean test(Object value) {
        if (value == null) return false;
        if (type.isInterface()) return type.isInstance(value);
        return value.getClass() == type || LIST_OF.contains(type) && LIST_OF.contains(value.getClass());
    }

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
