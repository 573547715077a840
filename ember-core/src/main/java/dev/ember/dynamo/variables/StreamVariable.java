package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

/** {@code System.out} or {@code System.err}: printing to it is a graph break, but reading it is not. */
public record StreamVariable(String name) implements VariableTracker {
    @Override
    public Source source() { return null; }

    @Override
    public String describe() { return name; }
}
