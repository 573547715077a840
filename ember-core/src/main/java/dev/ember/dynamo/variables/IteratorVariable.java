package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

import java.util.List;

/** An iterator over a tracked list or array (what an enhanced for loop uses); its position advances as traced. */
public final class IteratorVariable implements VariableTracker {
    private final List<VariableTracker> items;
    private int position;

    public IteratorVariable(List<VariableTracker> items) { this.items = items; }

    public boolean hasNext() { return position < items.size(); }

    public VariableTracker next() { return items.get(position++); }

    @Override
    public Source source() { return null; }

    @Override
    public String describe() { return "Iterator at " + position + " of " + items.size(); }
}
