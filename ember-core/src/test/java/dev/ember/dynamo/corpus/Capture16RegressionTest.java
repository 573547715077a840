package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.ListIterator;
import java.util.Map;
import java.util.TreeMap;

import static dev.ember.dynamo.corpus.Capture11RegressionTest.assertAsEager;
import static dev.ember.dynamo.corpus.Capture11RegressionTest.graphBreaks;
import static dev.ember.dynamo.corpus.Capture12RegressionTest.assertOneFrameNoBreak;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Capture session 16's fixes, each failing without it: compiled behaves as eager, with the frame and graph-break counts Dynamo would have. */
class Capture16RegressionTest {

    @AfterEach
    void reset() { Ember.reset(); }

    // ---- List.listIterator(index): a ListIterator whose cursor starts at index ----

    /** Walks a list of tensors both ways from the middle, setting and adding through the iterator. */
    static Object listIteratorFromTheMiddle(Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(x, x.sin(), x.cos(), x.exp()));
        ListIterator<Tensor> it = l.listIterator(2);
        Tensor acc = x.mul(0);
        List<Integer> seen = new ArrayList<>();
        while (it.hasPrevious()) {
            seen.add(it.previousIndex());
            Tensor t = it.previous();
            acc = acc.mul(2).add(t);
            it.set(t.neg());
        }
        it.add(x.mul(10));                 // at the front, before the cursor
        while (it.hasNext()) {
            seen.add(it.nextIndex());
            acc = acc.add(it.next().mul(3));
        }
        return List.of(acc, l, seen);
    }

    static Object linkedListIteratorAtTheEnd(Tensor x) {
        LinkedList<Tensor> l = new LinkedList<>(List.of(x, x.add(1), x.add(2)));
        ListIterator<Tensor> it = l.listIterator(l.size());
        Tensor acc = x.mul(0);
        while (it.hasPrevious()) {
            Tensor t = it.previous();
            if (it.nextIndex() == 1) it.remove();
            else acc = acc.add(t);
        }
        return List.of(acc, l);
    }

    /** An index out of range: the JDK's exception and message, caught by the program. */
    static Object listIteratorOutOfRange(Tensor x) {
        List<String> caught = new ArrayList<>();
        for (List<Tensor> l : List.of(new ArrayList<>(List.of(x)), List.of(x, x), new LinkedList<>(List.of(x)))) {
            try {
                l.listIterator(l.size() + 1);
            } catch (IndexOutOfBoundsException e) {
                caught.add(e.getMessage());
            }
        }
        return List.of(x.add(caught.size()), caught);
    }

    @Test
    void listIteratorAtAnIndexIsTraced() {
        // listIterator(index) broke the graph (GB0003) since session 7 stopped tracing it as listIterator()
        assertOneFrameNoBreak(Capture16RegressionTest::listIteratorFromTheMiddle);
        assertOneFrameNoBreak(Capture16RegressionTest::linkedListIteratorAtTheEnd);
        assertOneFrameNoBreak(Capture16RegressionTest::listIteratorOutOfRange);
    }

    static Object listIteratorAcrossABreak(Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(x, x.sin(), x.cos()));
        ListIterator<Tensor> it = l.listIterator(1);
        Tensor acc = it.next().add(1);
        Ember.graphBreak();
        while (it.hasNext()) acc = acc.add(it.next());
        acc = acc.add(it.previous());
        return acc;
    }

    @Test
    void listIteratorAtAnIndexResumesWhereItStood() {
        Fn1<Tensor, Object> f = Capture16RegressionTest::listIteratorAcrossABreak;
        Tensor x = Tensor.randn(3);
        assertEquals(2, assertAsEager(f, x).frameCount());
        assertEquals(1, graphBreaks(f, x));
    }

    // ---- equals and hashCode of lists and maps holding tensors ----

    /** Lists and maps of tensors compared by equals: element-wise, each tensor by identity, as Java's are. */
    static Object equalsOfContainersOfTensors(Tensor x) {
        Tensor y = x.sin();
        List<Tensor> a = List.of(x, y), b = new ArrayList<>(List.of(x, y)), c = List.of(x, x.sin());
        Map<String, Tensor> m = new LinkedHashMap<>(Map.of("x", x)), n = new TreeMap<>(Map.of("x", x)), o = Map.of("x", y);
        int score = (a.equals(b) ? 1 : 0) + (a.equals(c) ? 2 : 0) + (m.equals(n) ? 4 : 0) + (m.equals(o) ? 8 : 0) + (b.equals(List.of(x)) ? 16 : 0);
        return x.add(score);
    }

    /** hashCode of lists and maps of strings and numbers is a value the trace knows: no break. */
    static Object hashCodesOfValues(Tensor x) {
        List<Object> key = List.of("conv", 3, List.of(1, 2), 'c', true);
        Map<String, Integer> sizes = new LinkedHashMap<>(Map.of("h", 4, "w", 7));
        Map<String, List<Integer>> byShape = new TreeMap<>();
        byShape.put("small", List.of(2, 3));
        return x.add(key.hashCode() % 1000).add(sizes.hashCode() % 1000).add(byShape.hashCode() % 1000).add(Map.of().hashCode());
    }

    @Test
    void equalsOfListsAndMapsOfTensorsIsIdentityPerElement() {
        assertOneFrameNoBreak(Capture16RegressionTest::equalsOfContainersOfTensors);
        // Map.hashCode() broke the graph ("on a tracked map"); a list holding a list broke it too
        assertOneFrameNoBreak(Capture16RegressionTest::hashCodesOfValues);
    }

    static Object hashCodeOfAListOfTensors(Tensor x) {
        Map<String, Tensor> m = new LinkedHashMap<>(Map.of("x", x));
        int h = m.hashCode();
        return x.add(h == m.hashCode() ? 1 : 0);
    }

    @Test
    void hashCodeOfATensorIsTheRunsAndSaysSo() {
        // a tensor's hash code is its identity hash code: only the run knows it, so a break whose reason says why (never a baked-in number)
        Fn1<Tensor, Object> f = Capture16RegressionTest::hashCodeOfAListOfTensors;
        Tensor x = Tensor.randn(3);
        assertAsEager(f, x);
        Ember.reset();
        var e = Ember.explain(f).with(x);
        assertEquals(2, e.graphBreakCount(), "each hashCode() call, in the frame and in its resume function");
        for (var b : e.breakReasons()) {
            assertTrue(b.reason().contains("Map.hashCode() of a map with the value ") && b.reason().contains("identity hash code, known only when the program runs"), b.reason());
        }
    }

    // ---- NO_TENSOR_ALIASING over every tensor the trace read: globals, list elements, object fields ----

    static final List<Tensor> BANK = List.of(Tensor.randn(3), Tensor.randn(3));

    static Tensor distinctFromAGlobalListsElement(Tensor a) { return a.add(new java.util.HashSet<>(List.of(BANK.get(0), a)).size()); }

    static Tensor distinctFromAListsElement(List<Tensor> xs, Tensor a) { return a.add(new java.util.HashSet<>(List.of(xs.get(0), a)).size()); }

    static final class Holder {
        final Tensor w = Tensor.randn(3);
    }

    static Tensor distinctFromAField(Holder h, Tensor a) { return a.add(new java.util.HashSet<>(List.of(h.w, a)).size()); }

    @Test
    void aTensorTracedAsDistinctFromAnotherRecompilesWhenTheyAreOne() {
        // the trace counted two tensors; called with one object in both places, the same graph answered 2 where eager answers 1
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile((Fn1<Tensor, Tensor>) Capture16RegressionTest::distinctFromAGlobalListsElement, Options.backend(cc));
        Tensor t = Tensor.randn(3);
        assertArrayEquals(t.add(2).toDoubleArray(), f.apply(t).toDoubleArray(), 1e-6);
        assertArrayEquals(BANK.get(0).add(1).toDoubleArray(), f.apply(BANK.get(0)).toDoubleArray(), 1e-6);
        assertEquals(2, cc.frameCount());
        var g = Ember.compile((dev.ember.Fn2<List<Tensor>, Tensor, Tensor>) Capture16RegressionTest::distinctFromAListsElement, Options.backend("eager"));
        g.apply(List.of(Tensor.randn(3)), t);
        assertArrayEquals(t.add(1).toDoubleArray(), g.apply(List.of(t), t).toDoubleArray(), 1e-6);
        Holder h = new Holder();
        var k = Ember.compile((dev.ember.Fn2<Holder, Tensor, Tensor>) Capture16RegressionTest::distinctFromAField, Options.backend("eager"));
        k.apply(h, t);
        assertArrayEquals(h.w.add(1).toDoubleArray(), k.apply(h, h.w).toDoubleArray(), 1e-6);
    }

    // ---- Ember.isCompiling(): torch.compiler.is_compiling() ----

    static Tensor compilingOrNot(Tensor x) { return Ember.isCompiling() ? x.add(1) : x.sub(1); }

    static Tensor compilingAfterABreak(Tensor x) {
        Tensor y = Ember.isCompiling() ? x.mul(2) : x;
        Ember.graphBreak();
        return y.add(Ember.isCompiling() ? 1 : 0);
    }

    @Test
    void isCompilingIsTrueInTheTraceAndFalseEagerly() {
        Tensor x = Tensor.randn(3);
        assertArrayEquals(x.sub(1).toDoubleArray(), compilingOrNot(x).toDoubleArray(), 0);
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile((Fn1<Tensor, Tensor>) Capture16RegressionTest::compilingOrNot, Options.fullgraph().withBackend(cc));
        assertArrayEquals(x.add(1).toDoubleArray(), f.apply(x).toDoubleArray(), 1e-6);
        assertEquals(1, cc.opCount(), "the branch not taken is not in the graph");
        // both halves around the break are traced: both see true
        Fn1<Tensor, Tensor> g = Ember.compile((Fn1<Tensor, Tensor>) Capture16RegressionTest::compilingAfterABreak, Options.backend("eager"));
        assertArrayEquals(x.mul(2).add(1).toDoubleArray(), g.apply(x).toDoubleArray(), 1e-6);
        assertArrayEquals(x.toDoubleArray(), compilingAfterABreak(x).toDoubleArray(), 0);
    }
}
