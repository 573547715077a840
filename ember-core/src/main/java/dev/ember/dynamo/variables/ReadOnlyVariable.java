package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

/**
 * {@code Collections.unmodifiableMap}, {@code unmodifiableSet} or {@code unmodifiableCollection} of
 * a tracked map, set or map view made in the trace, or a keySet(), values() or entrySet() of an
 * unmodifiable map: a live read-only view. Reads go to {@link #of()} as it is now (its later
 * changes show through); every write throws UnsupportedOperationException, as the JDK's wrappers
 * do, and so do the entries and iterators read through it.
 *
 * @param of      the map, set or map view read through
 * @param wrapper the Collections method that made it; for a view of an unmodifiable map, unmodifiableMap
 */
public record ReadOnlyVariable(VariableTracker of, Wrapper wrapper) implements VariableTracker {
    public enum Wrapper { UNMODIFIABLE_MAP, UNMODIFIABLE_SET, UNMODIFIABLE_COLLECTION }

    public ReadOnlyVariable {
        if (!(of instanceof MapVariable || of instanceof SetVariable || of instanceof MapViewVariable)) throw new IllegalArgumentException(of.describe());
    }

    @Override
    public Source source() { return null; }

    @Override
    public String describe() {
        String name = switch (wrapper) {
            case UNMODIFIABLE_MAP -> "unmodifiableMap";
            case UNMODIFIABLE_SET -> "unmodifiableSet";
            case UNMODIFIABLE_COLLECTION -> "unmodifiableCollection";
        };
        return of instanceof MapViewVariable v && wrapper == Wrapper.UNMODIFIABLE_MAP
                ? "unmodifiableMap of " + v.map().describe() + "." + v.view().method() + "()" : name + " of " + of.describe();
    }
}
