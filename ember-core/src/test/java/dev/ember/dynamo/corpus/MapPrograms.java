package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Programs on maps and sets, several after PyTorch's Dynamo tests of dicts and sets (test_functions, test_misc). */
final class MapPrograms {
    private MapPrograms() {}

    enum Part { WEIGHT, BIAS }

    /** A config dict read with get and getOrDefault (test_functions: dict_param_keys). */
    static Tensor scaleByConfig(Map<String, Double> cfg, Tensor x) {
        return x.mul(cfg.get("scale")).add(cfg.getOrDefault("shift", 0.0));
    }

    /** The example of docs/graph-breaks/GB0003.md. */
    static Tensor scaleAndRemember(Map<String, Double> cfg, Map<String, Tensor> state, Tensor x) {
        Tensor y = x.mul(cfg.get("scale")).add(cfg.getOrDefault("shift", 0.0));
        state.put("last", y);
        return y;
    }

    /** Iterating entrySet of a dict of tensors, keys used as numbers. */
    static Tensor weightedSum(Map<String, Tensor> m, Tensor x) {
        Tensor acc = x;
        for (Map.Entry<String, Tensor> e : m.entrySet()) acc = acc.add(e.getValue().mul(e.getKey().length()));
        return acc;
    }

    /** A missing key and a key present with a null value both read null, as in Java; containsKey tells them apart. */
    static Tensor optionalBias(Map<String, Tensor> m, Tensor x) {
        Tensor bias = m.get("bias");
        if (bias != null) x = x.add(bias);
        if (m.containsKey("bias")) x = x.mul(2);
        Tensor gate = m.getOrDefault("gate", x);
        return gate == null ? x.neg() : x.mul(gate);
    }

    /** Mutates the caller's map: a put, a remove and an update, replayed after the graph (test_functions: dict_mutation_side_effect). */
    static Tensor updatesCallerMap(Map<String, Tensor> state, Tensor x) {
        Tensor y = x.relu();
        state.put("out", y);
        state.remove("tmp");
        state.put("x", x.neg());
        return y.sum();
    }

    /** A HashMap made in the trace whose table grows and loses keys: returned, it must iterate in eager's order. */
    static Map<String, Tensor> grownHashMap(Tensor x) {
        Map<String, Tensor> m = new HashMap<>();
        for (int i = 0; i < 13; i++) m.put("key" + i, x.mul(i));
        for (int i = 0; i < 13; i += 2) m.remove("key" + i);
        m.put("late", x);
        return m;
    }

    /** putAll, keySet, values, size and isEmpty on a dict made from the caller's (test_misc: dict_copy_and_update). */
    static Tensor mergeDicts(Map<String, Tensor> a, Map<String, Tensor> b, Tensor x) {
        Map<String, Tensor> merged = new LinkedHashMap<>(a);
        merged.putAll(b);
        Tensor acc = x.mul(merged.size());
        for (String k : merged.keySet()) if (k.startsWith("w")) acc = acc.add(merged.get(k));
        for (Tensor v : new ArrayList<>(merged.values())) acc = acc.sub(v.mul(0.5));
        return merged.isEmpty() ? x : acc.add(Tensor.stack(List.copyOf(b.values()), 0).sum(0, false));
    }

    /** computeIfAbsent as a cache, forEach with a BiConsumer (test_functions: dict_setdefault, dict_items_iter). */
    static List<Tensor> cacheAndVisit(Tensor x) {
        Map<Integer, Tensor> cache = new TreeMap<>();
        for (int i : new int[] {3, 1, 3, 2}) cache.computeIfAbsent(i, k -> x.mul(k));
        List<Tensor> out = new ArrayList<>();
        cache.forEach((k, v) -> out.add(v.add(k)));
        return out;
    }

