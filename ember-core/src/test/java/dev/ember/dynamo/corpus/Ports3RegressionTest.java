package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.CustomFunction;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.ConcurrentModificationException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.ListIterator;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bugs PyTorchPorts3Test found, each as the class it belongs to: a traced function's output
 * that is its input; a user map or set subclass overriding a generic JDK method (through a bridge); an
 * iterator's last-returned item across a graph break; a ConcurrentModificationException the
 * program catches.
 */
class Ports3RegressionTest {
    @AfterEach
    void reset() { Ember.reset(); }

    private static Object[] args(Object... a) { return a; }

    // ---- a CustomFunction whose forward returns an input itself ----

    /** Marks its input, returned as is, as carrying no gradient. */
    static final class PassThroughNoGrad extends CustomFunction {
        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) {
            ctx.markNonDifferentiable(in[0]);
            return new Tensor[] {in[0]};
        }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) { return new Tensor[] {grad[0]}; }
    }

    /** Returns its input as is, with a gradient of its own. */
    static final class PassThroughHalfGrad extends CustomFunction {
        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) { return new Tensor[] {in[0]}; }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) { return new Tensor[] {grad[0].mul(0.5)}; }
    }

    static Tensor passThroughNoGrad(Tensor x) { return new PassThroughNoGrad().apply(x); }

    static Tensor passThroughHalfGrad(Tensor x) { return new PassThroughHalfGrad().apply(x); }

    @Test
    void anOutputThatIsItsInputIsTheFunctionsOwnTensor() {
        for (String backend : List.of("eager", "aot_eager", "inductor")) {
            Ember.reset();
            Tensor x = Tensor.randn(3).requiresGrad(true);
            Tensor eager = passThroughNoGrad(x);
            Tensor compiled = Ember.compile((Fn1<Tensor, Tensor>) Ports3RegressionTest::passThroughNoGrad, Options.backend(backend)).apply(x);
            assertFalse(eager.requiresGrad());
            assertFalse(compiled.requiresGrad(), backend + ": a non-differentiable output is not the input, which requires grad");
            assertTrue(eager.sameData(compiled));

            Ember.reset();
            Tensor y = Tensor.randn(3).requiresGrad(true);
            Tensor out = Ember.compile((Fn1<Tensor, Tensor>) Ports3RegressionTest::passThroughHalfGrad, Options.backend(backend)).apply(y);
            assertTrue(out != y, backend + ": the output is a new tensor, as eager's apply makes it");
            out.mul(2).sum().backward();
            assertTrue(Tensor.full(new int[] {3}, 1.0).sameData(y.grad()), backend + ": the function's own backward: " + y.grad());
        }
    }

    // ---- a user map or set subclass whose put or add changes what it stores ----

    /** Stores one more than it is given. */
    static final class PlusOneMap extends LinkedHashMap<String, Integer> {
        @Override
        public Integer put(String key, Integer value) { return super.put(key, value + 1); }
    }

    /** Stores each element's upper case. */
    static final class UpperSet extends LinkedHashSet<String> {
        @Override
        public boolean add(String s) { return super.add(s.toUpperCase()); }
    }

    static List<Object> plusOneMapMade(Tensor x) {
        PlusOneMap m = new PlusOneMap();
        m.put("a", 1);
        m.put("b", 10);
        UpperSet s = new UpperSet();
        s.add("q");
        s.addAll(List.of("r", "s"));   // AbstractCollection.addAll calls the override
        return List.of(x.mul(m.get("a")), m, s);
    }

    static Tensor plusOneMapPassedIn(Map<String, Integer> m, Tensor x) {
        m.put("c", 5);
        return x.mul(m.get("c"));
    }

    @Test
    void aSubclassOverridingAGenericJdkMethodIsNotModelledAsTheContainer() {
        // put(String, Integer) overrides HashMap.put only through javac's bridge put(Object, Object): modelled as a plain
        // LinkedHashSet, addAll skipped the override and the rebuild ran it again; such a class now breaks (GB0013), eager's answer
        Fn1<Tensor, List<Object>> made = Ports3RegressionTest::plusOneMapMade;
        PyTorchMiscPortsTest.check(made, Options.defaults(), () -> List.<Object[]>of(args(Tensor.randn(3)), args(Tensor.randn(3))));
        Ember.reset();
        assertTrue(Ember.explain(made).with(Tensor.randn(3)).graphBreakCount() >= 1);
        Ember.reset();
        PyTorchMiscPortsTest.check((Fn2<Map<String, Integer>, Tensor, Tensor>) Ports3RegressionTest::plusOneMapPassedIn, Options.defaults(),
                () -> List.<Object[]>of(args(new PlusOneMap(), Tensor.randn(3))));
        PlusOneMap m = new PlusOneMap();
        Ember.compile((Fn2<Map<String, Integer>, Tensor, Tensor>) Ports3RegressionTest::plusOneMapPassedIn).apply(m, Tensor.randn(3));
        assertEquals(Map.of("c", 6), m, "put ran once");
    }

    // ---- an iterator's last-returned item across a break ----

    static List<Tensor> setAfterBreak(Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(x, x.add(1)));
        ListIterator<Tensor> it = l.listIterator();
        Tensor t = it.next();
        Ember.graphBreak();
        it.set(t.mul(2));
        return l;
    }

    static Tensor removeAfterBreak(List<Tensor> xs) {
        Iterator<Tensor> it = xs.iterator();
        Tensor first = it.next();
        Ember.graphBreak();
        it.remove();
        return first.add(xs.size());
    }

    static Tensor removeFromSetAfterBreak(Tensor x) {
        Set<String> s = new HashSet<>(Set.of("a", "b"));
        Iterator<String> it = s.iterator();
        it.next();
        Ember.graphBreak();
        it.remove();
        return x.mul(s.size());
    }

    @Test
    void setAndRemoveAfterABreakActOnTheItemTheTraceTook() {
        PyTorchMiscPortsTest.check((Fn1<Tensor, List<Tensor>>) Ports3RegressionTest::setAfterBreak, Options.defaults(),
                () -> List.<Object[]>of(args(Tensor.randn(3)), args(Tensor.randn(3))));
        PyTorchMiscPortsTest.check((Fn1<List<Tensor>, Tensor>) Ports3RegressionTest::removeAfterBreak, Options.defaults(),
                () -> List.<Object[]>of(args(new ArrayList<>(List.of(Tensor.randn(3), Tensor.randn(3), Tensor.randn(3))))));
        PyTorchMiscPortsTest.check((Fn1<Tensor, Tensor>) Ports3RegressionTest::removeFromSetAfterBreak, Options.defaults(),
                () -> List.<Object[]>of(args(Tensor.randn(3))));
    }

    // ---- a ConcurrentModificationException the program catches ----

    static Tensor catchConcurrentModification(Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(x, x.add(1)));
        try {
            for (Tensor t : l) l.add(t.mul(2));
            return x;
        } catch (ConcurrentModificationException e) {
            return Tensor.stack(l, 0).sum(0).add(e.getMessage() == null ? 1 : 2);
        }
    }

    @Test
    void aCaughtConcurrentModificationIsTracedIntoTheHandler() {
        CompileCounter cc = PyTorchMiscPortsTest.check((Fn1<Tensor, Tensor>) Ports3RegressionTest::catchConcurrentModification, Options.fullgraph(),
                () -> List.<Object[]>of(args(Tensor.randn(3)), args(Tensor.randn(3))));
        assertEquals(1, cc.frameCount());
    }

    // ---- Map's remapping methods, Map.equals, Set.removeAll and retainAll ----

    static Tensor remapInputMap(Map<String, Tensor> m, Tensor x) {
        m.merge("a", x, Tensor::add);            // present: a + x
        m.merge("new", x.mul(2), Tensor::add);   // absent: put
        m.computeIfPresent("b", (k, v) -> null); // removes b
        m.computeIfPresent("zz", (k, v) -> x);   // absent: nothing
        m.compute("c", (k, v) -> v == null ? x.neg() : v.sin());
        m.replaceAll((k, v) -> k.equals("new") ? v.cos() : v);
        Map<String, Integer> p = new LinkedHashMap<>();
        p.put("one", 1);
        p.merge("one", 5, (o, n) -> null);       // a null merge removes
        return x.add(p.size()).add(p.equals(Map.of()) ? 1 : 0).add(m.equals(Map.of("q", 1)) ? 10 : 0);
    }

    static Tensor setBulkRemovals(Set<Integer> s, Tensor x) {
        boolean removed = s.removeAll(List.of(1, 1, 7));
        boolean retained = s.retainAll(Set.of(2, 3, 4));
        boolean again = s.retainAll(Set.of(2, 3, 4));
        int sum = 0;
        for (int v : s) sum += v;
        return x.mul(sum).add(removed ? 1 : 0).add(retained ? 10 : 0).add(again ? 100 : 0);
    }

    @Test
    void mapRemappingAndSetBulkRemovalsAreTraced() {
        CompileCounter cc = PyTorchMiscPortsTest.check((Fn2<Map<String, Tensor>, Tensor, Tensor>) Ports3RegressionTest::remapInputMap, Options.fullgraph(), () -> {
            Map<String, Tensor> m = new LinkedHashMap<>();
            m.put("a", Tensor.randn(3));
            m.put("b", Tensor.randn(3));
            m.put("c", Tensor.randn(3));
            return List.<Object[]>of(args(m, Tensor.randn(3)));
        });
        assertEquals(1, cc.frameCount());
        cc = PyTorchMiscPortsTest.check((Fn2<Set<Integer>, Tensor, Tensor>) Ports3RegressionTest::setBulkRemovals, Options.fullgraph(),
                () -> List.<Object[]>of(args(new LinkedHashSet<>(List.of(1, 2, 5, 3)), Tensor.randn(3)), args(new HashSet<>(List.of(9)), Tensor.randn(3))));
        assertEquals(2, cc.frameCount(), "one frame per input set");
    }

    // ---- list methods with the program's lambdas, Collections.swap and rotate, sorted containers' navigation ----

    static List<Tensor> listLambdaMethods(List<Tensor> xs, Tensor y) {
        xs.sort((a, b) -> Integer.compare(b.size(0), a.size(0)));   // longest first, stable among equals
        xs.replaceAll(t -> t.sum(0, false).add(y));
        xs.removeIf(t -> t.dim() != 1);
        List<Tensor> fixed = java.util.Arrays.asList(y, y.neg());
        boolean none = fixed.removeIf(t -> t.dim() == 5);             // nothing to remove: a fixed-size list answers false
        Collections.rotate(xs, -1);
        Collections.swap(xs, 0, xs.size() - 1);
        List<Integer> ints = new ArrayList<>(List.of(3, 1, 2));
        ints.sort((a, b) -> b - a);
        xs.add(y.mul(ints.getFirst() * 100 + ints.hashCode() % 7).add(none ? 0 : 1));
        return xs;
    }

    static Tensor sortedNavigation(java.util.TreeSet<Integer> s, Tensor x) {
        java.util.TreeMap<String, Integer> m = new java.util.TreeMap<>();
        m.put("b", 2);
        m.put("a", 1);
        Integer above = s.higher(100);
        int acc = s.first() * 1000 + s.last() * 100 + s.ceiling(4) * 10 + s.floor(4) + (above == null ? 0 : 7);
        try {
            new java.util.TreeSet<Integer>().first();
        } catch (java.util.NoSuchElementException e) {
            acc += 10000;
        }
        return x.mul(acc).add(m.firstKey().length()).add(m.lowerKey("b").equals("a") ? 1 : 0);
    }

    @Test
    void listLambdaMethodsSwapRotateAndSortedNavigationAreTraced() {
        CompileCounter cc = PyTorchMiscPortsTest.check((Fn2<List<Tensor>, Tensor, List<Tensor>>) Ports3RegressionTest::listLambdaMethods, Options.fullgraph(),
                () -> List.<Object[]>of(args(new ArrayList<>(List.of(Tensor.randn(2, 3), Tensor.randn(4, 3), Tensor.randn(2, 3), Tensor.randn(3, 3))), Tensor.randn(3))));
        assertEquals(1, cc.frameCount());
        cc = PyTorchMiscPortsTest.check((Fn2<java.util.TreeSet<Integer>, Tensor, Tensor>) Ports3RegressionTest::sortedNavigation, Options.fullgraph(),
                () -> List.<Object[]>of(args(new java.util.TreeSet<>(List.of(5, 2, 9)), Tensor.randn(3)), args(new java.util.TreeSet<>(List.of(4, 200)), Tensor.randn(3))));
        assertEquals(2, cc.frameCount(), "one frame per input set");
    }
}
