package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

/**
 * A {@code Map.entry(key, value)} made in the trace: an immutable pair of traced values (Python's
 * 2-tuple in {@code dict(list_of_pairs)}), unlike {@link EntryVariable}, which reads through to
 * its map. Made again after the graph as {@code Map.entry} when it is live across a break or returned.
 */
public record ImmutableEntryVariable(VariableTracker key, VariableTracker value) implements VariableTracker {
    @Override
    public Source source() { return null; }

    @Override
    public String describe() { return "Map.entry(" + key.describe() + ", " + value.describe() + ")"; }
}
