package dev.ember.dynamo.source;

import java.lang.reflect.Array;
import java.util.List;

/** Element {@code index} of the array or {@link List} at {@code base}: {@code L['xs'][0]}. */
public record IndexSource(Source base, int index) implements Source {
    @Override
    public String name() { return base.name() + "[" + index + "]"; }

    @Override
    public Object read(Object[] frame) {
        Object container = base.read(frame);
        return container instanceof List<?> l ? l.get(index) : Array.get(container, index);
    }
}
