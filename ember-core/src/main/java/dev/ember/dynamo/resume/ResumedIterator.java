package dev.ember.dynamo.resume;

import java.util.Iterator;
import java.util.List;
import java.util.ListIterator;
import java.util.function.Consumer;

/**
 * The iterator a graph break hands to its resume method when an iterator over a list, set or map
 * view is live across it: Java's own iterator over the same container, moved past the items the
 * trace took, so reading on and failing on a change to the container behave as the original did;
 * its last-returned item is the trace's last, so {@code remove} and {@code set} act on it. It also
 * answers what it iterates and where it stands, so the resume method's trace can continue over the
 * container from there (with the position guarded), as Dynamo does with a tuple iterator.
 */
public final class ResumedIterator<T> implements ListIterator<T> {
    private final Iterable<T> iterable;
    private final Iterator<T> delegate;
    private int position;
    /** The index of the item next() or previous() last returned (what remove and set act on), or -1 for none. */
    private int lastReturned;

    /**
     * An iterator over {@code iterable} at {@code position}, whose last move returned the item at
     * {@code lastReturned} (position - 1 after next(), position after a list iterator's previous(),
     * -1 after a remove or add, or before any move).
     */
    public ResumedIterator(Iterable<T> iterable, int position, int lastReturned) {
        this.iterable = iterable;
        if (iterable instanceof List<T> list) {
            // moved into the original's state by the same last move, so remove() and set() act on the same item (or refuse)
            if (lastReturned >= 0 && lastReturned == position - 1) {
                this.delegate = list.listIterator(position - 1);
                delegate.next();
            } else if (lastReturned >= 0 && lastReturned == position) {
                ListIterator<T> at = list.listIterator(position + 1);
                at.previous();
                this.delegate = at;
            } else {
                this.delegate = list.listIterator(position);
            }
        } else {
            this.delegate = iterable.iterator();
            for (int i = 0; i < position; i++) delegate.next();
        }
        this.position = position;
        this.lastReturned = iterable instanceof List<?> ? lastReturned : position - 1;
    }

    /** The list, set or map view iterated. */
    public Iterable<T> iterable() { return iterable; }

    /** How many items have been taken from the start of the container. */
    public int position() { return position; }

    /** The index of the item the last next() or previous() returned, or -1 when there is none to remove or set. */
    public int lastReturned() { return lastReturned; }

    @Override
    public boolean hasNext() { return delegate.hasNext(); }

    @Override
    public T next() {
        T next = delegate.next();
        lastReturned = position++;
        return next;
    }

    @Override
    public void remove() {
        delegate.remove();
        if (lastReturned < position) position--;
        lastReturned = -1;
    }

    @Override
    public void forEachRemaining(Consumer<? super T> action) {
        while (hasNext()) action.accept(next());
    }

    private ListIterator<T> listIterator(String method) {
        if (delegate instanceof ListIterator<T> l) return l;
        throw new UnsupportedOperationException(method + " on an iterator over a " + iterable.getClass().getSimpleName());
    }

    @Override
    public boolean hasPrevious() { return listIterator("hasPrevious").hasPrevious(); }

    @Override
    public T previous() {
        T previous = listIterator("previous").previous();
        lastReturned = --position;
        return previous;
    }

    @Override
    public int nextIndex() { return listIterator("nextIndex").nextIndex(); }

    @Override
    public int previousIndex() { return listIterator("previousIndex").previousIndex(); }

    @Override
    public void set(T t) { listIterator("set").set(t); }

    @Override
    public void add(T t) {
        listIterator("add").add(t);
        position++;
        lastReturned = -1;
    }
}
