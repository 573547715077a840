package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.dynamo.Unsupported;
import dev.ember.dynamo.guards.Guard;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Maps and sets are tracked as lists are: reads go into the graph, the caller's maps and sets are
 * changed after it exactly as eager changes them, iteration follows the real container's order,
 * and guards on the class and the keys make a call with other keys recompile.
 */
class MapCaptureTest {

    @AfterEach
    void reset() { Ember.reset(); }

    private static final Tensor X = Tensor.randn(3, 4);

    private static LinkedHashMap<String, Tensor> tensors(Object... kv) {
        LinkedHashMap<String, Tensor> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], (Tensor) kv[i + 1]);
        return m;
    }

    /**
     * Calls {@code fn} eagerly and compiled on equal inputs, twice; both must return the same and
     * leave the inputs (maps and sets in iteration order) the same.
     */
    static Run sameAsEager(Object fn, Supplier<Object[]> inputs, Options options) {
        CompileCounter cc = new CompileCounter();
        Options counted = options.withBackend(cc);
        Function<Object[], Object> f = Compiled.compile(fn, counted);
        for (int call = 0; call < 2; call++) {
            Object[] eagerIn = inputs.get(), compiledIn = inputs.get();
            Object expected = Compiled.call(fn, eagerIn);
            Compiled.assertSame(expected, f.apply(compiledIn), "result");
            Compiled.assertSame(Arrays.asList(eagerIn), Arrays.asList(compiledIn), "inputs after the call");
        }
        return new Run(cc, counted);
    }

    /** What compiling a program did: its counter, and the options that find its frame. */
    record Run(CompileCounter counter, Options options) {
        int frameCount() { return counter.frameCount(); }

        int opCount() { return counter.opCount(); }

        List<String> guards() { return CorpusTest.newest(options).guards().guards().stream().map(Guard::describe).toList(); }
    }

    @Test
    void configMapReadsAreConstantsGuardedOnKeysAndValues() {
        Options o = Options.fullgraph();
        Run cc = sameAsEager((Fn2<Map<String, Double>, Tensor, Tensor>) MapPrograms::scaleByConfig,
                () -> new Object[] {new LinkedHashMap<>(Map.of("scale", 2.0)), X}, o);
        assertEquals(1, cc.frameCount());
        assertEquals(2, cc.opCount());
        List<String> g = cc.guards();
        assertTrue(g.contains("TYPE_MATCH: type(L['cfg']) is java.util.LinkedHashMap"), String.join("\n", g));
        assertTrue(g.contains("DICT_KEYS_MATCH: list(L['cfg']) == ['scale']"), String.join("\n", g));
        assertTrue(g.contains("EQUALS_MATCH: L['cfg']['scale'] == 2.0"), String.join("\n", g));
    }

    @Test
    void theDocumentedExampleIsOneGraph() {
        Run run = sameAsEager((Fn3<Map<String, Double>, Map<String, Tensor>, Tensor, Tensor>) MapPrograms::scaleAndRemember,
                () -> new Object[] {new HashMap<>(Map.of("scale", 2.0, "shift", 1.0)), tensors("first", X), X}, Options.fullgraph());
        assertEquals(1, run.frameCount());
        assertEquals(2, run.opCount());
        assertTrue(run.guards().contains("DICT_KEYS_MATCH: list(L['cfg']) == ['scale', 'shift']")
                || run.guards().contains("DICT_KEYS_MATCH: list(L['cfg']) == ['shift', 'scale']"), String.join("\n", run.guards()));
    }

    @Test
    void otherKeysRecompileInsteadOfReusingTheGraph() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Map<String, Double>, Tensor, Tensor>) MapPrograms::scaleByConfig, Options.backend(cc));
        Map<String, Double> cfg = new HashMap<>(Map.of("scale", 2.0));
        assertTrue(X.mul(2.0).add(0.0).sameData(f.apply(cfg, X)));
        cfg.put("shift", 1.0); // the caller changes its map between calls
        assertTrue(X.mul(2.0).add(1.0).sameData(f.apply(cfg, X)), "the shift key is read, not the old default");
        cfg.put("scale", 3.0);
        assertTrue(X.mul(3.0).add(1.0).sameData(f.apply(cfg, X)));
        assertEquals(3, cc.frameCount(), "new keys, then a new value, each recompile");
        f.apply(new HashMap<>(Map.of("scale", 3.0, "shift", 1.0)), X);
        assertEquals(3, cc.frameCount(), "equal keys and values hit the cache");
    }

    @Test
    void entrySetIterationFollowsTheMapsOrder() {
        Tensor a = Tensor.randn(3, 4), b = Tensor.randn(3, 4);
        Run cc = sameAsEager((Fn2<Map<String, Tensor>, Tensor, Tensor>) MapPrograms::weightedSum,
                () -> new Object[] {tensors("a", a, "bb", b), X}, Options.fullgraph());
        assertEquals(1, cc.frameCount());
        assertEquals(4, cc.opCount());
        var hashed = new HashMap<String, Tensor>();
        hashed.put("ccc", a);
        hashed.put("d", b);
        Run cc2 = sameAsEager((Fn2<Map<String, Tensor>, Tensor, Tensor>) MapPrograms::weightedSum,
                () -> new Object[] {new HashMap<>(hashed), X}, Options.fullgraph());
        assertEquals(1, cc2.frameCount());
    }

    @Test
    void missingKeysAndNullValuesBehaveAsInJava() {
        Tensor bias = Tensor.randn(3, 4);
        Fn2<Map<String, Tensor>, Tensor, Tensor> fn = MapPrograms::optionalBias;
        sameAsEager(fn, () -> new Object[] {tensors("bias", bias), X}, Options.fullgraph());
        sameAsEager(fn, () -> new Object[] {tensors(), X}, Options.fullgraph());
        sameAsEager(fn, () -> new Object[] {tensors("bias", null, "gate", null), X}, Options.fullgraph());
        Run cc = sameAsEager(fn, () -> new Object[] {tensors("gate", bias), X}, Options.fullgraph());
        assertEquals(1, cc.frameCount());
    }

    @Test
    void changesToTheCallersMapAreReplayedInOrder() {
        Tensor tmp = Tensor.randn(3, 4);
        Fn2<Map<String, Tensor>, Tensor, Tensor> fn = MapPrograms::updatesCallerMap;
        Run cc = sameAsEager(fn, () -> new Object[] {tensors("x", X, "tmp", tmp), X}, Options.fullgraph());
        assertEquals(1, cc.frameCount());
        Map<String, Tensor> state = tensors("tmp", tmp, "x", X);
        Ember.compile(fn, Options.fullgraph()).apply(state, X);
        assertEquals(List.of("x", "out"), List.copyOf(state.keySet()));
        assertTrue(X.relu().sameData(state.get("out")));
        assertTrue(X.neg().sameData(state.get("x")));
        sameAsEager(fn, () -> {
            HashMap<String, Tensor> m = new HashMap<>();
            for (int i = 0; i < 11; i++) m.put("k" + i, tmp);
            m.put("tmp", tmp);
            return new Object[] {m, X};
        }, Options.fullgraph());
    }

    @Test
    void aHashMapMadeInTheTraceIteratesAsEagersDoes() {
        Run cc = sameAsEager((Fn1<Tensor, Map<String, Tensor>>) MapPrograms::grownHashMap, () -> new Object[] {X}, Options.fullgraph());
        assertEquals(1, cc.frameCount());
        Map<String, Tensor> expected = MapPrograms.grownHashMap(X);
        Map<String, Tensor> actual = Ember.compile((Fn1<Tensor, Map<String, Tensor>>) MapPrograms::grownHashMap).apply(X);
        assertEquals(HashMap.class, actual.getClass());
        assertEquals(List.copyOf(expected.keySet()), List.copyOf(actual.keySet()));
    }

    @Test
    void copyPutAllAndViews() {
        Tensor w = Tensor.randn(3, 4), v = Tensor.randn(3, 4);
        Run cc = sameAsEager((Fn3<Map<String, Tensor>, Map<String, Tensor>, Tensor, Tensor>) MapPrograms::mergeDicts,
                () -> new Object[] {tensors("w1", w, "v", v), tensors("w2", v, "v", w), X}, Options.fullgraph());
        assertEquals(1, cc.frameCount());
    }

    @Test
    void computeIfAbsentAndForEachTraceTheirLambdas() {
        Run cc = sameAsEager((Fn1<Tensor, List<Tensor>>) MapPrograms::cacheAndVisit, () -> new Object[] {X}, Options.fullgraph());
        assertEquals(1, cc.frameCount());
        assertEquals(6, cc.opCount(), "three computed entries (3, 1, 2), three adds");
    }

    @Test
    void enumAndIntegerKeysInSortedMaps() {
        Map<MapPrograms.Part, Tensor> params = new java.util.EnumMap<>(MapPrograms.Part.class);
        params.put(MapPrograms.Part.WEIGHT, Tensor.randn(4, 2));
        params.put(MapPrograms.Part.BIAS, Tensor.randn(2));
        TreeMap<Integer, Double> scales = new TreeMap<>(Map.of(3, 0.5, 1, 2.0));
        Fn3<Map<MapPrograms.Part, Tensor>, TreeMap<Integer, Double>, Tensor, Tensor> fn = MapPrograms::byEnum;
        // an EnumMap is tracked as a HashMap of its keys is (its order: the enum's)
        Run cc = sameAsEager(fn, () -> new Object[] {new java.util.EnumMap<>(params), scales, X}, Options.fullgraph());
        assertEquals(1, cc.frameCount());
        assertEquals(6, cc.opCount());
        Ember.reset();
        cc = sameAsEager(fn, () -> new Object[] {new HashMap<>(params), scales, X}, Options.fullgraph());
        assertEquals(1, cc.frameCount());
        assertEquals(6, cc.opCount());
    }

    @Test
    void aMapLivesAcrossAGraphBreak() {
        Run cc = sameAsEager((Fn1<Tensor, Map<String, Tensor>>) MapPrograms::mapAcrossBreak, () -> new Object[] {X}, Options.defaults());
        assertEquals(2, cc.frameCount(), "the graph before the break and the resume method's");
        ExplainOutput e = Ember.explain((Fn1<Tensor, Map<String, Tensor>>) MapPrograms::mapAcrossBreak).with(X);
        assertEquals(2, e.graphCount(), e.toString());
        assertEquals(List.of("GB0016"), e.breakReasons().stream().map(ExplainOutput.BreakReason::gbId).toList());
    }

    @Test
    void insertingIntoTheCallersHashMapThenIteratingBreaksRatherThanGuessTheOrder() {
        Tensor a = Tensor.randn(3, 4);
        Supplier<Object[]> in = () -> {
            HashMap<String, Tensor> m = new HashMap<>();
            for (int i = 0; i < 12; i++) m.put("n" + i, a.mul(i));
            return new Object[] {m, X};
        };
        sameAsEager((Fn2<HashMap<String, Tensor>, Tensor, Tensor>) MapPrograms::insertThenIterate, in, Options.defaults());
        Unsupported u = assertThrows(Unsupported.class,
                () -> Ember.compile((Fn2<HashMap<String, Tensor>, Tensor, Tensor>) MapPrograms::insertThenIterate, Options.fullgraph()).apply(
                        (HashMap<String, Tensor>) in.get()[0], X));
        assertTrue(u.reason().contains("L['m'], a HashMap from the inputs that the trace inserted keys into"), u.reason());
    }

    @Test
    void viewsAreOneObjectAndEntriesReadThrough() {
        Run run = sameAsEager((Fn2<Map<String, Tensor>, Tensor, Tensor>) MapPrograms::viewsAndEntries,
                () -> new Object[] {tensors("a", Tensor.randn(3, 4), "b", X), X}, Options.fullgraph());
        assertEquals(3, run.opCount(), "neg, mul, add");
        Fn2<Map<String, Tensor>, Tensor, Tensor> detached = MapPrograms::entryAfterRemoval;
        sameAsEager(detached, () -> new Object[] {tensors("a", Tensor.randn(3, 4), "b", X), X}, Options.defaults());
        ExplainOutput e = Ember.explain(detached).with(tensors("a", Tensor.randn(3, 4), "b", X), X);
        assertTrue(e.breakReasons().stream().anyMatch(b -> b.reason().contains("the entry may be detached")), e.toString());
    }

    @Test
    void exceptionsAreJavasExceptions() {
        var f = Ember.compile((Fn2<Map<String, Tensor>, Tensor, Tensor>) MapPrograms::modifiesWhileIterating);
        Map<String, Tensor> one = tensors("a", X);
        Run run = sameAsEager((Fn2<Map<String, Tensor>, Tensor, Tensor>) MapPrograms::modifiesWhileIterating, () -> new Object[] {tensors("a", X), X},
                Options.fullgraph());
        assertEquals(1, run.opCount(), "one key: traced whole, the put replayed");
        f.apply(one, X);
        assertEquals(List.of("a", "a2"), List.copyOf(one.keySet()), "after the last key Java's iterator has nothing next: no exception");
        Map<String, Tensor> two = tensors("a", X, "b", X);
        assertThrows(ConcurrentModificationException.class, () -> MapPrograms.modifiesWhileIterating(tensors("a", X, "b", X), X));
        assertThrows(ConcurrentModificationException.class, () -> f.apply(two, X));
        assertEquals(List.of("a", "b", "a2"), List.copyOf(two.keySet()), "the put before the throw happened, as in eager");
        var g = Ember.compile((Fn1<Tensor, Tensor>) MapPrograms::putOnImmutable);
        assertThrows(UnsupportedOperationException.class, () -> g.apply(X));
    }

    @Test
    void tensorKeysAreTracedByIdentityAndOtherObjectKeysBreakWithAMessageNamingTheLine() {
        Map<Tensor, Integer> m = new HashMap<>();
        m.put(X, 2);
        // a tensor key is the caller's object (guarded), equal by identity as Tensor.equals is: the lookup is traced
        assertTrue(X.mul(2).sameData(Ember.compile((Fn2<Map<Tensor, Integer>, Tensor, Tensor>) MapPrograms::tensorKeys, Options.fullgraph()).apply(m, X)));
        Map<List<Integer>, Integer> byList = new HashMap<>();
        byList.put(List.of(1, 2), 2);
        Unsupported u = assertThrows(Unsupported.class,
                () -> Ember.compile((Fn2<Map<List<Integer>, Integer>, Tensor, Tensor>) MapPrograms::listKeys, Options.fullgraph()).apply(byList, X));
        assertTrue(u.reason().contains("L['m'] has the key of class java.util.ImmutableCollections$List12"), u.reason());
        assertTrue(u.reason().contains("strings, numbers, enums, booleans or tensors"), u.reason());
        assertEquals("MapPrograms.java", u.userFrame().fileName());
        assertTrue(u.userFrame().sourceText().contains("return x.mul(m.get(List.of(1, 2)));"), u.userFrame().toString());
        assertTrue(X.mul(2).sameData(Ember.compile((Fn2<Map<List<Integer>, Integer>, Tensor, Tensor>) MapPrograms::listKeys).apply(byList, X)),
                "without fullgraph the call runs eagerly, right");
    }

    @Test
    void setFlagsAreGuardedAndNewFlagsRecompile() {
        Options o = Options.fullgraph();
        Fn2<Set<String>, Tensor, Tensor> fn = MapPrograms::flags;
        Run cc = sameAsEager(fn, () -> new Object[] {new HashSet<>(Set.of("relu")), X}, o);
        assertEquals(1, cc.frameCount());
        assertEquals(2, cc.opCount());
        assertTrue(cc.guards().contains("DICT_KEYS_MATCH: list(L['enabled']) == ['relu']"), String.join("\n", cc.guards()));
        CompileCounter counter = new CompileCounter();
        var f = Ember.compile(fn, Options.backend(counter));
        Set<String> flags = new HashSet<>(Set.of("relu"));
        f.apply(flags, X);
        flags.add("neg");
        assertTrue(X.relu().neg().mul(2).sameData(f.apply(flags, X)));
        assertEquals(2, counter.frameCount());
    }

    @Test
    void setsMadeInTheTraceKeepTheirOrder() {
        Run cc = sameAsEager((Fn1<Tensor, List<Object>>) MapPrograms::setsMade, () -> new Object[] {X}, Options.fullgraph());
        assertEquals(1, cc.frameCount());
        List<Object> compiled = Ember.compile((Fn1<Tensor, List<Object>>) MapPrograms::setsMade).apply(X);
        assertEquals(HashSet.class, compiled.get(1).getClass());
    }

    @Test
    void changesToTheCallersSetAreReplayed() {
        Fn2<Set<String>, Tensor, Tensor> fn = MapPrograms::updatesCallerSet;
        Run cc = sameAsEager(fn, () -> new Object[] {new java.util.LinkedHashSet<>(List.of("new", "old")), X}, Options.fullgraph());
        assertEquals(1, cc.frameCount());
        Set<String> tags = new java.util.LinkedHashSet<>(List.of("new", "old"));
        Ember.compile(fn).apply(tags, X);
        assertEquals(List.of("old", "seen"), new ArrayList<>(tags));
    }
}
