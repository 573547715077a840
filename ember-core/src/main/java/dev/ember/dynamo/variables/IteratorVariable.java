package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

import java.util.List;

/**
 * An iterator over a tracked list, map view or set (what an enhanced for loop uses). It fails fast,
 * as Java's do: {@code next()} after a structural change to the container is a
 * ConcurrentModificationException. Over a list it reads the list as it is at each step (an element
 * replaced with {@code set} is read new); over a map or set, the items as they were when it was
 * made. Across a graph break it is made again over the rebuilt container, at the same position.
 */
public final class IteratorVariable implements VariableTracker {
    /** The items iterated over a map or set; null over a list, which is read live. */
    private final List<VariableTracker> items;
    private final KeyedVariable container;
    private final VariableTracker iterable;
    private final int changesWhenMade;
    private int position;

    /** An iterator over {@code list}. */
    public IteratorVariable(ListVariable list) {
        this.items = null;
        this.container = null;
        this.iterable = list;
        this.changesWhenMade = list.structuralChanges();
    }

    /**
     * An iterator over {@code items}, made by {@code iterable.iterator()} ({@code iterable} a set or a
     * map's view); {@code container} the set or map whose structural changes make it fail fast.
     */
    public IteratorVariable(List<VariableTracker> items, KeyedVariable container, VariableTracker iterable) {
        this.items = items;
        this.container = container;
        this.iterable = iterable;
        this.changesWhenMade = container.changes().count();
    }

    /**
     * The list, set or map view iterated, when it has not changed in structure since this iterator
     * was made (so a real iterator over it, moved past {@link #position()} items, reads what this
     * one would); else null.
     */
    public VariableTracker unchangedIterable() { return containerChanged() ? null : iterable; }

    /** How many items {@code next()} has returned. */
    public int position() { return position; }

    public boolean hasNext() { return position < current().size(); }

    public VariableTracker next() { return current().get(position++); }

    /** A ListIterator's step back: the item before the cursor, which moves back over it. */
    public VariableTracker previous() { return current().get(--position); }

    private List<VariableTracker> current() { return items != null ? items : ((ListVariable) iterable).items(); }

    /** Whether this iterates an ArrayDeque, whose iterator stops after the elements it was made with. */
    public boolean overArrayDeque() { return iterable instanceof ListVariable l && l.isArrayDeque(); }

    /** Whether the container iterated was structurally changed since this iterator was made. */
    public boolean containerChanged() {
        int now = container != null ? container.changes().count() : ((ListVariable) iterable).structuralChanges();
        return now != changesWhenMade;
    }

    @Override
    public Source source() { return null; }

    @Override
    public String describe() { return "Iterator at " + position + " of " + current().size(); }
}
