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

    /**
     * INSERT by put or add; COMPUTED by compute, computeIfAbsent or merge, which a HashMap puts at
     * the head of the key's bin where put appends at its tail: keys sharing a bin iterate in
     * another order, so the replay inserts each key the way the program did.
     */
    public enum Kind { INSERT, COMPUTED, REMOVE, CLEAR }

    private final List<Change> log = new ArrayList<>();
    private int removals;

    public void inserted(Object key) { log.add(new Change(Kind.INSERT, key)); }

    /** {@code key} inserted by compute, computeIfAbsent or merge (see {@link Kind#COMPUTED}). */
    public void computed(Object key) { log.add(new Change(Kind.COMPUTED, key)); }

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
    public boolean inserted() { return log.stream().anyMatch(c -> c.kind() == Kind.INSERT || c.kind() == Kind.COMPUTED); }
}
