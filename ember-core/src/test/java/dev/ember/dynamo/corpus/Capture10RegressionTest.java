package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Capture session 10's fixes, each failing without it. */
class Capture10RegressionTest {

    @AfterEach
    void reset() {
        Ember.reset();
        LOG.clear();
    }

    // ---- an exception thrown out of the compiled function ----

    static final List<Tensor> LOG = new ArrayList<>();

    static Tensor throwsAfterWork(Tensor x) {
        LOG.add(x.mul(2));
        Tensor y = x.add(1).relu();
        if (x.dim() == 1) throw new IllegalArgumentException("expected a matrix, got " + x.dim() + " dims");
        return y;
    }

    static final class ShapeError extends RuntimeException {
        final int dim;

        ShapeError(String message, int dim, Throwable cause) {
            super("shape: " + message, cause);
            this.dim = dim;
        }
    }

    static Tensor throwsOwnException(Tensor x) {
        LOG.add(x.cos());
        throw new ShapeError("rank " + x.dim(), x.dim(), new IllegalStateException("inner " + x.shape()[0]));
    }

    static Tensor throwsFromAJdkCall(Tensor x) {
        List<Tensor> xs = List.of(x.sin());
        LOG.add(xs.getFirst().neg());
        return xs.get(3);
    }

    /** Eager's exception and the compiled call's: same class, message, cause; LOG gets what it gets eagerly; the graph before the throw is compiled once. */
    private static <T extends Throwable> T throwsAsEager(Fn1<Tensor, Tensor> fn, Class<T> type) {
        Tensor x = Tensor.randn(3);
        T eager = assertThrows(type, () -> fn.apply(x));
        List<Tensor> eagerLog = List.copyOf(LOG);
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> compiled = Ember.compile(fn, Options.backend(cc));
        T got = null;
        for (int call = 0; call < 2; call++) {
            LOG.clear();
            got = assertThrows(type, () -> compiled.apply(x));
            assertEquals(eager.getMessage(), got.getMessage(), "message");
            assertEquals(eager.getCause() == null ? null : eager.getCause().toString(), got.getCause() == null ? null : got.getCause().toString(), "cause");
            assertEquals(eager.getStackTrace()[0].getMethodName(), got.getStackTrace()[0].getMethodName(), "the stack starts in the program");
            assertEquals(eagerLog.size(), LOG.size(), "side effects");
            for (int i = 0; i < LOG.size(); i++) assertArrayEquals(eagerLog.get(i).toDoubleArray(), LOG.get(i).toDoubleArray(), 1e-6);
        }
        assertEquals(1, cc.frameCount(), "the work before the throw is one graph, compiled once (before: none, the whole call ran eagerly)");
        return got;
    }

    @Test
    void anUncaughtExceptionIsThrownAfterTheGraph() {
        throwsAsEager(Capture10RegressionTest::throwsAfterWork, IllegalArgumentException.class);
    }

    @Test
    void anExceptionOfTheProgramsClassKeepsItsFieldsAndCause() {
        ShapeError e = throwsAsEager(Capture10RegressionTest::throwsOwnException, ShapeError.class);
        assertEquals(1, e.dim);
        assertEquals(IllegalStateException.class, e.getCause().getClass());
    }

    @Test
    void anExceptionAJdkCallThrowsIsThrownAfterTheGraph() {
        throwsAsEager(Capture10RegressionTest::throwsFromAJdkCall, IndexOutOfBoundsException.class);
    }

    // ---- HashMap and HashSet iteration with record keys ----

    enum Part { WEIGHT, BIAS }

    record ParamKey(String layer, int index, boolean frozen) {}

    record Nested(ParamKey key, Part part, double scale) {}

    record WithTensor(Tensor t, int i) {}

    /** Iterates a HashMap of records in its hash order: the sum is order-independent, the list of keys is not. */
    static List<Object> recordKeyedHashMap(Tensor x) {
        Map<ParamKey, Tensor> grads = new HashMap<>();
        for (int i = 0; i < 7; i++) grads.merge(new ParamKey("layer" + (i % 4), i % 3, i % 2 == 0), x.mul(i + 1), Tensor::add);
        List<Object> order = new ArrayList<>();
        Tensor acc = x.mul(0);
        for (Map.Entry<ParamKey, Tensor> e : grads.entrySet()) {
            order.add(e.getKey());
            acc = acc.mul(0.5).add(e.getValue());      // depends on the order
        }
        order.add(acc);
        return order;
    }

