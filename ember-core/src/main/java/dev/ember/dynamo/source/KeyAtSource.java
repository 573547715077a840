package dev.ember.dynamo.source;

import java.util.Collection;
import java.util.Map;

/**
 * The key at position {@code index} of the map (or the element of the set) at {@code base}, in its
 * iteration order: {@code list(L['m'])[0]}. A key that is a tensor is a graph input read from here.
 */
public record KeyAtSource(Source base, int index) implements Source {
    @Override
    public String name() { return "list(" + base.name() + ")[" + index + "]"; }

    @Override
    public Object read(Object[] frame) {
        Object container = base.read(frame);
        Collection<?> keys = container instanceof Map<?, ?> m ? m.keySet() : (Collection<?>) container;
        return keys.stream().skip(index).findFirst().orElseThrow(() -> new IndexOutOfBoundsException(index));
    }
}
