package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

import java.util.List;

/**
 * An iterator over a tracked list, array, map view or set (what an enhanced for loop uses); its
 * position advances as traced. Over a map or set it fails fast, as Java's do: {@code next()} after
 * a structural change to the container is a ConcurrentModificationException.
 */
public final class IteratorVariable implements VariableTracker {
    private final List<VariableTracker> items;
    private final KeyedVariable container;
    private final int changesWhenMade;
    private int position;

    public IteratorVariable(List<VariableTracker> items) { this(items, null); }

    public IteratorVariable(List<VariableTracker> items, KeyedVariable container) {
        this.items = items;
        this.container = container;
        this.changesWhenMade = container == null ? 0 : container.changes().count();
    }

    public boolean hasNext() { return position < items.size(); }

    public VariableTracker next() { return items.get(position++); }

    /** Whether the map or set iterated was structurally changed since this iterator was made. */
    public boolean containerChanged() { return container != null && container.changes().count() != changesWhenMade; }

    @Override
    public Source source() { return null; }

    @Override
    public String describe() { return "Iterator at " + position + " of " + items.size(); }
}
