package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * A {@link java.util.List} or an {@link java.util.ArrayDeque}: an ArrayList, LinkedList or
 * ArrayDeque made during the trace (mutable; {@link #type()} is its class, and a deque's methods
 * are list operations at its ends), an immutable
 * {@code List.of(…)}, a fixed-size {@code Arrays.asList(…)} (set writes through to its array; add
 * and remove throw), an op's list of outputs, or a list from the frame's inputs.
 *
 * <p>An ArrayList or LinkedList from the inputs is read lazily, as Dynamo wraps values: until the
 * trace reads it (its size, an element, an iteration) nothing about its contents is guarded or
 * wrapped, and appends to it are only recorded, to be replayed on the caller's list after the graph.
 * A hook that logs into a list ({@code seen.add(t)}) then costs no guard on the list's length, and
 * no recompile at each call as the list grows. Once read, an input list's elements are still
 * wrapped one by one as the trace first reads each ({@code xs.get(0)} wraps and guards element 0
 * only; an iteration, or any change to the list, wraps them all), as Dynamo's lazy variables are.
 *
 * <p>A list can also be a live view of another made in the trace ({@link #viewOf}): a subList,
 * reversed() or Collections.unmodifiableList of it. Its items are the base's, read through Java's
 * own view of the base's items, so a write through either shows in the other.
 */
public final class ListVariable implements VariableTracker {
    /** An input list's contents: its length (guarded when made) and how to wrap its element {@code i} (guarded when called). */
    public record Contents(int size, IntFunction<VariableTracker> element) {}

    /** The items; an input list's element not read yet is null here until {@link #element} wraps it. */
    private List<VariableTracker> items;
    /** Wraps the input list's contents (guarding its length) on first read; null once read, or for a list not from the inputs. */
    private Supplier<Contents> unread;
    /** Wraps an input list's element {@code i} (of the first {@link #inputSize}) on first read; null once every one is wrapped. */
    private IntFunction<VariableTracker> element;
    private int inputSize;
    /** Appended while unread, in order. */
    private final List<VariableTracker> appended = new ArrayList<>();
    private final boolean mutable;
    /** The class the program sees for a mutable list (ArrayList, LinkedList, ArrayDeque); null for an immutable or fixed-size one. */
    private final Class<?> type;
    private final Source source;
    /** The array an {@code Arrays.asList} list is a view of (its items are the array's), or null. */
    private final ArrayVariable backing;
    /** Changes so far that Java's modCount counts (adds, removals, an ArrayList's sort or replaceAll): an iterator made before one fails. */
    private int structuralChanges;

    public ListVariable(List<VariableTracker> items, boolean mutable, Source source) {
        this(items, mutable ? ArrayList.class : null, source);
    }

    /** A mutable list of {@code type} (ArrayList, LinkedList or ArrayDeque) holding {@code items}, or an immutable one ({@code type} null). */
    public ListVariable(List<VariableTracker> items, Class<?> type, Source source) {
        if (type != null && !MUTABLE_CLASSES.contains(type)) throw new IllegalArgumentException(type.getName());
        this.items = new ArrayList<>(items);
        this.mutable = type != null;
        this.type = type;
        this.source = source;
        this.backing = null;
    }

    private ListVariable(Supplier<Contents> contents, Class<?> type, Source source) {
        this.unread = contents;
        this.mutable = true;
        this.type = type;
        this.source = source;
        this.backing = null;
    }

    /** What a {@link #viewOf view} shows of its base. */
    public enum ViewKind {
        /** {@code subList(from, to)}: fails fast (ConcurrentModificationException) once the base changes in structure other than through it. */
        SUB_LIST,
        /** {@code reversed()} (JDK 21's SequencedCollection): reads and writes through, never stale. */
        REVERSED,
        /** {@code Collections.unmodifiableList}: reads through, refuses writes. */
        UNMODIFIABLE,
        /**
         * {@code Collections.unmodifiableCollection} of a list: reads through and refuses writes as
         * UNMODIFIABLE does, but is no List (only Collection's methods; equals and hashCode are Object's).
         */
        UNMODIFIABLE_COLLECTION
    }

    private ListVariable base;
    private ViewKind viewKind;
    private int viewFrom, viewSize, viewExpectedChanges;

    /** A live view of {@code base}; for a subList, of its items {@code [from, to)}. */
    public static ListVariable viewOf(ListVariable base, ViewKind kind, int from, int to) {
        ListVariable v = new ListVariable(List.of(), kind == ViewKind.UNMODIFIABLE || kind == ViewKind.UNMODIFIABLE_COLLECTION ? null : ArrayList.class, null);
        v.items = null;
        v.base = base;
        v.viewKind = kind;
        v.viewFrom = from;
        v.viewSize = to - from;
        v.viewExpectedChanges = base.structuralChanges();
        return v;
    }

    /** Whether the program sees this as a Collection that is no List: {@code Collections.unmodifiableCollection} of a list. */
    public boolean isCollectionOnly() { return viewKind == ViewKind.UNMODIFIABLE_COLLECTION; }

    /** Whether this is a live view of another traced list ({@link #viewOf}). */
    public boolean isView() { return base != null; }

    public ListVariable base() { return base; }

    public ViewKind viewKind() { return viewKind; }

    /** A subList's first index in its base. */
    public int viewFrom() { return viewFrom; }

    /** The list that holds the items: the base of a view's base…, or this list. */
    public ListVariable root() { return base == null ? this : base.root(); }

    /** Whether this view reads through an unmodifiable one (a subList or reversed() of an unmodifiableList, …): every write throws UnsupportedOperationException. */
    public boolean isReadOnlyView() {
        return base != null && (viewKind == ViewKind.UNMODIFIABLE || viewKind == ViewKind.UNMODIFIABLE_COLLECTION || base.isReadOnlyView());
    }

    /** Whether this subList, or a subList it views, has seen its base change in structure other than through it: every use then throws ConcurrentModificationException. */
    public boolean isStale() {
        if (base == null) return false;
        return viewKind == ViewKind.SUB_LIST && base.structuralChanges() != viewExpectedChanges || base.isStale();
    }

    /** After a change made through this view that changed the root's length by {@code delta}: this view and the views it is of now expect it. */
    public void changedThroughView(int delta) {
        if (base == null) return;
        if (viewKind == ViewKind.SUB_LIST) viewSize += delta;
        base.changedThroughView(delta);
        viewExpectedChanges = base.structuralChanges();
    }

    private ListVariable(ArrayVariable array) {
        this.items = array.items();      // shared: a set through the list is a store into the array, as Arrays.asList's view
        this.mutable = false;
        this.type = null;
        this.source = null;
        this.backing = array;
    }

    /** The mutable sequence classes traced: made in the trace, or passed in (their changes are replayed on the caller's). */
    public static final java.util.Set<Class<?>> MUTABLE_CLASSES = java.util.Set.of(ArrayList.class, java.util.LinkedList.class, java.util.ArrayDeque.class);

    /** The class the program sees for a mutable list (ArrayList, LinkedList, ArrayDeque); null for an immutable or fixed-size list. */
    public Class<?> type() { return base != null ? null : type; }

    /** Whether this is an ArrayDeque: no List methods, no null elements. */
    public boolean isArrayDeque() { return type == java.util.ArrayDeque.class; }

    /** {@code Arrays.asList(array)} made in the trace: a fixed-size view of {@code array}. */
    public static ListVariable fixedSizeView(ArrayVariable array) { return new ListVariable(array); }

    /** Whether this is an {@code Arrays.asList} view: {@code set} works, adds and removals throw. */
    public boolean isFixedSize() { return backing != null; }

    /** The array an {@code Arrays.asList} list is a view of, or null. */
    public ArrayVariable backing() { return backing; }

    /** A mutable list from the inputs at {@code source}, whose contents {@code contents} gives when the trace first reads them. */
    public static ListVariable unread(Supplier<Contents> contents, Class<?> type, Source source) { return new ListVariable(contents, type, source); }

    /** A list from the inputs the trace may not change (List.of, …), of class {@code cls} (guarded), whose elements are wrapped as first read. */
    public static ListVariable ofInput(Contents contents, Source source, Class<?> cls) {
        ListVariable l = new ListVariable(List.of(), false, source);
        l.takeContents(contents);
        l.immutableKind = cls == null ? null : ImmutableListKind.ofClass(cls, contents.size());
        return l;
    }

    /**
     * An input list whose class says that every write to it throws UnsupportedOperationException at
     * once (the JDK's immutable lists, Collections.unmodifiableList, a reversed() view of an immutable
     * list); {@code kind}: how it was made, when the trace knows, else null. {@code view}: whether
     * it shows another container that may change ({@link #ofInputView}).
     */
    public static ListVariable ofInputRefusingWrites(Contents contents, Source source, ImmutableListKind kind, Class<?> viewClass) {
        ListVariable l = ofInput(contents, source, null);
        l.immutableKind = kind;
        l.viewClass = viewClass;
        l.refusesWrites = true;
        return l;
    }

    /** Whether this input list refuses every write ({@link #ofInputRefusingWrites}). */
    public boolean refusesWrites() { return refusesWrites; }

    private boolean refusesWrites;

    /** An immutable list made in the trace as {@code kind} says (List.of, toList, …). */
    public static ListVariable immutable(List<VariableTracker> items, ImmutableListKind kind) {
        ListVariable l = new ListVariable(items, false, null);
        l.immutableKind = kind;
        return l;
    }

    /**
     * How an immutable list was made when the trace knows it (List.of, List.copyOf, toList, nCopies,
     * a subList of one, an input of one of those classes); null for any other. What an index out of
     * range throws depends on it: List12's IndexOutOfBoundsException "Index: 5 Size: 2", ListN's
     * ArrayIndexOutOfBoundsException, a subList's "Index 5 out of bounds for length 2".
     */
    public ImmutableListKind immutableKind() { return base != null || mutable ? null : immutableKind; }

    private ImmutableListKind immutableKind;

    /**
     * {@link #ofInput} for a list that is a view of another container (a subList, an unmodifiable
     * wrapper, an Arrays.asList): it shows that container's changes, which the trace cannot tie
     * to it, so it is read only while no list or array has changed in the trace (see Containers).
     */
    public static ListVariable ofInputView(Contents contents, Source source, Class<?> viewClass) {
        ListVariable l = ofInput(contents, source, null);
        l.viewClass = viewClass;
        return l;
    }

    /** Whether this input list is a view of another container ({@link #ofInputView}). */
    public boolean isViewOfAnother() { return viewClass != null; }

    /** The class of an input view ({@link #ofInputView}), by name; empty for any other list. */
    public String inputClassName() { return viewClass == null ? "" : viewClass.getName(); }

    private Class<?> viewClass;

    private void takeContents(Contents c) {
        items = new ArrayList<>(Collections.nCopies(c.size(), (VariableTracker) null));
        element = c.size() == 0 ? null : c.element();
        inputSize = c.size();
    }

    /** The list's structure (its length guarded), its elements not yet wrapped. */
    private List<VariableTracker> structure() {
        if (base != null) return viewItems(base.items());
        if (unread != null) {
            takeContents(unread.get());
            items.addAll(appended);
            appended.clear();
            unread = null;
        }
        return items;
    }

    /** The items, as the trace sees them; the first call on an input list wraps and guards every element not read yet. */
    public List<VariableTracker> items() {
        if (base != null) return viewItems(base.items());
        structure();
        if (element != null) {
            for (int i = 0; i < inputSize; i++) if (items.get(i) == null) items.set(i, element.apply(i));
            element = null;
        }
        return items;
    }

    /** A view's items: Java's own view of the base's, live (the trace's lists are ArrayLists). */
    private List<VariableTracker> viewItems(List<VariableTracker> of) {
        return switch (viewKind) {
            case SUB_LIST -> of.subList(viewFrom, viewFrom + viewSize);
            case REVERSED -> of.reversed();
            case UNMODIFIABLE, UNMODIFIABLE_COLLECTION -> of;
        };
    }

    /** How many items: an input list's length is guarded, none of its elements wrapped. */
    public int size() { return structure().size(); }

    /** Item {@code i} (in range): an input list's element is wrapped and guarded on its first read, the others not. */
    public VariableTracker get(int i) {
        if (base != null) return items().get(i);
        List<VariableTracker> s = structure();
        if (element != null && i < inputSize && s.get(i) == null) s.set(i, element.apply(i));
        return s.get(i);
    }

    /** Whether the trace has read the contents (an unread input list has only been appended to, if anything). */
    public boolean isRead() { return base != null || unread == null; }

    /** Appends without reading the contents: only for an unread list (the caller counts the change: {@link #changedStructure}). */
    public void append(VariableTracker v) {
        if (unread == null) throw new IllegalStateException("append to a list already read: add to items()");
        appended.add(v);
    }

    /** Records a change Java's modCount counts (an add, a removal, an ArrayList's sort): iterators made before it fail fast. */
    public void changedStructure() {
        if (base != null) base.changedStructure();
        else structuralChanges++;
    }

    /** The count of {@link #changedStructure}: a view's is its root's, as a Java subList's iterators read their root's modCount. */
    public int structuralChanges() { return base != null ? base.structuralChanges() : structuralChanges; }

    /** What was appended to an unread list, in order. */
    public List<VariableTracker> appended() { return List.copyOf(appended); }

    public boolean isMutable() { return mutable; }

    @Override
    public Source source() { return source; }

    @Override
    public String describe() {
        if (base != null) return switch (viewKind) {
            case SUB_LIST -> "subList(" + viewFrom + ", " + (viewFrom + viewSize) + ") of " + base.describe();
            case REVERSED -> "reversed() of " + base.describe();
            case UNMODIFIABLE -> "unmodifiableList of " + base.describe();
            case UNMODIFIABLE_COLLECTION -> "unmodifiableCollection of " + base.describe();
        };
        return unread != null ? type.getSimpleName() + " (contents not read)" : (mutable ? type.getSimpleName() : backing != null ? "Arrays.asList" : "List") + " of " + items.size();
    }
}
