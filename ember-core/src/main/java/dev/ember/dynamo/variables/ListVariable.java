package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A {@link java.util.List}: an ArrayList made during the trace (mutable), an immutable
 * {@code List.of(…)}, a fixed-size {@code Arrays.asList(…)} (set writes through to its array; add
 * and remove throw), an op's list of outputs, or a list from the frame's inputs.
 *
 * <p>An ArrayList or LinkedList from the inputs is read lazily, as Dynamo wraps values: until the
 * trace reads it (its size, an element, an iteration) nothing about its contents is guarded or
 * wrapped, and appends to it are only recorded, to be replayed on the caller's list after the graph.
 * A hook that logs into a list ({@code seen.add(t)}) then costs no guard on the list's length, and
 * no recompile at each call as the list grows.
 */
public final class ListVariable implements VariableTracker {
    private List<VariableTracker> items;
    /** Wraps the input list's contents (guarding its length) on first read; null once read, or for a list not from the inputs. */
    private Supplier<List<VariableTracker>> unread;
    /** Appended while unread, in order. */
    private final List<VariableTracker> appended = new ArrayList<>();
    private final boolean mutable;
    private final Source source;
    /** The array an {@code Arrays.asList} list is a view of (its items are the array's), or null. */
    private final ArrayVariable backing;
    /** Adds and removals so far, as Java's modCount counts them: an iterator made before one fails. */
    private int structuralChanges;

    public ListVariable(List<VariableTracker> items, boolean mutable, Source source) {
        this.items = new ArrayList<>(items);
        this.mutable = mutable;
        this.source = source;
        this.backing = null;
    }

    private ListVariable(Supplier<List<VariableTracker>> contents, Source source) {
        this.unread = contents;
        this.mutable = true;
        this.source = source;
        this.backing = null;
    }

    private ListVariable(ArrayVariable array) {
        this.items = array.items();      // shared: a set through the list is a store into the array, as Arrays.asList's view
        this.mutable = false;
        this.source = null;
        this.backing = array;
    }

    /** {@code Arrays.asList(array)} made in the trace: a fixed-size view of {@code array}. */
    public static ListVariable fixedSizeView(ArrayVariable array) { return new ListVariable(array); }

    /** Whether this is an {@code Arrays.asList} view: {@code set} works, adds and removals throw. */
    public boolean isFixedSize() { return backing != null; }

    /** The array an {@code Arrays.asList} list is a view of, or null. */
    public ArrayVariable backing() { return backing; }

    /** A mutable list from the inputs at {@code source}, whose contents {@code contents} wraps when the trace first reads them. */
    public static ListVariable unread(Supplier<List<VariableTracker>> contents, Source source) { return new ListVariable(contents, source); }

    /** The items, as the trace sees them; the first call on an unread input list wraps and guards its contents. */
    public List<VariableTracker> items() {
        if (unread != null) {
            List<VariableTracker> contents = new ArrayList<>(unread.get());
            contents.addAll(appended);
            appended.clear();
            items = contents;
            unread = null;
        }
        return items;
    }

    /** Whether the trace has read the contents (an unread input list has only been appended to, if anything). */
    public boolean isRead() { return unread == null; }

    /** Appends without reading the contents: only for an unread list. */
    public void append(VariableTracker v) {
        if (unread == null) throw new IllegalStateException("append to a list already read: add to items()");
        appended.add(v);
        structuralChanges++;
    }

    /** Records an add or a removal made through {@link #items()}. */
    public void changedStructure() { structuralChanges++; }

    public int structuralChanges() { return structuralChanges; }

    /** What was appended to an unread list, in order. */
    public List<VariableTracker> appended() { return List.copyOf(appended); }

    public boolean isMutable() { return mutable; }

    @Override
    public Source source() { return source; }

    @Override
    public String describe() { return unread != null ? "ArrayList (contents not read)" : (mutable ? "ArrayList" : backing != null ? "Arrays.asList" : "List") + " of " + items.size(); }
}
