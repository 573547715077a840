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

    public ResumedIterator(Iterable<T> iterable, int position) {
        this.iterable = iterable;
        if (iterable instanceof List<T> list) {
            // the trace models only hasNext and next, so the original's last call was next(): take that item again, so
            // remove() and set() act on it as they would have (a list iterator made at the position refuses them)
            this.delegate = list.listIterator(Math.max(position - 1, 0));
            if (position > 0) delegate.next();
        } else {
            this.delegate = iterable.iterator();
            for (int i = 0; i < position; i++) delegate.next();
        }
        this.position = position;
    }

    /** The list, set or map view iterated. */
    public Iterable<T> iterable() { return iterable; }

    /** How many items have been taken from the start of the container. */
    public int position() { return position; }

    @Override
    public boolean hasNext() { return delegate.hasNext(); }

    @Override
    public T next() {
        T next = delegate.next();
        position++;
        return next;
    }

    @Override
    public void remove() {
        delegate.remove();
        position--;
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
        position--;
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
    }
}
