package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.ember.dynamo.corpus.Capture11RegressionTest.assertAsEager;
import static dev.ember.dynamo.corpus.Capture11RegressionTest.graphBreaks;
import static dev.ember.dynamo.corpus.Capture12RegressionTest.assertOneFrameNoBreak;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Capture session 13's fixes, each failing without it: compiled behaves as eager, with the frame and graph-break counts Dynamo would have. */
class Capture13RegressionTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static Object readsThroughAnUnmodifiableCollectionOfAList(Tensor x) {
        List<Tensor> xs = new ArrayList<>(List.of(x, x.add(1)));
        Collection<Tensor> c = Collections.unmodifiableCollection(xs);
        xs.add(x.mul(3));
        Tensor s = x.mul(0);
        for (Tensor t : c) s = s.add(t);
        try {
            c.add(x);
        } catch (UnsupportedOperationException e) {
            s = s.add(1);
        }
        return List.of(s, c.size(), new ArrayList<>(c));
    }

    static Object streamsAnUnmodifiableMapsEntries(Tensor x) {
        Map<String, Tensor> m = new LinkedHashMap<>();
        m.put("a", x);
        m.put("bb", x.mul(2));
        Map<String, Tensor> u = Collections.unmodifiableMap(m);
        Tensor s = u.entrySet().stream().map(e -> e.getValue().mul(e.getKey().length())).reduce(x.mul(0), Tensor::add);
        return List.of(s, u.keySet().stream().toList(), u.values().stream().count());
    }

    @Test
    void unmodifiableCollectionOfAList() { assertOneFrameNoBreak(Capture13RegressionTest::readsThroughAnUnmodifiableCollectionOfAList); }

    @Test
    void streamOverAnUnmodifiableMap() { assertOneFrameNoBreak(Capture13RegressionTest::streamsAnUnmodifiableMapsEntries); }

    static final List<Integer> ASKED = new ArrayList<>();

    static Object removeIfOnArraysAsList(Tensor x) {
        Integer[] arr = {1, 2, 3, 4};
        List<Integer> view = Arrays.asList(arr);
        Tensor s = x.mul(0);
        try {
            view.removeIf(i -> {
                ASKED.add(i);
                return i % 2 == 0;
            });
        } catch (UnsupportedOperationException e) {
            s = s.add(1);
        }
        try {
            view.removeIf(i -> {
                ASKED.add(-i);
                return false;
            });
        } catch (UnsupportedOperationException e) {
            s = s.add(10);
        }
        return List.of(s, List.copyOf(ASKED), view);
    }

    @Test
    void removeIfOnArraysAsListAsksAsTheJdkDoes() {
        ASKED.clear();
        Object eager = removeIfOnArraysAsList(Tensor.ones(2));
        ASKED.clear();
        Compiled.assertSame(eager, Ember.compile((Fn1<Tensor, Object>) Capture13RegressionTest::removeIfOnArraysAsList).apply(Tensor.ones(2)), "predicate calls");
        ASKED.clear();
        Ember.reset();
        assertEquals(0, graphBreaks(Capture13RegressionTest::removeIfOnArraysAsList, Tensor.ones(2)));
        ASKED.clear();
    }

    static Object catchesAnIndexOutOfBounds(Tensor x) {
        List<Tensor> xs = new ArrayList<>(List.of(x));
        Tensor s = x.mul(2);
        try {
            xs.addAll(5, List.of(x));
        } catch (IndexOutOfBoundsException e) {
            s = s.add(e.getMessage().length());
        }
        return List.of(s, xs.size());
    }

    static Object catchesTheJdksIndexErrors(Tensor x) {
        List<Tensor> xs = new ArrayList<>(List.of(x, x.add(1)));
        List<Tensor> linked = new java.util.LinkedList<>(xs);
        List<Tensor> fixed = Arrays.asList(x, x.neg());
        List<String> messages = new ArrayList<>();
        for (List<Tensor> l : List.of(xs, linked, fixed, xs.subList(0, 1), xs.reversed(), Collections.unmodifiableList(linked))) {
            try {
                l.get(7);
            } catch (IndexOutOfBoundsException e) {
                messages.add(e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            try {
                l.set(-1, x);
            } catch (IndexOutOfBoundsException | UnsupportedOperationException e) {
                messages.add(e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            try {
                l.subList(2, 1);
            } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
                messages.add(e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            try {
                l.add(9, x);
            } catch (IndexOutOfBoundsException | UnsupportedOperationException e) {
                messages.add(e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
        return List.of(x.add(messages.size()), messages, xs, linked);
    }

    @Test
    void theJdksIndexErrorsAreCaughtInTheGraph() { assertOneFrameNoBreak(Capture13RegressionTest::catchesTheJdksIndexErrors); }

    static Object comparesAnUnmodifiableCollectionByIdentity(Tensor x) {
        java.util.Set<Integer> set = new java.util.LinkedHashSet<>(List.of(1, 2));
        List<Integer> list = new ArrayList<>(List.of(1, 2));
        Collection<Integer> ofSet = Collections.unmodifiableCollection(set);
        Collection<Integer> ofList = Collections.unmodifiableCollection(list);
        boolean isList = ofList instanceof List<?>;
        return List.of(x.add(1), ofSet.equals(set), ofSet.equals(ofSet), ofList.equals(list), ofList.equals(ofList),
                Collections.unmodifiableCollection(ofList) == ofList, isList, Collections.unmodifiableSet(set).equals(set));
    }

    @Test
    void unmodifiableCollectionKeepsObjectsEquals() { // before: ofSet.equals(set) was true compiled, false eager (a wrong answer)
        assertOneFrameNoBreak(Capture13RegressionTest::comparesAnUnmodifiableCollectionByIdentity);
    }

    @Test
    void aCaughtExceptionIsNoGraphBreak() { assertOneFrameNoBreak(Capture13RegressionTest::catchesAnIndexOutOfBounds); }

    // ---- Tensor.size(dim) and stride(dim) with a dim that became a dynamic int ----

    static Integer sizeOf(Tensor x, Integer dim) { return x.size(dim) * 100 + x.stride(dim); }

    @Test
    void aDynamicDimIsSpecializedNotReadAsZero() { // before: after the recompile that made dim dynamic, every call returned size(0) (a wrong answer)
        dev.ember.Fn2<Tensor, Integer, Integer> f = Ember.compile((dev.ember.Fn2<Tensor, Integer, Integer>) Capture13RegressionTest::sizeOf);
        Tensor x = Tensor.empty(4, 9, 8);
        for (int dim : new int[] {1, -2, 0, 2, -1}) assertEquals(sizeOf(x, dim), f.apply(x, dim), "dim " + dim);
    }

    // ---- getClass() of an array; a HashMap subclass from the inputs ----

    static final class Settings extends java.util.HashMap<String, Object> {
        double scale() { return ((Number) get("scale")).doubleValue(); }
    }

    static Object readsASettingsMap(Tensor x, Settings s) {
        return List.of(x.mul(s.scale()).add(s.containsKey("shift") ? 1 : 0), x.shape().getClass() == int[].class, s.size());
    }

    @Test
    void aHashMapSubclassArgumentIsAMap() { // before: GB0003 "calling java.util.HashMap.get() on Settings" and GB0017 "[I has no class file"
        Settings s = new Settings();
        s.put("scale", 2.5);
        Tensor x = Tensor.randn(3);
        Object eager = readsASettingsMap(x, s);
        CompileCounter cc = new CompileCounter();
        dev.ember.Fn2<Tensor, Settings, Object> f = Capture13RegressionTest::readsASettingsMap;
        Compiled.assertSame(eager, Ember.compile(f, dev.ember.Options.backend(cc)).apply(x, s), "compiled against eager");
        assertEquals(1, cc.frameCount(), "frames");
        Ember.reset();
        assertEquals(0, Ember.explain(f).with(x, s).graphBreakCount(), "graph breaks");
    }

    // ---- Arrays.sort of an array of values known while tracing, in place ----

    static Object sortsArrays(Tensor x, int[] dims) {
        int[] shape = x.shape();
        Arrays.sort(shape);
        Arrays.sort(dims, 1, dims.length);                // the caller's array, sorted after the graph as eager's is
        String[] names = {"w", "b", "a"};
        Arrays.sort(names);
        Tensor s = x.mul(shape[0]).add(dims[1]);
        try {
            Arrays.sort(dims, 2, 1);
        } catch (IllegalArgumentException e) {
            s = s.add(e.getMessage().length());
        }
        return List.of(s, List.of(names), dims.length);
    }

    @Test
    void arraysSortIsTraced() { // before: GB0003 "call to java.util.Arrays.sort() (not known to be pure)"
        Tensor x = Tensor.randn(5, 2);
        int[] eagerDims = {9, 3, 7, 1}, compiledDims = eagerDims.clone();
        Object eager = sortsArrays(x, eagerDims);
        CompileCounter cc = new CompileCounter();
        dev.ember.Fn2<Tensor, int[], Object> f = Capture13RegressionTest::sortsArrays;
        Compiled.assertSame(eager, Ember.compile(f, dev.ember.Options.backend(cc)).apply(x, compiledDims), "compiled against eager");
        assertEquals(Arrays.toString(eagerDims), Arrays.toString(compiledDims), "the caller's array afterwards");
        assertEquals(1, cc.frameCount(), "frames");
        Ember.reset();
        assertEquals(0, Ember.explain(f).with(x, new int[] {9, 3, 7, 1}).graphBreakCount(), "graph breaks");
    }

    // ---- ArrayList.removeIf asks every element before it checks for a change ----

    static Object appendsWhileRemoving(Tensor x) {
        List<Integer> xs = new ArrayList<>(List.of(1, 2, 3));
        List<Integer> asked = new ArrayList<>();
        Tensor s = x.mul(0);
        try {
            xs.removeIf(i -> {
                asked.add(i);
                if (i == 1) xs.add(10);                   // a change in the predicate: ArrayList still asks 2 and 3
                return i == 2;
            });
        } catch (java.util.ConcurrentModificationException e) {
            s = s.add(1);
        }
        return List.of(s, asked, xs);
    }

    @Test
    void arrayListRemoveIfAsksEveryElementBeforeFailing() { // before: ConcurrentModificationException right after the first predicate
        assertOneFrameNoBreak(Capture13RegressionTest::appendsWhileRemoving);
    }

    // ---- Comparator's thenComparing… and reversed on a comparator made in the trace ----

    record Item(String name, int rank, double weight) {}

    static Object sortsWithCombinedComparators(Tensor x) {
        List<Item> items = new ArrayList<>(List.of(new Item("b", 2, 0.5), new Item("a", 1, 0.5), new Item("c", 2, 0.1), new Item("a", 2, 0.5)));
        items.sort(java.util.Comparator.comparingInt(Item::rank).thenComparingDouble(Item::weight).thenComparing(Item::name));
        List<Item> byName = new ArrayList<>(items);
        byName.sort(java.util.Comparator.comparing(Item::name).reversed().thenComparing(java.util.Comparator.comparingInt(Item::rank).reversed()));
        return List.of(x.add(items.getFirst().rank()), items, byName);
    }

    @Test
    void combinedComparatorsAreTraced() { // before: GB0003 "calling java.util.Comparator.thenComparingInt() on KeyComparators$$PrespunLambda$0"
        assertOneFrameNoBreak(Capture13RegressionTest::sortsWithCombinedComparators);
    }

    static Object writesASettingsMap(Tensor x, Settings s) {
        s.put("seen", s.getOrDefault("seen", 0) instanceof Integer n ? n + 1 : 1);
        s.remove("scale");
        return x.mul(s.size());
    }

    @Test
    void aHashMapSubclassArgumentIsChangedAsEagerChangesIt() {
        Tensor x = Tensor.randn(3);
        Settings eagerSettings = new Settings(), compiledSettings = new Settings();
        eagerSettings.put("scale", 2.0);
        compiledSettings.put("scale", 2.0);
        dev.ember.Fn2<Tensor, Settings, Object> f = Capture13RegressionTest::writesASettingsMap;
        dev.ember.Fn2<Tensor, Settings, Object> compiled = Ember.compile(f);
        for (int call = 0; call < 2; call++) {
            Compiled.assertSame(writesASettingsMap(x, eagerSettings), compiled.apply(x, compiledSettings), "call " + call);
            assertEquals(eagerSettings, compiledSettings, "the caller's map after call " + call);
        }
    }

    // ---- an Optional argument ----

    static Tensor withOptionalBias(Tensor x, java.util.Optional<Tensor> bias) {
        return bias.map(x::add).orElseGet(x::neg).mul(bias.isPresent() ? 2 : 3);
    }

    @Test
    void anOptionalArgumentIsGuardedOnBeingPresent() { // before: GB0003 "calling Optional.isPresent()" at each use
        Tensor x = Tensor.randn(3);
        CompileCounter cc = new CompileCounter();
        dev.ember.Fn2<Tensor, java.util.Optional<Tensor>, Tensor> f = Capture13RegressionTest::withOptionalBias;
        dev.ember.Fn2<Tensor, java.util.Optional<Tensor>, Tensor> compiled = Ember.compile(f, dev.ember.Options.backend(cc));
        for (java.util.Optional<Tensor> bias : List.of(java.util.Optional.of(Tensor.ones(3)), java.util.Optional.<Tensor>empty(), java.util.Optional.of(Tensor.randn(3)))) {
            Compiled.assertSame(withOptionalBias(x, bias), compiled.apply(x, bias), "bias " + bias.isPresent());
        }
        assertEquals(2, cc.frameCount(), "one graph for a present bias, one for an empty one");
        Ember.reset();
        assertEquals(0, Ember.explain(f).with(x, java.util.Optional.of(Tensor.ones(3))).graphBreakCount(), "graph breaks");
    }
}