    static Object[] nestedRecordSetAndMap(Tensor x) {
        Set<Nested> seen = new HashSet<>();
        Map<Nested, Tensor> m = new HashMap<>();
        for (int i = 0; i < 6; i++) {
            Nested k = new Nested(new ParamKey("l" + i % 3, i, false), i % 2 == 0 ? Part.WEIGHT : Part.BIAS, i * 0.5);
            seen.add(k);
            m.put(k, x.add(i));
        }
        List<Nested> inSetOrder = new ArrayList<>(seen);
        Tensor acc = x;
        for (Tensor t : m.values()) acc = acc.mul(0.5).add(t);
        return new Object[] {inSetOrder, m, acc};
    }

    static Tensor tensorComponentIterated(Tensor x, Tensor y) {
        Map<WithTensor, Integer> m = new HashMap<>();
        m.put(new WithTensor(x, 0), 1);
        m.put(new WithTensor(y, 1), 2);
        Tensor acc = x;
        for (WithTensor k : m.keySet()) acc = acc.mul(0.5).add(k.t());
        return acc;
    }

    /** merge and computeIfAbsent put a new key first in its HashMap bin, put last: keys sharing a bin iterate in another order. */
    static List<Object> mergedStringKeys(Tensor x) {
        Map<String, Tensor> merged = new HashMap<>();
        Map<String, List<Tensor>> grouped = new HashMap<>();
        for (int i = 0; i < 14; i++) {
            merged.merge("p" + i * 7, x.mul(i), Tensor::add);
            grouped.computeIfAbsent("g" + i * 5, k -> new ArrayList<>()).add(x.add(i));
        }
        return List.of(List.copyOf(merged.keySet()), List.copyOf(grouped.keySet()), merged, grouped);
    }

    @Test
    void mergeAndComputeIfAbsentInsertAsHashMapDoes() { // before: a wrong key order (the trace inserted with put)
        Fn1<Tensor, List<Object>> f = Capture10RegressionTest::mergedStringKeys;
        Tensor x = Tensor.randn(3);
        CompileCounter cc = new CompileCounter();
        Compiled.assertSame(f.apply(x), Ember.compile(f, Options.backend(cc)).apply(x), "keys in eager's order, and the returned maps");
        assertEquals(1, cc.frameCount(), "frames");
    }

    @Test
    void aHashMapOfRecordKeysIteratesInEagersOrder() { // before: GB0003 at each iteration ("orders its keys by their identity hash codes"), 3 graphs
        Fn1<Tensor, List<Object>> f = Capture10RegressionTest::recordKeyedHashMap;
        Tensor x = Tensor.randn(3);
        CompileCounter cc = new CompileCounter();
        Compiled.assertSame(f.apply(x), Ember.compile(f, Options.backend(cc)).apply(x), "keys in order, then the order-dependent sum");
        assertEquals(1, cc.frameCount(), "frames");
        Ember.reset();
        assertEquals(0, Ember.explain(f).with(x).graphBreakCount(), "graph breaks");
    }

    @Test
    void nestedRecordsWithEnumsAndDoublesHashAsTheJdks() {
        Fn1<Tensor, Object[]> f = Capture10RegressionTest::nestedRecordSetAndMap;
        Tensor x = Tensor.randn(3);
        Object[] got = Ember.compile(f).apply(x);
        Compiled.assertSame(f.apply(x), got, "set order, returned map's order, the order-dependent sum");
        assertEquals(HashMap.class, got[1].getClass());
        Ember.reset();
        assertEquals(0, Ember.explain(f).with(x).graphBreakCount(), "graph breaks");
    }

    @Test
    void aRecordHoldingATensorStillBreaksNamingIt() {
        Fn2<Tensor, Tensor, Tensor> f = Capture10RegressionTest::tensorComponentIterated;
        Tensor x = Tensor.randn(3), y = Tensor.randn(3);
        assertArrayEquals(f.apply(x, y).toDoubleArray(), Ember.compile(f).apply(x, y).toDoubleArray(), 1e-6);
        Ember.reset();
        var e = Ember.explain(f).with(x, y);
        org.junit.jupiter.api.Assertions.assertTrue(e.graphBreakCount() >= 1, e.toString());
        org.junit.jupiter.api.Assertions.assertTrue(e.breakReasons().getFirst().reason().contains("identity hash codes"), e.toString());
    }

