package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.Source;

import java.lang.reflect.Array;
import java.util.List;

/** The list, deque or array has exactly {@code length} elements; an Optional has 1 when present, 0 when empty. */
public record LengthCheck(Source source, int length) implements Guard {
    @Override
    public String kind() { return "LENGTH_CHECK"; }

    @Override
    public boolean test(Object value) { return lengthOf(value) == length; }

    @Override
    public String explainFailure(Object value) {
        return "len(" + source.name() + ") == " + length + " failed: actual " + (value == null ? "null" : lengthOf(value));
    }

    @Override
    public String describe() { return "LENGTH_CHECK: len(" + source.name() + ") == " + length; }

    private static int lengthOf(Object value) {
        if (value instanceof java.util.Collection<?> c) return c.size();
        if (value instanceof java.util.Optional<?> o) return o.isPresent() ? 1 : 0;
        if (value != null && value.getClass().isArray()) return Array.getLength(value);
        return -1;
    }
}
