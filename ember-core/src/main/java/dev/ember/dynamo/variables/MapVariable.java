package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A java.util.Map with keys known while tracing; {@link #entries()} maps each key to its value as
 * traced. An input map's values are wrapped (and guarded) when the trace reads them: {@link #value}
 * reads one, {@link #entries()} all, so a call whose map differs only in values the trace never
 * read does not recompile (test_functions.py::test_dict_tuple_lazy_guard).
 */
public final class MapVariable extends KeyedVariable {
    private Map<Object, VariableTracker> entries;
    /** The input map's values not read yet, by key; their keys are in {@link #entries} with a null placeholder. */
    private final Map<Object, Supplier<VariableTracker>> unread;
    private final Map<MapViewVariable.View, MapViewVariable> views = new java.util.EnumMap<>(MapViewVariable.View.class);

    public MapVariable(Class<?> type, Map<Object, VariableTracker> entries, boolean mutable, Source source) {
        this(type, entries, new HashMap<>(), mutable, source);
    }

    /** An input map: {@code entries} holds every key, in order; {@code unread} wraps the value of each key when it is first read. */
    public MapVariable(Class<?> type, Map<Object, VariableTracker> entries, Map<Object, Supplier<VariableTracker>> unread, boolean mutable, Source source) {
        super(type, mutable, source);
        this.entries = entries;
        this.unread = unread;
    }

    /** A view of the sorted map {@code view.base()}: {@code real} is the JDK's view of the base's real map. */
    public MapVariable(Map<Object, VariableTracker> real, SortedView view) {
        super(real.getClass(), view);
        this.entries = real;
        this.unread = new HashMap<>();
    }

    /** Every entry, each value read. */
    public Map<Object, VariableTracker> entries() {
        // a view's values are its base's: read there (an input map's are read when first asked for)
        if (sortedView() != null) ((MapVariable) sortedView().base()).entries();
        if (!unread.isEmpty()) {
            for (Object key : List.copyOf(entries.keySet())) value(key);
        }
        return entries;
    }

    /** The entries with values possibly not read yet (null placeholders): for the keys, the size and containment only. */
    public Map<Object, VariableTracker> keyedEntries() { return entries; }

    /** The value of {@code key}, a key of the map, read now if it was not. */
    public VariableTracker value(Object key) {
        if (sortedView() != null) ((MapVariable) sortedView().base()).value(key);
        Supplier<VariableTracker> pending = unread.remove(key);
        if (pending != null) entries.put(key, pending.get());
        return entries.get(key);
    }

    /**
     * The value of {@code key}, a key of the map, as one of its entries holds it: for a map sorted by
     * the program's comparator found by equals along the entries, so the comparator is not asked
     * where eager's entry (Map.Entry.getValue, setValue) does not ask it.
     */
    public VariableTracker heldValue(Object key) {
        if (comparator() == null) return entries.get(key);
        for (Map.Entry<Object, VariableTracker> e : entries.entrySet()) if (e.getKey().equals(key)) return e.getValue();
        return null;
    }

    /** Sets the value of {@code key}, a key of the map, in its entry (see {@link #heldValue}). */
    public void replaceHeldValue(Object key, VariableTracker value) {
        if (comparator() == null) {
            entries.put(key, value);
            return;
        }
        for (Map.Entry<Object, VariableTracker> e : entries.entrySet()) {
            if (e.getKey().equals(key)) {
                e.setValue(value);
                return;
            }
        }
        throw new IllegalStateException("no key " + key + " in " + describe());
    }

    @Override
    public Collection<Object> keys() { return entries.keySet(); }

    /** A view of this map; the same view each time, as Java's maps return the same view object. */
    public MapViewVariable view(MapViewVariable.View kind) { return views.computeIfAbsent(kind, k -> new MapViewVariable(this, k)); }

    /** The map's constructor ran ({@code <init>}): {@code made} is the real map it made, as {@code how} made it. */
    public void constructed(Map<Object, VariableTracker> made, Construction how) {
        unread.clear();
        this.entries = made;
        construction(how);
    }
}
