package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

/**
 * A {@code Map.Entry} from iterating a tracked map's {@code entrySet()}. Like the map's own entries
 * it reads through to the map while its key stays there ({@code put} on the key changes its value),
 * and keeps the value it last saw once the key may have been removed.
 */
public final class EntryVariable implements VariableTracker {
    private final MapVariable map;
    private final Object key;
    private final VariableTracker valueWhenMade;
    private final int removalsWhenMade;

    public EntryVariable(MapVariable map, Object key) {
        this.map = map;
        this.key = key;
        this.valueWhenMade = map.entries().get(key);
        this.removalsWhenMade = map.changes().removals();
    }

    public MapVariable map() { return map; }

    public Object key() { return key; }

    /** Whether the entry is still its map's entry for {@link #key()} (nothing was removed from the map since it was read). */
    public boolean attached() { return map.changes().removals() == removalsWhenMade; }

    public VariableTracker value() { return attached() ? map.entries().get(key) : valueWhenMade; }

    @Override
    public Source source() { return null; }

    @Override
    public String describe() { return "Map.Entry " + key; }
}
