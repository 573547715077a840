package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

import java.util.ArrayList;
import java.util.List;

/**
 * A Java array: made during the trace, or from the frame's inputs (then stores into it are side
 * effects the compiled frame replays). A class, not a record: two stack slots holding the same
 * array must see the same stores.
 */
public final class ArrayVariable implements VariableTracker {
    private final Class<?> componentType;
    private final List<VariableTracker> items;
    private final Source source;

    public ArrayVariable(Class<?> componentType, List<VariableTracker> items, Source source) {
        this.componentType = componentType;
        this.items = new ArrayList<>(items);
        this.source = source;
    }

    public Class<?> componentType() { return componentType; }

    public List<VariableTracker> items() { return items; }

    @Override
    public Source source() { return source; }

    @Override
    public String describe() { return componentType.getSimpleName() + "[" + items.size() + "]"; }
}
