package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

/**
 * A {@code Map.Entry} from iterating a tracked map's {@code entrySet()}. Like the map's own entries
 * it reads through to the map while its key stays there ({@code put} on the key changes its value).
 * Once keys were removed from the map it may be detached, holding whatever value its key had then,
 * which the trace does not keep: it is then no longer {@link #attached()}.
 */
public final class EntryVariable implements VariableTracker {
    private final MapVariable map;
    private final Object key;
    private final int removalsWhenMade;

    /** Read through an unmodifiable map: setValue throws UnsupportedOperationException, as Collections' UnmodifiableEntry's does. */
    private final boolean readOnly;

    public EntryVariable(MapVariable map, Object key) { this(map, key, false); }

    public EntryVariable(MapVariable map, Object key, boolean readOnly) {
        this.map = map;
        this.key = key;
        this.readOnly = readOnly;
        this.removalsWhenMade = map.changes().removals();
    }

    /** Whether this entry was read through an unmodifiable map (its setValue throws). */
    public boolean readOnly() { return readOnly; }

    public MapVariable map() { return map; }

    public Object key() { return key; }

    /** Whether the entry is still its map's entry for {@link #key()} (nothing was removed from the map since it was read). */
    public boolean attached() { return map.changes().removals() == removalsWhenMade; }

    /** The entry's value, while it is {@link #attached()}. */
    public VariableTracker value() { return map.heldValue(key); }

    @Override
    public Source source() { return null; }

    @Override
    public String describe() { return "Map.Entry " + key; }
}
