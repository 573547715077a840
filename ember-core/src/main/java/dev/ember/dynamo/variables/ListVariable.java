package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

import java.util.ArrayList;
import java.util.List;

/**
 * A {@link java.util.List}: an ArrayList made during the trace (mutable), an immutable
 * {@code List.of(…)}, an op's list of outputs, or a list from the frame's inputs (read-only).
 */
public final class ListVariable implements VariableTracker {
    private final List<VariableTracker> items;
    private final boolean mutable;
    private final Source source;

    public ListVariable(List<VariableTracker> items, boolean mutable, Source source) {
        this.items = new ArrayList<>(items);
        this.mutable = mutable;
        this.source = source;
    }

    public List<VariableTracker> items() { return items; }

    public boolean isMutable() { return mutable; }

    @Override
    public Source source() { return source; }

    @Override
    public String describe() { return (mutable ? "ArrayList" : "List") + " of " + items.size(); }
}
