package dev.ember.fx;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Walks node arguments: nested lists (and object arrays, read as lists) hold nodes and constants;
 * everything else is a leaf. FX's {@code map_arg} / {@code map_aggregate}.
 */
final class ArgTrees {
    private ArgTrees() {}

    /** An unmodifiable copy with lists copied deeply and primitive arrays cloned, so callers cannot change it behind the graph's back. */
    static Object freeze(Object a) {
        return switch (a) {
            case null -> null;
            case List<?> l -> freezeList(l);
            case Object[] arr -> freezeList(java.util.Arrays.asList(arr));
            case int[] arr -> arr.clone();
            case long[] arr -> arr.clone();
            case double[] arr -> arr.clone();
            case float[] arr -> arr.clone();
            case boolean[] arr -> arr.clone();
            default -> a;
        };
    }

    static List<Object> freezeList(List<?> l) {
        List<Object> out = new ArrayList<>(l.size());
        for (Object x : l) out.add(freeze(x));
        return Collections.unmodifiableList(out);
    }

    static Map<String, Object> freezeMap(Map<String, ?> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, freeze(v)));
        return Collections.unmodifiableMap(out);
    }

    /** The same structure with every node replaced by {@code fn(node)}. */
    static Object map(Object a, Function<Node, Object> fn) { return mapLeaves(a, x -> x instanceof Node n ? fn.apply(n) : x); }

    /** The same structure with every leaf (a node or a constant, not a list) replaced by {@code fn(leaf)}. */
    static Object mapLeaves(Object a, Function<Object, Object> fn) {
        if (!(a instanceof List<?> l)) return fn.apply(a);
        List<Object> out = new ArrayList<>(l.size());
        for (Object x : l) out.add(mapLeaves(x, fn));
        return Collections.unmodifiableList(out);
    }

    static List<Object> mapList(List<Object> l, Function<Node, Object> fn) {
        @SuppressWarnings("unchecked")
        List<Object> out = (List<Object>) map(l, fn);
        return out;
    }

    static Map<String, Object> mapMap(Map<String, Object> m, Function<Node, Object> fn) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, map(v, fn)));
        return Collections.unmodifiableMap(out);
    }

    /** Calls {@code visit} on every node in {@code a}, in order. */
    static void forEachNode(Object a, Consumer<Node> visit) {
        if (a instanceof Node n) visit.accept(n);
        else if (a instanceof List<?> l) for (Object x : l) forEachNode(x, visit);
    }
}
