package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.Source;

/**
 * An int input lies in [min, max]: the comparisons the trace made of it (a loop bound, a counter
 * carried into a resume method) come out the same for every value there ({@code L['n'] >= 1}).
 */
public record IntRange(Source source, long min, long max) implements Guard {
    @Override
    public String kind() { return "INT_RANGE"; }

    @Override
    public boolean test(Object value) { return value instanceof Integer i && min <= i && i <= max; }

    @Override
    public String explainFailure(Object value) { return condition() + " failed: actual " + value; }

    @Override
    public String describe() { return "INT_RANGE: " + condition(); }

    private String condition() {
        String name = source.name();
        if (min == max) return name + " == " + min;
        if (min <= Integer.MIN_VALUE) return name + " <= " + max;
        if (max >= Integer.MAX_VALUE) return name + " >= " + min;
        return min + " <= " + name + " <= " + max;
    }
}
