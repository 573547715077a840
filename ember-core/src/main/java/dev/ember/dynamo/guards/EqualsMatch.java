package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.Source;

import java.util.Objects;

/** The value equals a constant the trace specialised on ({@code L['n'] == 3}). */
public record EqualsMatch(Source source, Object expected) implements Guard {
    @Override
    public String kind() { return "EQUALS_MATCH"; }

    @Override
    public boolean test(Object value) { return Objects.equals(expected, value); }

    @Override
    public String explainFailure(Object value) {
        return source.name() + " == " + repr(expected) + " failed: actual " + repr(value);
    }

    @Override
    public String describe() { return "EQUALS_MATCH: " + source.name() + " == " + repr(expected); }

    private static String repr(Object o) { return o instanceof String s ? "\"" + s + "\"" : String.valueOf(o); }
}
