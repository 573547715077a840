package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.ember.dynamo.corpus.Capture11RegressionTest.assertAsEager;
import static dev.ember.dynamo.corpus.Capture11RegressionTest.graphBreaks;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Capture session 12's fixes, each failing without it: compiled behaves as eager, exceptions included. */
class Capture12RegressionTest {

    @AfterEach
    void reset() { Ember.reset(); }

    /** {@code f} of a random x runs as eager in one frame without a graph break (Capture13RegressionTest too). */
    static void assertOneFrameNoBreak(Fn1<Tensor, Object> f) {
        Tensor x = Tensor.randn(3);
        CompileCounter cc = assertAsEager(f, x);
        assertEquals(1, cc.frameCount(), "frames");
        assertEquals(0, graphBreaks(f, x), "graph breaks");
        Ember.reset();
    }

    // ---- unmodifiable map, set and collection views: reads see the backing container's changes ----

    static Object readsThroughAnUnmodifiableMap(Tensor x) {
        Map<String, Tensor> m = new LinkedHashMap<>();
        m.put("a", x);
        Map<String, Tensor> u = Collections.unmodifiableMap(m);
        m.put("b", x.mul(2));
        Tensor s = x.mul(0);
        for (Map.Entry<String, Tensor> e : u.entrySet()) s = s.add(e.getValue()).add(e.getKey().length());
        for (Tensor t : u.values()) s = s.add(t);
        s = s.add(u.size()).add(u.containsKey("b") ? 1 : 0).add(u.getOrDefault("c", x));
        try {
            u.put("c", x);
        } catch (UnsupportedOperationException e) {
            s = s.add(1);
        }
        try {
            u.remove("a");
        } catch (UnsupportedOperationException e) {
            s = s.add(1);
        }
        m.remove("a");
        return List.of(s, u, u.keySet());
    }

    static Object readsThroughAnUnmodifiableSet(Tensor x) {
        Set<Integer> set = new LinkedHashSet<>(List.of(1, 2));
        Set<Integer> u = Collections.unmodifiableSet(set);
        Collection<Integer> c = Collections.unmodifiableCollection(set);
        set.add(5);
        Tensor s = x.mul(0);
        for (int i : u) s = s.add(i);
        s = s.add(c.size()).add(u.contains(5) ? 1 : 0);
        try {
            u.add(7);
        } catch (UnsupportedOperationException e) {
            s = s.add(1);
        }
        try {
            c.clear();
        } catch (UnsupportedOperationException e) {
            s = s.add(1);
        }
        set.remove(1);
        return List.of(s, u, c.size(), new ArrayList<>(c));
    }

    static Object refusesSetValueThroughAnUnmodifiableMap(Tensor x) {
        Map<String, Tensor> m = new HashMap<>();
        m.put("w", x);
        Map<String, Tensor> u = Collections.unmodifiableMap(m);
        Tensor s = x.mul(0);
        for (Map.Entry<String, Tensor> e : u.entrySet()) {
            try {
                e.setValue(x.neg());
            } catch (UnsupportedOperationException refused) {
                s = s.add(e.getValue());
            }
        }
        m.put("w", x.mul(3));                         // the map's own write shows through the wrapper
        return List.of(s, u.get("w"), m, Collections.unmodifiableMap(u) == u);
    }

    @Test
    void unmodifiableViews() { // before: GB0003 "call to java.util.Collections.unmodifiableMap() (not known to be pure)", a break at every use
        assertOneFrameNoBreak(Capture12RegressionTest::readsThroughAnUnmodifiableMap);
        assertOneFrameNoBreak(Capture12RegressionTest::readsThroughAnUnmodifiableSet);
        assertOneFrameNoBreak(Capture12RegressionTest::refusesSetValueThroughAnUnmodifiableMap);
    }

    // docs/compile.md's example: a config map made read-only, the map's own put showing through
    static Tensor scaled(Tensor x, Map<String, Double> config) {
        Map<String, Double> live = new HashMap<>(config);
        Map<String, Double> readOnly = Collections.unmodifiableMap(live);
        live.put("scale", 2.0);
        try {
            readOnly.put("scale", 3.0);
        } catch (UnsupportedOperationException e) { }
        return x.mul(readOnly.get("scale"));
    }

