package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.Unsupported;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The capture fixes PyTorchPortsMoreTest's programs needed, each on its own: a tensor literal is a
 * new tensor every call; Collections.addAll, bounded Stream.iterate, copying a map of the user's,
 * iterating a hash container of one tensor key, and plain lambdas written alike are traced.
 */
class CaptureCoverageTest {

    @AfterEach
    void reset() { Ember.reset(); }

    private static CompileCounter cc;

    private static Options counted() {
        cc = new CompileCounter();
        return Options.fullgraph().withBackend(cc);
    }

    // ---- a tensor literal is a new tensor every call

    static Tensor literal(Tensor x) { return Tensor.tensor(new int[] {1, 2, 3}); }

    static Tensor literalChangedInPlace(Tensor x) {
        Tensor t = Tensor.of(new float[] {1, 2}, 2);
        t.add_(x);
        return t;
    }

    @Test
    void aLiteralReturnedIsANewTensorEachCall() {
        for (String backend : List.of("eager", "inductor")) {
            var f = Ember.compile((Fn1<Tensor, Tensor>) CaptureCoverageTest::literal, Options.backend(backend).fullgraph(true));
            Tensor first = f.apply(Tensor.ones(2));
            first.add_(100L);   // the caller owns the result, as eager's
            Tensor second = f.apply(Tensor.ones(2));
            assertNotSame(first, second, backend);
            assertTrue(second.sameData(Tensor.tensor(new int[] {1, 2, 3})), backend + ": " + second);
            Ember.reset();
        }
    }

    @Test
    void aLiteralChangedInTheGraphStartsAfreshEachCall() {
        var f = Ember.compile((Fn1<Tensor, Tensor>) CaptureCoverageTest::literalChangedInPlace, counted());
        for (int i = 0; i < 3; i++) {
            Tensor x = Tensor.of(new float[] {10, 20}, 2);
            assertTrue(f.apply(x).sameData(literalChangedInPlace(x)), "call " + i);
        }
        assertEquals(1, cc.frameCount());
        assertEquals(2, cc.opCount(), "the literal's copy (Dynamo's torch.tensor call) and add_");
    }

    // ---- Collections.addAll

    static List<Object> addAll(Tensor a, Tensor b) {
        List<Tensor> list = new ArrayList<>(List.of(a));
        boolean toList = Collections.addAll(list, a.add(1), b);
        Set<String> set = new LinkedHashSet<>(List.of("x"));
        boolean newKey = Collections.addAll(set, "y", "x");
        boolean noNewKey = Collections.addAll(set, "x", "y");
        return List.of(Tensor.cat(list, 0), toList, newKey, noNewKey, set);
    }

    @Test
    void collectionsAddAllAddsEachElementInOrder() {
        var f = Ember.compile((Fn2<Tensor, Tensor, List<Object>>) CaptureCoverageTest::addAll, counted());
        Tensor a = Tensor.randn(2, 3), b = Tensor.randn(1, 3);
        Compiled.assertSame(addAll(a, b), f.apply(a, b), "");
        assertEquals(2, cc.opCount(), "add and cat");
    }

    // ---- bounded Stream.iterate

    static Tensor iterateInts(Tensor x) {
        int[] odd = IntStream.iterate(1, k -> k < 10, k -> k + 2).toArray();
        return x.mul(IntStream.of(odd).sum());
    }

    static Tensor iterateTensors(Tensor x) {
        return Stream.iterate(x, t -> t.dim() < 3, t -> t.unsqueeze(0)).reduce(Tensor::add).orElseThrow();
    }

    static int iterateForever(Tensor x) { return IntStream.iterate(0, k -> k >= 0, k -> k + 1).sum(); }

    @Test
    void boundedIterateIsTraced() {
        var f = Ember.compile((Fn1<Tensor, Tensor>) CaptureCoverageTest::iterateInts, counted());
        Tensor x = Tensor.randn(3);
        assertTrue(f.apply(x).sameData(iterateInts(x)));
        assertEquals(1, cc.opCount(), "1 + 3 + 5 + 7 + 9 is a constant");
        var g = Ember.compile((Fn1<Tensor, Tensor>) CaptureCoverageTest::iterateTensors, counted());
        assertTrue(g.apply(x).sameData(iterateTensors(x)));
        assertEquals(3, cc.opCount(), "two unsqueezes (Java computes the next element before testing it) and one add");
    }

