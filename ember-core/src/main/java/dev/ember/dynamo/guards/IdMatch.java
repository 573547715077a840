package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.Source;

/** The value is this very object (or null): a module, an enum, an object whose identity the graph relies on. */
public record IdMatch(Source source, Object expected) implements Guard {
    @Override
    public String kind() { return "ID_MATCH"; }

    @Override
    public boolean test(Object value) { return value == expected; }

    @Override
    public String explainFailure(Object value) {
        return source.name() + " is " + label(expected) + " failed: actual " + label(value);
    }

    @Override
    public String describe() { return "ID_MATCH: " + source.name() + " is " + label(expected); }

    private static String label(Object o) {
        if (o == null) return "null";
        if (o instanceof Enum<?> e) return e.getDeclaringClass().getSimpleName() + "." + e.name();
        return o.getClass().getSimpleName() + "@" + Integer.toHexString(System.identityHashCode(o));
    }
}