    /** Enum and Integer keys in an input TreeMap (sorted iteration). */
    static Tensor byEnum(Map<Part, Tensor> params, TreeMap<Integer, Double> scales, Tensor x) {
        Tensor y = x.matmul(params.get(Part.WEIGHT)).add(params.get(Part.BIAS));
        for (var e : scales.entrySet()) y = y.mul(e.getValue()).add(e.getKey());
        return y;
    }

    /** A dict built, then returned across a graph break. */
    static Map<String, Tensor> mapAcrossBreak(Tensor x) {
        Map<String, Tensor> m = new LinkedHashMap<>();
        m.put("relu", x.relu());
        Ember.graphBreak();
        m.put("neg", x.neg());
        m.put("relu", m.get("relu").add(1));
        return m;
    }

    /** Inserting into the caller's HashMap, then iterating it: where the key lands depends on the real table. */
    static Tensor insertThenIterate(HashMap<String, Tensor> m, Tensor x) {
        m.put("extra", x);
        Tensor acc = x;
        for (String k : m.keySet()) acc = acc.mul(2).add(m.get(k));
        return acc;
    }

    /** Changing a map while iterating it throws ConcurrentModificationException, compiled as in eager. */
    static Tensor modifiesWhileIterating(Map<String, Tensor> m, Tensor x) {
        for (String k : m.keySet()) {
            x = x.add(m.get(k));
            m.put(k + "2", x);
        }
        return x;
    }

    /** put on Map.of: UnsupportedOperationException, compiled as in eager. */
    static Tensor putOnImmutable(Tensor x) {
        Map<String, Tensor> m = Map.of("a", x);
        m.put("b", x);
        return x;
    }

    /** Views are the same object each time, as Java's; an entry reads through to its map, and writes through setValue. */
    static Tensor viewsAndEntries(Map<String, Tensor> m, Tensor x) {
        boolean sameView = m.keySet() == m.keySet();
        Map.Entry<String, Tensor> first = m.entrySet().iterator().next();
        m.put(first.getKey(), x.neg());
        Tensor v = first.getValue();
        first.setValue(v.mul(2));
        return sameView ? v.add(m.get(first.getKey())) : x;
    }

    /** An entry read before a key was removed may be detached from its map: reading it is left to Java. */
    static Tensor entryAfterRemoval(Map<String, Tensor> m, Tensor x) {
        Map.Entry<String, Tensor> first = m.entrySet().iterator().next();
        m.put(first.getKey(), x.neg());
        m.remove(first.getKey());
        return first.getValue().add(x);
    }

    /** A map keyed by tensors: tracking it would need tensor identity; it breaks with a message that says why. */
    static Tensor tensorKeys(Map<Tensor, Integer> m, Tensor x) {
        return x.mul(m.get(x));
    }

    static Tensor listKeys(Map<List<Integer>, Integer> m, Tensor x) {
        return x.mul(m.get(List.of(1, 2)));
    }

    /** Flags in a set (test_misc: set_contains), a set made in the trace, and the caller's set updated. */
    static Tensor flags(Set<String> enabled, Tensor x) {
        if (enabled.contains("relu")) x = x.relu();
        if (enabled.contains("neg")) x = x.neg();
        return x.mul(enabled.size());
    }

    /** Sets made in the trace: a LinkedHashSet and a HashSet that grows, returned with their order. */
    static List<Object> setsMade(Tensor x) {
        Set<String> seen = new LinkedHashSet<>();
        for (String s : List.of("b", "a", "b", "c")) seen.add(s);
        seen.remove("a");
        Set<Integer> grown = new HashSet<>();
        for (int i = 0; i < 40; i += 3) grown.add(i * 7);
        for (int i = 0; i < 20; i++) grown.remove(i);
        Tensor y = x;
        for (int i : grown) y = y.add(i);
        return List.of(seen, grown, y, Set.of("p", "q", "r").contains("q"));
    }

    /** The caller's set: an element added and one removed, replayed after the graph. */
    static Tensor updatesCallerSet(Set<String> tags, Tensor x) {
        tags.add("seen");
        boolean had = tags.remove("new");
        return had ? x.neg() : x;
    }
}
