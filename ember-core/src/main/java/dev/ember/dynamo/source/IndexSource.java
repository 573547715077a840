package dev.ember.dynamo.source;

import java.lang.reflect.Array;
import java.util.List;

/** Element {@code index} of the array, {@link List} or other collection (an ArrayDeque, in iteration order) at {@code base}, or an Optional's value (index 0): {@code L['xs'][0]}. */
public record IndexSource(Source base, int index) implements Source {
    @Override
    public String name() { return base.name() + "[" + index + "]"; }

    @Override
    public Object read(Object[] frame) {
        Object container = base.read(frame);
        if (container instanceof List<?> l) return l.get(index);
        if (container instanceof java.util.Optional<?> o && index == 0) return o.orElseThrow();
        if (container instanceof java.util.Collection<?> c) return c.stream().skip(index).findFirst().orElseThrow(() -> new IndexOutOfBoundsException(index));
        return Array.get(container, index);
    }
}
