package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The capture gaps the sixth capture session closed and the wrong answers it found on the way,
 * each compiled against eager (results, inputs afterwards, exceptions).
 */
class Capture6RegressionTest {
    @AfterEach
    void reset() { Ember.reset(); }

    private static Object[] args(Object... a) { return a; }

    private static void alike(Object fn, Object... a) {
        Ember.reset();
        PyTorchPortsMoreTest.check(fn, Options.defaults(), () -> List.<Object[]>of(a.clone()));
    }

    // ---- an immutable map or set throws from every mutator, whatever the arguments ----

    static Tensor putIfAbsentPresent(Tensor x) { return x.mul(Map.of("a", 1).putIfAbsent("a", 2)); }

    static Tensor computeIfAbsentPresent(Tensor x) { return x.mul(Map.of("a", 1).computeIfAbsent("a", k -> 2)); }

    static Tensor computeIfPresentAbsent(Tensor x) { return x.add(Map.of("a", 1).computeIfPresent("z", (k, v) -> 2) == null ? 0 : 1); }

    static Tensor replaceAllEmpty(Tensor x) {
        Map.<String, Integer>of().replaceAll((k, v) -> v);
        return x.add(1);
    }

    static Tensor putAllEmpty(Tensor x) {
        Map.of("a", 1).putAll(Map.of());
        return x.add(1);
    }

    static Tensor removeAllNothing(Tensor x) { return x.add(Set.of(1).removeAll(List.of()) ? 1 : 2); }

    static Tensor retainAllEverything(Tensor x) { return x.add(Set.copyOf(List.of(1)).retainAll(List.of(1)) ? 1 : 2); }

    static Tensor addAllNothing(Tensor x) { return x.add(Set.of(1).addAll(List.of()) ? 1 : 2); }

    static Tensor inputPutIfAbsent(Tensor x, Map<String, Integer> m) { return x.mul(m.putIfAbsent("a", 3)); }

    @Test
    void immutableMapsAndSetsThrowFromEveryMutator() {
        for (Fn1<Tensor, Tensor> f : List.<Fn1<Tensor, Tensor>>of(Capture6RegressionTest::putIfAbsentPresent, Capture6RegressionTest::computeIfAbsentPresent,
                Capture6RegressionTest::computeIfPresentAbsent, Capture6RegressionTest::replaceAllEmpty, Capture6RegressionTest::putAllEmpty,
                Capture6RegressionTest::removeAllNothing, Capture6RegressionTest::retainAllEverything, Capture6RegressionTest::addAllNothing)) {
            alike(f, Tensor.randn(3));
        }
        alike((Fn2<Tensor, Map<String, Integer>, Tensor>) Capture6RegressionTest::inputPutIfAbsent, Tensor.randn(3), Map.of("a", 2));
    }

    // ---- streams: count() of a stream of known size, generate, takeWhile, dropWhile, toSet, partitioningBy ----

    private static void whole(Object fn, Object... a) {
        Ember.reset();
        var cc = PyTorchPortsMoreTest.check(fn, Options.fullgraph(), () -> List.<Object[]>of(a.clone(), a.clone()));
        assertEquals(1, cc.frameCount());
    }

    /** Java counts these without running map or peek: the counter stays 0 eagerly (filter and iterate run them). */
    static Tensor countSkipsSteps(Tensor x) {
        int[] calls = {0};
        long a = List.of(1, 2, 3).stream().peek(i -> calls[0]++).map(i -> calls[0] += 10).count();
        long b = Stream.concat(Stream.of(1, 2).map(i -> calls[0] += 100), IntStream.range(0, 3).boxed()).skip(1).limit(3).count();
        long c = Stream.of(1, 2, 3).filter(i -> calls[0]++ >= 0).count();
        long d = IntStream.iterate(0, i -> i < 2, i -> i + 1).peek(i -> calls[0] += 1000).count();
        return x.mul(calls[0]).add(a * 1000 + b * 100 + c * 10 + d);
    }