    @Test
    void theDocsExampleIsOneGraph() {
        Tensor x = Tensor.randn(3);
        Map<String, Double> config = Map.of("scale", 1.0);
        CompileCounter cc = new CompileCounter();
        Compiled.assertSame(scaled(x, config), Ember.compile((dev.ember.Fn2<Tensor, Map<String, Double>, Tensor>) Capture12RegressionTest::scaled,
                dev.ember.Options.backend(cc)).apply(x, config), "x * 2");
        assertEquals(1, cc.frameCount(), "frames");
        Ember.reset();
        assertEquals(0, Ember.explain((dev.ember.Fn2<Tensor, Map<String, Double>, Tensor>) Capture12RegressionTest::scaled).with(x, config).graphBreakCount());
    }

    // ---- Arrays.asList: a fixed-size view of its array ----

    static Object writesThroughArraysAsList(Tensor x) {
        Tensor[] arr = {x, x.add(1), x.add(2)};
        List<Tensor> view = Arrays.asList(arr);
        view.set(0, x.neg());
        arr[2] = x.mul(5);
        Tensor s = view.get(2).add(arr[0]);
        try {
            view.add(x);
        } catch (UnsupportedOperationException e) {
            s = s.add(1);
        }
        try {
            view.remove(0);
        } catch (UnsupportedOperationException e) {
            s = s.add(1);
        }
        Collections.reverse(view);
        return List.of(s, view, arr[0], view.size());
    }

    @Test
    void arraysAsList() { // before: a wrong answer (the list was rebuilt after the break as a copy, not a view of the array)
        assertOneFrameNoBreak(Capture12RegressionTest::writesThroughArraysAsList);
    }

    /** AbstractList's size changes refuse in the first element they would add or remove: clear of nothing and addAll of nothing return. */
    static Object changesNothingOnAnArraysAsList(Tensor x) {
        Tensor[] arr = {x, x.add(1), x.add(2)};
        List<Tensor> view = Arrays.asList(arr);
        Tensor s = x.mul(0);
        view.subList(1, 1).clear();
        boolean added = view.addAll(List.of());
        view.addAll(3, new ArrayList<>());
        if (!added) s = s.add(10);
        try {
            view.addAll(List.of(x));
        } catch (UnsupportedOperationException e) {
            s = s.add(1000);
        }
        try {
            view.subList(0, 1).clear();
        } catch (UnsupportedOperationException e) {
            s = s.add(10000);
        }
        return List.of(s.add(view.get(0)), view.size());
    }

    @Test
    void anArraysAsListChangedByNothingDoesNotRefuse() { // before: clear() of an empty range and addAll() of nothing threw in the trace
        assertOneFrameNoBreak(Capture12RegressionTest::changesNothingOnAnArraysAsList);
    }

    // ---- ArrayDeque as a stack and as a queue (traced already before session 12: kept as the check that it stays so) ----

    static Object usesArrayDeques(Tensor x) {
        Deque<Tensor> stack = new ArrayDeque<>();
        stack.push(x);
        stack.push(x.mul(2));
        stack.push(x.mul(3));
        Tensor top = stack.pop();
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        queue.offer(1);
        queue.add(2);
        queue.addFirst(0);
        int head = queue.poll();
        Tensor s = top.add(stack.peek()).add(head).add(queue.peekLast()).add(queue.size());
        while (!stack.isEmpty()) s = s.add(stack.pollLast());
        try {
            queue.addLast(null);
        } catch (NullPointerException e) {
            s = s.add(1);
        }
        return List.of(s, new ArrayList<>(queue), stack.isEmpty());
    }

    @Test
    void arrayDeques() {
        assertOneFrameNoBreak(Capture12RegressionTest::usesArrayDeques);
    }

    // ---- sort, replaceAll and removeIf on subList and reversed views ----

