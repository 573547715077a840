package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

import java.util.Map;

/**
 * A java.util.Map made during the trace (HashMap, LinkedHashMap, TreeMap or Map.of) with keys
 * known while tracing. {@link #entries()} is a real map of the same class, so iteration order is
 * exactly the eager program's.
 */
public final class MapVariable implements VariableTracker {
    private final Map<Object, VariableTracker> entries;
    private final boolean mutable;

    public MapVariable(Map<Object, VariableTracker> entries, boolean mutable) {
        this.entries = entries;
        this.mutable = mutable;
    }

    public Map<Object, VariableTracker> entries() { return entries; }

    public boolean isMutable() { return mutable; }

    @Override
    public Source source() { return null; }

    @Override
    public String describe() { return entries.getClass().getSimpleName() + " of " + entries.size(); }
}
