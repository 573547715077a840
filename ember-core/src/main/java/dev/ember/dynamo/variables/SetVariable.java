package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

import java.util.Collection;
import java.util.Set;

/** A java.util.Set of values known while tracing; {@link #elements()} holds the real values. */
public final class SetVariable extends KeyedVariable {
    private Set<Object> elements;

    public SetVariable(Class<?> type, Set<Object> elements, boolean mutable, Source source) {
        super(type, mutable, source);
        this.elements = elements;
    }

    /** A view of the sorted set {@code view.base()}: {@code real} is the JDK's view of the base's real set. */
    public SetVariable(Set<Object> real, SortedView view) {
        super(real.getClass(), view);
        this.elements = real;
    }

    public Set<Object> elements() { return elements; }

    @Override
    public Collection<Object> keys() { return elements; }

    /** The set's constructor ran ({@code <init>}): {@code made} is the real set it made, as {@code how} made it. */
    public void constructed(Set<Object> made, Construction how) {
        this.elements = made;
        construction(how);
    }
}