    @Test
    void anIterateThatNeverEndsBreaksWithItsReason() {
        Unsupported u = assertThrows(Unsupported.class,
                () -> Ember.compile((Fn1<Tensor, Integer>) CaptureCoverageTest::iterateForever, Options.fullgraph()).apply(Tensor.ones(1)));
        assertTrue(u.getMessage().contains("Stream.iterate() made more than"), u.getMessage());
        assertTrue(u.getMessage().contains("CaptureCoverageTest.java"), u.getMessage());
    }

    // ---- new HashMap<>(a map of the user's)

    /** A Map over a field, as a user writes one. */
    static final class Registry extends AbstractMap<String, Tensor> {
        private final Map<String, Tensor> byName = new LinkedHashMap<>();

        @Override public Set<Entry<String, Tensor>> entrySet() { return byName.entrySet(); }

        @Override public Tensor put(String k, Tensor v) { return byName.put(k, v); }
    }

    static Tensor copyUserMap(Registry r, Tensor x) {
        Map<String, Tensor> copy = new LinkedHashMap<>(r);
        copy.put("c", x);
        Tensor out = x;
        for (Tensor t : copy.values()) out = out.mul(t);
        return out;
    }

    @Test
    void aMapOfTheUsersIsCopiedByItsEntrySet() {
        Registry r = new Registry();
        r.put("b", Tensor.randn(3));
        r.put("a", Tensor.randn(3));
        var f = Ember.compile((Fn2<Registry, Tensor, Tensor>) CaptureCoverageTest::copyUserMap, counted());
        Tensor x = Tensor.randn(3);
        assertTrue(f.apply(r, x).sameData(copyUserMap(r, x)));
        assertEquals(3, cc.opCount(), "b, a, then c, in the registry's order");
        assertEquals(2, r.size(), "the registry is not changed");
    }

    // ---- a hash container of one tensor key has one order

    static int oneKeySet(Tensor x) {
        Set<Tensor> s = new HashSet<>(Set.of(x));
        s.add(x.add_(1));
        return s.size();
    }

    static Tensor oneKeyMap(Tensor x) {
        Map<Tensor, Integer> m = new HashMap<>(Map.of(x, 3));
        Tensor out = x;
        for (Map.Entry<Tensor, Integer> e : m.entrySet()) out = out.add(e.getKey().mul(e.getValue()));
        return out;
    }

    @Test
    void aHashContainerOfOneTensorIsIterated() {
        var f = Ember.compile((Fn1<Tensor, Integer>) CaptureCoverageTest::oneKeySet, counted());
        assertEquals(1, f.apply(Tensor.randn(2)));
        var g = Ember.compile((Fn1<Tensor, Tensor>) CaptureCoverageTest::oneKeyMap, counted());
        Tensor x = Tensor.randn(2);
        assertTrue(g.apply(x).sameData(oneKeyMap(x)));
        assertEquals(2, cc.opCount());
    }

    // ---- plain lambdas written alike

    static Tensor applyBoth(BiFunction<Tensor, Long, Tensor> f0, BiFunction<Tensor, Long, Tensor> f1, Tensor x) {
        return f0.apply(x, 2L).sub(f1.apply(x, 3L));
    }

    @Test
    void plainLambdasWithOneCodeAreTraced() {
        // two lambdas of one shape (BiFunction capturing a Tensor): javac gives them one code under two names
        Tensor y0 = Tensor.randn(3), y1 = Tensor.randn(3);
        BiFunction<Tensor, Long, Tensor> f0 = (t, k) -> t.mul(y0).add(k), f1 = (t, k) -> t.mul(y1).add(k);
        var f = Ember.compile((Fn3<BiFunction<Tensor, Long, Tensor>, BiFunction<Tensor, Long, Tensor>, Tensor, Tensor>) CaptureCoverageTest::applyBoth, counted());
        Tensor x = Tensor.randn(3);
        assertTrue(f.apply(f0, f1, x).sameData(applyBoth(f0, f1, x)));
        assertEquals(1, cc.frameCount());
        assertEquals(5, cc.opCount());
    }

    static Tensor applyOne(BiFunction<Tensor, Double, Tensor> f, Tensor x) { return f.apply(x, 2.0); }