    @Test
    void countOfAStreamOfKnownSizeRunsNoStep() { whole((Fn1<Tensor, Tensor>) Capture6RegressionTest::countSkipsSteps, Tensor.randn(3)); }

    /** The supplier is called once per item pulled; takeWhile pulls up to its first failing item, dropWhile tests until its first. */
    static List<Object> generateTakeDrop(Tensor x) {
        int[] calls = {0};
        Tensor g = Stream.generate(() -> x.mul(++calls[0])).filter(t -> calls[0] % 2 == 1).limit(2).reduce(Tensor::add).orElseThrow();
        List<Integer> pulled = new ArrayList<>();
        List<Integer> taken = Stream.of(1, 2, 5, 1, 7).peek(pulled::add).takeWhile(i -> i < 4).toList();
        List<Integer> tested = new ArrayList<>();
        List<Integer> dropped = Stream.of(1, 2, 5, 1, 7).dropWhile(i -> tested.add(i) && i < 4).toList();
        int firstBig = IntStream.generate(() -> calls[0]++).dropWhile(i -> i < 9).findFirst().getAsInt();
        return List.of(g, calls[0], pulled, taken, tested, dropped, firstBig);
    }

    @Test
    void generateTakeWhileDropWhilePullAsJavaDoes() { whole((Fn1<Tensor, List<Object>>) Capture6RegressionTest::generateTakeDrop, Tensor.randn(3)); }

    /** A HashSet of more keys than its first table holds, and a partition map, returned: the same classes and iteration orders as eager's. */
    static List<Object> collectedSets(Tensor x) {
        Set<String> words = Stream.of("q", "w", "e", "r", "t", "y", "u", "i", "o", "p", "a", "s", "d", "f", "g", "h", "j", "k", "w")
                .collect(Collectors.toSet());
        Map<Boolean, List<Integer>> parts = IntStream.range(0, 7).boxed().collect(Collectors.partitioningBy(i -> i % 3 == 0));
        parts.get(true).add(99);
        return List.of(words, parts, x.mul(words.size()), new ArrayList<>(words));
    }

    @Test
    void toSetAndPartitioningByAreJavasContainers() {
        whole((Fn1<Tensor, List<Object>>) Capture6RegressionTest::collectedSets, Tensor.randn(3));
        List<Object> eager = collectedSets(Tensor.randn(3));
        List<Object> compiled = Ember.compile((Fn1<Tensor, List<Object>>) Capture6RegressionTest::collectedSets).apply(Tensor.randn(3));
        assertSame(eager.get(0).getClass(), compiled.get(0).getClass());
        assertSame(eager.get(1).getClass(), compiled.get(1).getClass());
        assertEquals(eager.get(3), compiled.get(3), "the HashSet's order");
        assertEquals(eager.get(1).toString(), compiled.get(1).toString(), "the partition's order");
    }

    // ---- new EnumMap<>(Key.class) made in the function ----

    enum Color { RED, GREEN, BLUE }

    /** Filled out of the enum's order, one returned empty: both made again after the graph as EnumMaps of Color. */
    static List<Object> enumMaps(Tensor x) {
        Map<Color, Tensor> m = new java.util.EnumMap<>(Color.class);
        m.put(Color.BLUE, x.mul(3));
        m.put(Color.RED, x.add(1));
        m.putIfAbsent(Color.BLUE, x);
        Tensor acc = x;
        for (Map.Entry<Color, Tensor> e : m.entrySet()) acc = acc.mul(e.getKey().ordinal() + 1).add(e.getValue());
        return List.of(acc, m, new java.util.EnumMap<Color, Integer>(Color.class));
    }

