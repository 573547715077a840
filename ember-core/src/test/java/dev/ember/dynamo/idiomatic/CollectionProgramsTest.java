package dev.ember.dynamo.idiomatic;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static dev.ember.dynamo.idiomatic.Idioms.check;
import static dev.ember.dynamo.idiomatic.Idioms.checkThrows;
import static dev.ember.dynamo.idiomatic.Idioms.oneGraph;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * Collections as Java engineers use them around tensors: List.of and Map.of, an ArrayList built
 * in the function, var, enhanced for, iterators, Map.getOrDefault/computeIfAbsent/merge,
 * Optional, ArrayDeque as a stack, Collections utilities. Each program runs eagerly and compiled.
 */
class CollectionProgramsTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static final Tensor X = Tensor.randn(4, 3), Y = Tensor.randn(4, 3);

    // ------------------------------------------------------------------ programs

    static List<Tensor> arrayListBuiltInside(Tensor x) {
        var outputs = new ArrayList<Tensor>();
        for (var scale : List.of(0.5, 1.0, 2.0)) outputs.add(x.mul(scale));
        outputs.removeFirst();
        outputs.add(0, x.neg());
        return outputs;
    }

    static Tensor mapOfWeights(Map<String, Tensor> params, Tensor x) {
        Tensor h = x.matmul(params.get("w1")).relu();
        return h.matmul(params.get("w2")).add(params.getOrDefault("b", Tensor.zeros(3)));
    }

    static Map<String, Tensor> linkedHashMapOut(Tensor x) {
        Map<String, Tensor> stats = new LinkedHashMap<>();
        stats.put("mean", x.mean());
        stats.put("max", x.amax());
        stats.put("min", x.amin());
        stats.remove("max");
        return stats;
    }

    static Tensor computeIfAbsentAndMerge(Tensor x) {
        Map<String, List<Tensor>> groups = new HashMap<>();
        for (int i = 0; i < 4; i++) groups.computeIfAbsent(i % 2 == 0 ? "even" : "odd", k -> new ArrayList<>()).add(x.mul(i));
        Map<String, Integer> counts = new TreeMap<>();
        for (String k : List.of("a", "b", "a")) counts.merge(k, 1, Integer::sum);
        return groups.get("even").getLast().add(groups.get("odd").getFirst()).mul(counts.get("a"));
    }

    static Tensor optionalFromAMap(Map<String, Tensor> cache, Tensor x) {
        Optional<Tensor> hit = Optional.ofNullable(cache.get("x"));
        return hit.map(t -> t.add(x)).orElse(x.mul(10));
    }

    static Tensor dequeAsAStack(Tensor x) {
        Deque<Tensor> stack = new ArrayDeque<>();
        stack.push(x);
        stack.push(x.exp());
        stack.push(x.sin());
        Tensor top = stack.pop();
        return top.add(stack.pop()).sub(stack.peek());
    }

    static Tensor explicitIterator(List<Tensor> parts) {
        Tensor acc = parts.getFirst();
        Iterator<Tensor> it = parts.iterator();
        it.next();
        while (it.hasNext()) acc = acc.mul(it.next());
        return acc;
    }

    static List<Tensor> collectionsUtilities(Tensor x, Tensor y) {
        List<Tensor> xs = new ArrayList<>(List.of(x, y, x.add(y)));
        Collections.reverse(xs);
        Collections.swap(xs, 0, 2);
        return Collections.unmodifiableList(xs);
    }

    static Tensor indexOutOfRange(List<Tensor> parts) {
        return parts.get(parts.size()).add(1);
    }

    static Tensor immutableListRejectsAdd(Tensor x) {
        List<Tensor> fixed = List.of(x);
        try {
            fixed.add(x.neg());
            return x;
        } catch (UnsupportedOperationException e) {
            return x.mul(2);
        }
    }

    static Map<Integer, Tensor> mapEntriesLoop(Map<Integer, Tensor> byLayer) {
        Map<Integer, Tensor> out = new TreeMap<>();
        for (Map.Entry<Integer, Tensor> e : byLayer.entrySet()) out.put(e.getKey() * 10, e.getValue().mul(e.getKey()));
        return out;
    }

    // ------------------------------------------------------------------ tests

    @Test
    void anArrayListBuiltWithVarAndEnhancedFor() {
        oneGraph(check((Fn1<Tensor, List<Tensor>>) CollectionProgramsTest::arrayListBuiltInside, X), 4);
    }

    @Test
    void parametersFromAMapOf() {
        Map<String, Tensor> params = Map.of("w1", Tensor.randn(3, 5), "w2", Tensor.randn(5, 3));
        oneGraph(check((Fn2<Map<String, Tensor>, Tensor, Tensor>) CollectionProgramsTest::mapOfWeights, params, X));
    }

    @Test
    void aLinkedHashMapReturnedInInsertionOrder() {
        Fn1<Tensor, Map<String, Tensor>> fn = CollectionProgramsTest::linkedHashMapOut;
        oneGraph(check(fn, X), 3);
        assertEquals(List.of("mean", "min"), List.copyOf(Ember.compile(fn).apply(X).keySet()));
    }

    @Test
    void computeIfAbsentAndMerge() {
        oneGraph(check((Fn1<Tensor, Tensor>) CollectionProgramsTest::computeIfAbsentAndMerge, X));
    }

    @Test
    void optionalOfNullableFromAMapLookup() {
        Fn2<Map<String, Tensor>, Tensor, Tensor> fn = CollectionProgramsTest::optionalFromAMap;
        oneGraph(check(fn, Map.of("x", Y), X), 2);   // orElse's argument is computed either way, as in Java
        oneGraph(check(fn, Map.of("y", Y), X), 1);
    }

    @Test
    void anArrayDequeAsAStack() {
        oneGraph(check((Fn1<Tensor, Tensor>) CollectionProgramsTest::dequeAsAStack, X), 4);
    }

    @Test
    void anExplicitIteratorLoop() {
        oneGraph(check((Fn1<List<Tensor>, Tensor>) CollectionProgramsTest::explicitIterator, List.of(X, Y, X)), 2);
    }

    @Test
    void collectionsReverseSwapUnmodifiable() {
        Fn2<Tensor, Tensor, List<Tensor>> fn = CollectionProgramsTest::collectionsUtilities;
        // reverse and swap are traced, and Collections.unmodifiableList (a live read-only view, since capture session 11)
        oneGraph(check(fn, X, Y));
        Object got = dev.ember.Ember.compile(fn).apply(X, Y);
        assertEquals(Collections.unmodifiableList(new ArrayList<>()).getClass(), got.getClass(), "eager's wrapper class");
    }

    @Test
    void anIndexPastTheEndThrowsAsEager() {
        Throwable t = checkThrows((Fn1<List<Tensor>, Tensor>) CollectionProgramsTest::indexOutOfRange, List.of(X, Y));
        assertInstanceOf(IndexOutOfBoundsException.class, t);
    }

    @Test
    void anImmutableListRejectsAddAndTheCatchRuns() {
        oneGraph(check((Fn1<Tensor, Tensor>) CollectionProgramsTest::immutableListRejectsAdd, X), 2);   // x.neg() is computed before add throws
    }

    @Test
    void mapEntriesOfATreeMapArgument() {
        Map<Integer, Tensor> byLayer = new TreeMap<>(Map.of(1, X, 2, Y, 3, X.neg()));
        oneGraph(check((Fn1<Map<Integer, Tensor>, Map<Integer, Tensor>>) CollectionProgramsTest::mapEntriesLoop, byLayer));
    }
}