    static Object sortsViews(Tensor x) {
        List<Integer> xs = new ArrayList<>(List.of(5, 3, 9, 1, 7));
        xs.subList(1, 4).sort(null);
        xs.reversed().subList(0, 2).replaceAll(i -> i * 10);
        xs.subList(0, 3).removeIf(i -> i > 4);
        List<Integer> r = xs.reversed();
        r.sort(Collections.reverseOrder());
        r.removeIf(i -> i == 1);
        Tensor s = x.mul(0);
        for (int i : xs) s = s.add(i);
        return List.of(s, xs);
    }

    static final List<Integer> ORDER = new ArrayList<>();

    static Object replacesThroughAReversedViewInTheListsOrder(Tensor x) {
        List<Integer> xs = new ArrayList<>(List.of(1, 2, 3, 4));
        xs.reversed().replaceAll(i -> {
            ORDER.add(i);                             // ReverseOrderListView hands replaceAll to the list: front to back
            return i + 1;
        });
        xs.reversed().removeIf(i -> {
            ORDER.add(-i);
            return i % 2 == 0;
        });
        return List.of(x.add(xs.getFirst()), xs, List.copyOf(ORDER));
    }

    static Object sortsAStaleViewsList(Tensor x) {
        List<Integer> xs = new ArrayList<>(List.of(3, 1, 2));
        List<Integer> head = xs.subList(0, 2);
        xs.reversed().sort(null);                     // the ArrayList's own sort: its modCount moves, the subList goes stale
        try {
            return x.add(head.get(0));
        } catch (java.util.ConcurrentModificationException e) {
            head = xs.subList(0, 1);
            head.sort(null);                          // a subList's sort sorts a range: no change of structure
            return List.of(x.add(head.get(0)), xs);
        }
    }

    static Object sortsAnArraysAsListThroughASubList(Tensor x) {
        Integer[] arr = {4, 2, 3, 1};
        List<Integer> view = Arrays.asList(arr);
        view.subList(1, 4).sort(null);
        view.reversed().replaceAll(i -> i * 2);
        try {
            view.subList(0, 2).clear();
        } catch (UnsupportedOperationException e) {
            arr[0] = -arr[0];
        }
        return List.of(x.add(arr[0]).add(arr[3]), view);
    }

    static Object writesThroughAViewOfAnUnmodifiableList(Tensor x) {
        List<Tensor> xs = new ArrayList<>(List.of(x, x.add(1)));
        List<Tensor> u = Collections.unmodifiableList(xs);
        Tensor s = x.mul(0);
        try {
            u.subList(0, 1).set(0, x.neg());
        } catch (UnsupportedOperationException e) {
            s = s.add(1);
        }
        try {
            u.reversed().removeIf(t -> true);
        } catch (UnsupportedOperationException e) {
            s = s.add(1);
        }
        return List.of(s, xs);
    }

    @Test
    void viewsOfUnmodifiableListsRefuseWrites() { // before: a set through u.subList(...) reached the list (a wrong answer)
        assertOneFrameNoBreak(Capture12RegressionTest::writesThroughAViewOfAnUnmodifiableList);
    }

    @Test
    void sortReplaceAllAndRemoveIfThroughViewsCountAsJavasDo() {
        ORDER.clear();
        Object eager = replacesThroughAReversedViewInTheListsOrder(Tensor.ones(2));
        ORDER.clear();
        Compiled.assertSame(eager, Ember.compile((Fn1<Tensor, Object>) Capture12RegressionTest::replacesThroughAReversedViewInTheListsOrder).apply(Tensor.ones(2)), "order of calls");
        ORDER.clear();
        assertOneFrameNoBreak(Capture12RegressionTest::sortsAStaleViewsList);
        assertOneFrameNoBreak(Capture12RegressionTest::sortsAnArraysAsListThroughASubList);
    }

    @Test
    void sortsAndFiltersThroughViews() { // before: GB0003 "a view's sort is not traced", five breaks
        assertOneFrameNoBreak(Capture12RegressionTest::sortsViews);
    }
}
