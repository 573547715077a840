package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.KeySource;
import dev.ember.dynamo.source.Source;

import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The map's keys, or the set's elements, are exactly {@code keys} in this iteration order (PyTorch's
 * DICT_KEYS_MATCH). Order counts: the trace followed it, and the same keys can iterate in another
 * order (a HashMap with a larger table, a LinkedHashMap filled differently). {@code keys} is an immutable copy.
 */
public record KeysMatch(Source source, List<Object> keys) implements Guard {
    @Override
    public String kind() { return "DICT_KEYS_MATCH"; }

    @Override
    public boolean test(Object value) {
        Collection<?> actual = keysOf(value);
        if (actual == null || actual.size() != keys.size()) return false;
        Iterator<?> it = actual.iterator();
        for (Object k : keys) if (!k.equals(it.next())) return false;
        return true;
    }

    @Override
    public String explainFailure(Object value) {
        Collection<?> actual = keysOf(value);
        return "list(" + source.name() + ") == " + literals(keys) + " failed: actual " + (actual == null ? String.valueOf(value) : literals(actual));
    }

    @Override
    public String describe() { return "DICT_KEYS_MATCH: list(" + source.name() + ") == " + literals(keys); }

    private static Collection<?> keysOf(Object value) {
        if (value instanceof Map<?, ?> m) return m.keySet();
        return value instanceof Collection<?> c ? c : null;
    }

    private static String literals(Collection<?> keys) {
        StringBuilder sb = new StringBuilder("[");
        for (Object k : keys) sb.append(sb.length() > 1 ? ", " : "").append(KeySource.literal(k));
        return sb.append("]").toString();
    }
}