    @Test
    void plainLambdasOfOneShapeAndOtherCodeAreToldApartByTheirConstantPools() {
        BiFunction<Tensor, Double, Tensor> times = (t, k) -> t.mul(k), plus = (t, k) -> t.add(k);
        var f = Ember.compile((Fn2<BiFunction<Tensor, Double, Tensor>, Tensor, Tensor>) CaptureCoverageTest::applyOne, Options.fullgraph());
        Tensor x = Tensor.randn(2);
        assertTrue(f.apply(times, x).sameData(applyOne(times, x)));
        assertTrue(f.apply(plus, x).sameData(applyOne(plus, x)));
    }

    // ---- EnumSet and EnumMap

    enum Part { HEAD, BODY, TAIL }

    static List<Object> enumSets(Tensor x) {
        Set<Part> all = java.util.EnumSet.allOf(Part.class);
        Set<Part> some = java.util.EnumSet.of(Part.TAIL, Part.HEAD);
        Set<Part> none = java.util.EnumSet.noneOf(Part.class);
        none.add(Part.BODY);
        Set<Part> rest = java.util.EnumSet.complementOf((java.util.EnumSet<Part>) some);
        Tensor out = x;
        for (Part p : some) out = out.mul(p.ordinal() + 1);   // HEAD then TAIL: the enum's order
        return List.of(out, all.size(), all.contains(Part.BODY), List.copyOf(some), List.copyOf(none), List.copyOf(rest));
    }

    static Tensor enumMapInput(Map<Part, Tensor> m, Tensor x) {
        m.put(Part.TAIL, x.add(1));
        Tensor out = x;
        for (Tensor t : m.values()) out = out.add(t);
        return out;
    }

    @Test
    void enumSetsAndEnumMapsAreTracked() {
        var f = Ember.compile((Fn1<Tensor, List<Object>>) CaptureCoverageTest::enumSets, counted());
        Tensor x = Tensor.randn(2);
        Compiled.assertSame(enumSets(x), f.apply(x), "");
        assertEquals(2, cc.opCount());
        var g = Ember.compile((Fn2<Map<Part, Tensor>, Tensor, Tensor>) CaptureCoverageTest::enumMapInput, counted());
        Tensor a = Tensor.randn(2), b = Tensor.randn(2);
        Map<Part, Tensor> eager = new java.util.EnumMap<>(Map.of(Part.BODY, b, Part.HEAD, a)), compiled = new java.util.EnumMap<>(eager);
        Compiled.assertSame(enumMapInput(eager, x), g.apply(compiled, x), "");
        assertEquals(List.of(Part.HEAD, Part.BODY, Part.TAIL), List.copyOf(compiled.keySet()), "the put is replayed on the caller's EnumMap");
        assertEquals(1, cc.frameCount());
    }

    // ---- Enum.valueOf, Collections.reverse

    static Tensor byName(Tensor x, String name) { return x.mul(Part.valueOf(name).ordinal()); }