    @Test
    void enumMapOfAClassIsTraced() {
        whole((Fn1<Tensor, List<Object>>) Capture6RegressionTest::enumMaps, Tensor.randn(3));
        @SuppressWarnings("unchecked")
        Map<Color, Integer> empty = (Map<Color, Integer>) Ember.compile((Fn1<Tensor, List<Object>>) Capture6RegressionTest::enumMaps).apply(Tensor.randn(3)).get(2);
        empty.put(Color.GREEN, 1);
        assertSame(java.util.EnumMap.class, empty.getClass());
        @SuppressWarnings({"unchecked", "rawtypes"})
        Map<Object, Integer> raw = (Map) empty;
        org.junit.jupiter.api.Assertions.assertThrows(ClassCastException.class, () -> raw.put("GREEN", 1), "an EnumMap of Color, as eager's");
    }

    // ---- new IdentityHashMap<>(): keys told apart by identity, order unknown ----

    /** Tensors and enum constants as keys; returned, so made again after the graph with the returned tensors as keys. */
    static List<Object> identityMap(Tensor x, Tensor y) {
        Map<Object, Tensor> m = new java.util.IdentityHashMap<>();
        m.put(x, x.mul(2));
        m.put(Color.RED, y);
        m.put(x, x.add(1));
        m.computeIfAbsent(y, k -> y.neg());
        Tensor out = m.get(x).add(m.get(y)).mul(m.size()).add(m.containsKey("RED") ? 1 : 0);
        m.remove(Color.RED);
        return List.of(out, m.size(), m.containsKey(x));
    }

    /** A string key (its identity unknown while tracing) and iteration (identity hash order) run eagerly. */
    static Tensor identityMapStringKey(Tensor x) {
        Map<String, Integer> m = new java.util.IdentityHashMap<>();
        String a = "a", b = new String("a");
        m.put(a, 1);
        m.put(b, 2);
        int sum = 0;
        for (int v : m.values()) sum += v;
        return x.mul(m.size() * 10 + sum);
    }

    @Test
    void identityHashMapIsTraced() {
        whole((Fn2<Tensor, Tensor, List<Object>>) Capture6RegressionTest::identityMap, Tensor.randn(3), Tensor.randn(3));
        alike((Fn1<Tensor, Tensor>) Capture6RegressionTest::identityMapStringKey, Tensor.randn(3));
        Ember.reset();
        Tensor x = Tensor.randn(3);
        Map<?, ?> made = Ember.compile((Fn1<Tensor, Map<Object, Tensor>>) Capture6RegressionTest::identityMapReturned).apply(x);
        assertSame(java.util.IdentityHashMap.class, made.getClass());
        assertEquals(2, made.size());
        org.junit.jupiter.api.Assertions.assertTrue(made.containsKey(x) && made.containsKey(Color.GREEN), "the caller's tensor itself is a key");
    }

    static Map<Object, Tensor> identityMapReturned(Tensor x) {
        Map<Object, Tensor> m = new java.util.IdentityHashMap<>();
        m.put(Color.GREEN, x.mul(2));
        m.put(x, x.add(1));
        return m;
    }

    // ---- Map's default compute methods (EnumMap) do not check for changes; merge of null throws ----

    static Tensor enumMapComputeChangesMap(Tensor x) {
        Map<Color, Integer> m = new java.util.EnumMap<>(Color.class);
        int v = m.computeIfAbsent(Color.RED, k -> {
            m.put(Color.BLUE, 7);
            return 3;
        });
        return x.mul(v + m.get(Color.BLUE));
    }

    static Tensor mergeNull(Tensor x) {
        Map<String, Integer> m = new java.util.HashMap<>();
        m.merge("a", null, Integer::sum);
        return x.add(m.size());
    }

    @Test
    void mapDefaultMethodsAsJava() {
        alike((Fn1<Tensor, Tensor>) Capture6RegressionTest::enumMapComputeChangesMap, Tensor.randn(3));
        alike((Fn1<Tensor, Tensor>) Capture6RegressionTest::mergeNull, Tensor.randn(3));
    }
}
