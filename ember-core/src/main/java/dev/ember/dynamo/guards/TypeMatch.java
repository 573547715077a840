package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.Source;

/** The value's class is exactly {@code type} (so methods resolve and fields exist as traced). */
public record TypeMatch(Source source, Class<?> type) implements Guard {
    @Override
    public String kind() { return "TYPE_MATCH"; }

    @Override
    public boolean test(Object value) { return value != null && value.getClass() == type; }

    @Override
    public String explainFailure(Object value) {
        return "type(" + source.name() + ") is " + type.getName() + " failed: actual " + (value == null ? "null" : value.getClass().getName());
    }

    @Override
    public String describe() { return "TYPE_MATCH: type(" + source.name() + ") is " + type.getName(); }
}
