package dev.ember.dynamo.variables;

import java.util.ArrayList;
import java.util.List;

/**
 * The structural changes made to a tracked map or set while tracing (keys inserted and removed,
 * clears), in program order. Replaying them on a map or set of the same class, then setting the
 * final values, leaves it exactly as eager would, iteration order included: a HashMap's order
 * depends on its history, not only on its keys.
 */
public final class Changes {
    /** One structural change: {@code key} inserted or removed, or (key null) everything cleared. */
    public record Change(Kind kind, Object key) {}

    public enum Kind { INSERT, REMOVE, CLEAR }

    private final List<Change> log = new ArrayList<>();
    private int removals;

    public void inserted(Object key) { log.add(new Change(Kind.INSERT, key)); }

    public void removed(Object key) {
        log.add(new Change(Kind.REMOVE, key));
        removals++;
    }

    public void cleared() {
        log.add(new Change(Kind.CLEAR, null));
        removals++;
    }

    public List<Change> log() { return List.copyOf(log); }

    public boolean isEmpty() { return log.isEmpty(); }

    /** Structural changes so far: an iterator made before the last one fails as Java's fail-fast iterators do. */
    public int count() { return log.size(); }

    /** Removals and clears so far: a map entry read before one may no longer be in its map. */
    public int removals() { return removals; }

    /** Whether a key was inserted: after that, a HashMap or HashSet from the inputs iterates in an order the trace cannot know. */
    public boolean inserted() { return log.stream().anyMatch(c -> c.kind() == Kind.INSERT); }
}