    // ---- Stream.iterate(seed, f) and IntStream.iterate(seed, f) ----

    static final List<Integer> APPLIED = new ArrayList<>();

    static Tensor iterateStreams(Tensor x) {
        List<Integer> scales = java.util.stream.Stream.iterate(1, k -> {
            APPLIED.add(k);                       // Java applies f only as items are pulled: a limit of 4 applies it 3 times
            return k * 2;
        }).limit(4).toList();
        int[] offsets = java.util.stream.IntStream.iterate(3, i -> i + 5).skip(1).limit(3).toArray();
        Tensor s = x;
        for (int k : scales) s = s.mul(k);
        for (int i : offsets) s = s.add(i);
        return java.util.stream.Stream.iterate(x, t -> t.mul(0.5)).limit(3).reduce(s, Tensor::add);
    }

    @Test
    void streamIterateWithASeedIsTraced() { // before: GB0003 "Stream.iterate() (not known to be pure)", 6 breaks
        Fn1<Tensor, Tensor> f = Capture10RegressionTest::iterateStreams;
        Tensor x = Tensor.randn(3);
        APPLIED.clear();
        Tensor expected = f.apply(x);
        List<Integer> eagerApplied = List.copyOf(APPLIED);
        APPLIED.clear();
        CompileCounter cc = new CompileCounter();
        assertArrayEquals(expected.toDoubleArray(), Ember.compile(f, Options.backend(cc)).apply(x).toDoubleArray(), 1e-5);
        assertEquals(eagerApplied, APPLIED, "the function's side effect, once per item pulled past the seed");
        assertEquals(1, cc.frameCount(), "frames");
        Ember.reset();
        assertEquals(0, Ember.explain(f).with(x).graphBreakCount(), "graph breaks");
    }

    // ---- Collectors.groupingBy and counting ----

    static List<Object> grouped(Tensor x, Tensor y) {
        List<Tensor> ts = List.of(x, y, x.sum(), y.mul(2), x.unsqueeze(0), y.sum(0));
        Map<Integer, List<Tensor>> byRank = ts.stream().collect(java.util.stream.Collectors.groupingBy(Tensor::dim));
        Map<String, Long> counts = java.util.stream.Stream.of("w", "bias", "w", "gamma", "beta", "w", "bias", "scale", "shift", "mean", "var", "eps", "momentum")
                .collect(java.util.stream.Collectors.groupingBy(n -> n + n.length(), java.util.stream.Collectors.counting()));
        Map<Boolean, Set<Integer>> parity = java.util.stream.IntStream.range(0, 9).boxed()
                .collect(java.util.stream.Collectors.groupingBy(i -> i % 2 == 0, java.util.stream.Collectors.toSet()));
        long n = ts.stream().filter(t -> t.dim() > 0).collect(java.util.stream.Collectors.counting());
        Tensor acc = x.mul(n);
        for (Map.Entry<Integer, List<Tensor>> e : byRank.entrySet()) for (Tensor t : e.getValue()) acc = acc.mul(0.5).add(t.sum().mul(e.getKey()));
        return List.of(byRank, counts, List.copyOf(counts.keySet()), parity, n, acc);
    }

    @Test
    void groupingByAndCountingAreTraced() { // before: GB0003 "Collectors.groupingBy() (not known to be pure)", the whole call eager
        Fn2<Tensor, Tensor, List<Object>> f = Capture10RegressionTest::grouped;
        Tensor x = Tensor.randn(3), y = Tensor.randn(2, 3);
        CompileCounter cc = new CompileCounter();
        List<Object> got = Ember.compile(f, Options.backend(cc)).apply(x, y);
        Compiled.assertSame(f.apply(x, y), got, "groups, counts and their key order, the order-dependent sum");
        assertEquals(HashMap.class, got.get(0).getClass());
        assertEquals(1, cc.frameCount(), "frames");
        Ember.reset();
        assertEquals(0, Ember.explain(f).with(x, y).graphBreakCount(), "graph breaks");
    }
}
