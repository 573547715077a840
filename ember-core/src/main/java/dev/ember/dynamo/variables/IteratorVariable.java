package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

import java.util.List;

/**
 * An iterator over a tracked list, map view or set (what an enhanced for loop uses). It fails fast,
 * as Java's do: {@code next()} after a structural change to the container is a
 * ConcurrentModificationException. Over a list it reads the list as it is at each step (an element
 * replaced with {@code set} is read new); over a map or set, the items as they were when it was
 * made. Across a graph break it is made again over the rebuilt container, at the same position.
 * Over a list it is a ListIterator: {@code remove}, {@code set} and {@code add} act on the element
 * {@code next} or {@code previous} last returned, as the JDK's do (see Containers).
 */
public final class IteratorVariable implements VariableTracker {
    /** The items iterated over a map or set; null over a list, which is read live. */
    private final List<VariableTracker> items;
    private final KeyedVariable container;
    private final VariableTracker iterable;
    /** The list's structural changes this iterator expects: when made, then after its own remove or add. */
    private int expectedChanges;
    private int position;
    /** The index of the item next() or previous() last returned, or -1 (none yet, or removed or added since). */
    private int lastReturned = -1;
    /**
     * The position at which an ArrayDeque's iterator has returned all it will: the deque's size when
     * it was made (moved with the cursor by this iterator's own remove, which leaves the JDK's count
     * of remaining elements as it was); -1 over a map or set.
     */
    private int sizeWhenMade;

    /** An iterator over {@code list}. */
    public IteratorVariable(ListVariable list) { this(list, 0); }

    /**
     * A ListIterator over {@code list} whose cursor starts before the item at {@code position}
     * ({@code listIterator(index)}): next() returns that item, previous() the one before it, and
     * nothing has been returned yet (remove and set refuse until a move).
     */
    public IteratorVariable(ListVariable list, int position) {
        this.items = null;
        this.container = null;
        this.iterable = list;
        this.expectedChanges = list.structuralChanges();
        this.position = position;
        this.sizeWhenMade = list.items().size();
    }

    /**
     * An iterator over {@code items}, made by {@code iterable.iterator()} ({@code iterable} a set or a
     * map's view); {@code container} the set or map whose structural changes make it fail fast.
     */
    public IteratorVariable(List<VariableTracker> items, KeyedVariable container, VariableTracker iterable) {
        this.items = items;
        this.container = container;
        this.iterable = iterable;
        this.expectedChanges = container.changes().count();
        this.sizeWhenMade = -1;
    }

    /**
     * The iterator of an endless stream (Stream.generate, a two-argument Stream.iterate): its items
     * are made as they are asked for, as Java's stream iterator makes them, {@code pull} adding the
     * next ones to {@code made} (false once the stream ends: a limit, a takeWhile).
     */
    public static IteratorVariable pulling(List<VariableTracker> made, java.util.function.BooleanSupplier pull) {
        return new IteratorVariable(made, pull);
    }

    private IteratorVariable(List<VariableTracker> made, java.util.function.BooleanSupplier pull) {
        this.items = made;
        this.container = null;
        this.iterable = null;
        this.pull = pull;
        this.sizeWhenMade = -1;
    }

    /** Makes a stream iterator's next items (see {@link #pulling}); null for an iterator over a container. */
    private java.util.function.BooleanSupplier pull;

    /** Whether this iterates a stream, made as it is asked for ({@link #pulling}): nothing to rebuild across a break, no remove. */
    public boolean isStreamIterator() { return pull != null; }

    /**
     * The list, set or map view iterated, when it has not changed in structure since this iterator
     * was made (so a real iterator over it, moved past {@link #position()} items, reads what this
     * one would); else null.
     */
    public VariableTracker unchangedIterable() { return containerChanged() ? null : iterable; }

    /** How many items {@code next()} has returned. */
    public int position() { return position; }

    public boolean hasNext() {
        // a stream's iterator makes the next item when asked whether there is one, as the JDK's (tryAdvance) does
        while (pull != null && position >= items.size() && pull.getAsBoolean()) { }
        return position < current().size();
    }

    public VariableTracker next() {
        lastReturned = position;
        return current().get(position++);
    }

    /** A ListIterator's step back: the item before the cursor, which moves back over it. */
    public VariableTracker previous() {
        lastReturned = --position;
        return current().get(position);
    }

    /**
     * This fresh iterator over a map or set as read through a read-only view: each item passed
     * through {@code item} (entries that refuse setValue), and made again across a break over {@code view}, so
     * the resumed iterator's remove throws as the wrapper's does.
     */
    public IteratorVariable readThrough(java.util.function.UnaryOperator<VariableTracker> item, VariableTracker view) {
        if (this.items == null || position != 0) throw new IllegalStateException("not a fresh iterator over a map or set");
        return new IteratorVariable(items.stream().map(item).toList(), container, view);
    }

    /** The list iterated, or null over a map or set. */
    public ListVariable list() { return items == null ? (ListVariable) iterable : null; }

    /** The index of the item next() or previous() last returned, or -1 when there is none to remove or set. */
    public int lastReturned() { return lastReturned; }

    /** After this iterator's remove: the cursor is where the removed item was, and nothing can be removed or set until the next move. */
    public void removedLastReturned() {
        sizeWhenMade -= position - lastReturned;
        position = lastReturned;
        lastReturned = -1;
        expectedChanges = ((ListVariable) iterable).structuralChanges();
    }

    /** After this iterator's add at the cursor: the cursor is past the new item. */
    public void addedAtCursor() {
        position++;
        sizeWhenMade++;
        lastReturned = -1;
        expectedChanges = ((ListVariable) iterable).structuralChanges();
    }

    /** A resumed iterator's state (see ResumedIterator): the item its last move returned, or -1. */
    public void restoreLastReturned(int index) { lastReturned = index; }

    private List<VariableTracker> current() { return items != null ? items : ((ListVariable) iterable).items(); }

    /**
     * Whether an ArrayDeque's iterator (forward or descending) has a next element: the JDK's
     * {@code remaining > 0}, the count of elements it was made with less those next() returned,
     * whatever the deque did since (it never fails fast here).
     */
    public boolean dequeHasNext() { return position < sizeWhenMade; }

    /** Whether this iterates an ArrayDeque, whose iterator stops after the elements it was made with. */
    public boolean overArrayDeque() { return iterable instanceof ListVariable l && l.isArrayDeque(); }

    /** Whether the container iterated was structurally changed since this iterator was made. */
    public boolean containerChanged() {
        if (pull != null) return false;
        int now = container != null ? container.changes().count() : ((ListVariable) iterable).structuralChanges();
        return now != expectedChanges;
    }

    @Override
    public Source source() { return null; }

    @Override
    public String describe() { return pull != null ? "Iterator of a stream at " + position : "Iterator at " + position + " of " + current().size(); }
}