    static List<Object> reversed(Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(x, x.add(1), x.add(2)));
        Collections.reverse(l);
        List<Integer> one = List.of(7);
        Collections.reverse(one);   // one element: nothing set, no exception (as the JDK)
        return List.of(Tensor.stack(l, 0), one);
    }

    static int reverseImmutable(Tensor x) {
        List<Integer> two = List.of(1, 2);
        Collections.reverse(two);
        return two.size();
    }

    @Test
    void enumValueOfAndCollectionsReverseAreTraced() {
        // an unknown name throws eager's IllegalArgumentException compiled too
        PyTorchMiscPortsTest.check((Fn2<Tensor, String, Tensor>) CaptureCoverageTest::byName, Options.defaults(),
                () -> List.of(new Object[] {Tensor.ones(2), "TAIL"}, new Object[] {Tensor.ones(2), "NECK"}));
        var f = Ember.compile((Fn1<Tensor, List<Object>>) CaptureCoverageTest::reversed, counted());
        Tensor x = Tensor.randn(2);
        Compiled.assertSame(reversed(x), f.apply(x), "");
        assertEquals(3, cc.opCount(), "two adds and the stack");
        PyTorchMiscPortsTest.check((Fn1<Tensor, Integer>) CaptureCoverageTest::reverseImmutable, Options.defaults(), () -> List.<Object[]>of(new Object[] {x}));
    }

    // ---- ThreadLocal.get()

    static final ThreadLocal<Tensor> SCALE = new ThreadLocal<>();

    static Tensor scaled(Tensor x) { return x.mul(SCALE.get()); }

    @Test
    void aThreadLocalIsReadOnTheCallingThread() throws Exception {
        var f = Ember.compile((Fn1<Tensor, Tensor>) CaptureCoverageTest::scaled, counted());
        Tensor x = Tensor.ones(2);
        SCALE.set(Tensor.full(2.0, 2));
        assertTrue(f.apply(x).sameData(Tensor.full(2.0, 2)));
        Tensor[] other = new Tensor[1];
        Thread t = new Thread(() -> {
            SCALE.set(Tensor.full(5.0, 2));
            other[0] = f.apply(x);
        });
        t.start();
        t.join();
        assertTrue(other[0].sameData(Tensor.full(5.0, 2)), "the other thread's value: " + other[0]);
        assertTrue(f.apply(x).sameData(Tensor.full(2.0, 2)), "and this thread's again");
        assertEquals(1, cc.frameCount(), "the value is a graph input read at each call, not a constant");
    }

    // ---- model.parameters() of a module argument

    static Tensor weightNorms(dev.ember.nn.Module model, Tensor x) {
        Tensor out = x;
        for (Tensor p : model.parameters()) out = out.add(p.sum());
        return out;
    }

    @Test
    void parametersOfAModuleArgumentAreReadFromTheLiveModule() {
        Tensor.manualSeed(1);
        var model = new dev.ember.nn.Sequential(new dev.ember.nn.Linear(3, 2), new dev.ember.nn.ReLU(), new dev.ember.nn.Linear(2, 1));
        var f = Ember.compile((Fn2<dev.ember.nn.Module, Tensor, Tensor>) CaptureCoverageTest::weightNorms, counted());
        Tensor x = Tensor.zeros(1);
        assertTrue(f.apply(model, x).sameData(weightNorms(model, x)));
        try (var ignored = Ember.noGrad()) {
            model.parameters().getFirst().add_(1.0);   // changed in place: the next call must see it
        }
        assertTrue(f.apply(model, x).sameData(weightNorms(model, x)));
        assertEquals(1, cc.frameCount());
        assertEquals(8, cc.opCount(), "a sum and an add per parameter (two weights, two biases)");
    }

    // ---- docs/compile.md's example (Enums, thread-locals and a model's parameters), as written there

    static Tensor docExample(dev.ember.nn.Module model, Map<Part, Tensor> bias, Tensor x) {
        Tensor out = x.mul(SCALE.get());
        for (Part p : java.util.EnumSet.of(Part.TAIL, Part.HEAD)) out = out.add(bias.get(p));
        for (Tensor w : model.parameters()) out = out.add(w.sum());
        return out;
    }

    @Test
    void theCompileDocsExampleIsOneGraph() {
        Tensor.manualSeed(2);
        var model = new dev.ember.nn.Linear(2, 2);
        Map<Part, Tensor> bias = new java.util.EnumMap<>(Map.of(Part.HEAD, Tensor.randn(2), Part.TAIL, Tensor.randn(2)));
        SCALE.set(Tensor.full(3.0, 2));
        var f = Ember.compile((Fn3<dev.ember.nn.Module, Map<Part, Tensor>, Tensor, Tensor>) CaptureCoverageTest::docExample, counted());
        Tensor x = Tensor.randn(2);
        assertTrue(f.apply(model, bias, x).sameData(docExample(model, bias, x)));
        assertEquals(1, cc.frameCount());
    }

    // ---- Iterator.next() past the end raises for the handlers

    static Tensor pastTheEnd(Tensor x, List<Integer> xs) {
        java.util.Iterator<Integer> it = xs.iterator();
        Tensor out = x;
        try {
            while (true) out = out.mul(it.next());
        } catch (java.util.NoSuchElementException e) {
            return out.add(e.getMessage() == null ? 1 : 2);
        }
    }

    @Test
    void nextPastTheEndIsCaughtInTheGraph() {
        var f = Ember.compile((Fn2<Tensor, List<Integer>, Tensor>) CaptureCoverageTest::pastTheEnd, counted());
        Tensor x = Tensor.randn(2);
        assertTrue(f.apply(x, List.of(2, 3)).sameData(pastTheEnd(x, List.of(2, 3))));
        assertEquals(1, cc.frameCount());
        assertEquals(3, cc.opCount());
    }
}
