package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

import java.util.Collection;
import java.util.Map;

/** A java.util.Map with keys known while tracing; {@link #entries()} maps each key to its value as traced. */
public final class MapVariable extends KeyedVariable {
    private Map<Object, VariableTracker> entries;
    private final Map<MapViewVariable.View, MapViewVariable> views = new java.util.EnumMap<>(MapViewVariable.View.class);

    public MapVariable(Class<?> type, Map<Object, VariableTracker> entries, boolean mutable, Source source) {
        super(type, mutable, source);
        this.entries = entries;
    }

    public Map<Object, VariableTracker> entries() { return entries; }

    @Override
    public Collection<Object> keys() { return entries.keySet(); }

    /** A view of this map; the same view each time, as Java's maps return the same view object. */
    public MapViewVariable view(MapViewVariable.View kind) { return views.computeIfAbsent(kind, k -> new MapViewVariable(this, k)); }

    /** The map's constructor ran ({@code <init>}): {@code made} is the real map it made, as {@code how} made it. */
    public void constructed(Map<Object, VariableTracker> made, Construction how) {
        this.entries = made;
        construction(how);
    }
}
