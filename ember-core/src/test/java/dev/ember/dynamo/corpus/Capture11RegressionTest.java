package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.ListIterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Capture session 11's fixes, each failing without it: compiled behaves as eager, exceptions included. */
class Capture11RegressionTest {

    @AfterEach
    void reset() { Ember.reset(); }

    /**
     * Runs {@code fn} eagerly and compiled on the same input: the same result, or the same exception
     * class and message; returns the compiled call's counter. The graph-break count is Ember.explain's.
     */
    static <A> CompileCounter assertAsEager(Fn1<A, Object> fn, A x) {
        Object eager;
        try {
            eager = fn.apply(x);
        } catch (RuntimeException thrown) {
            CompileCounter cc = new CompileCounter();
            Fn1<A, Object> compiled = Ember.compile(fn, Options.backend(cc));
            RuntimeException got = assertThrows(RuntimeException.class, () -> compiled.apply(x), "eager threw " + thrown);
            assertEquals(thrown.getClass(), got.getClass(), "exception class");
            assertEquals(thrown.getMessage(), got.getMessage(), "exception message");
            return cc;
        }
        CompileCounter cc = new CompileCounter();
        Compiled.assertSame(eager, Ember.compile(fn, Options.backend(cc)).apply(x), "compiled against eager");
        return cc;
    }

    static int graphBreaks(Fn1<Tensor, Object> fn, Tensor x) {
        Ember.reset();
        return Ember.explain(fn).with(x).graphBreakCount();
    }

    // ---- ArrayList's sort and replaceAll are structural changes (modCount++); LinkedList's are not ----

    static Object sortsWhileIterating(Tensor x) {
        List<Integer> xs = new ArrayList<>(List.of(3, 1, 2));
        Tensor acc = x;
        for (Integer i : xs) {
            acc = acc.add(i);
            Collections.sort(xs);
        }
        return acc;
    }

    static Object sortsAfterAnIteratorWasMade(Tensor x) {
        List<Integer> xs = new ArrayList<>(List.of(3, 1, 2));
        Iterator<Integer> it = xs.iterator();
        Tensor first = x.mul(it.next());
        xs.sort(null);
        return first.add(it.next());
    }

    static Object replacesAllWhileIterating(Tensor x) {
        List<Tensor> xs = new ArrayList<>(List.of(x, x.add(1)));
        Iterator<Tensor> it = xs.iterator();
        Tensor first = it.next();
        xs.replaceAll(t -> t.mul(2));
        return first.add(it.next());
    }

    static Object catchesTheSortsException(Tensor x) {
        List<Integer> xs = new ArrayList<>(List.of(3, 1, 2));
        Iterator<Integer> it = xs.iterator();
        it.next();
        xs.sort(Collections.reverseOrder());
        try {
            return x.add(it.next());
        } catch (ConcurrentModificationException e) {
            return x.add(xs.getFirst());
        }
    }

    static Object sortsALinkedListWhileIterating(Tensor x) {
        List<Integer> xs = new LinkedList<>(List.of(3, 1, 2));
        Iterator<Integer> it = xs.iterator();
        Tensor first = x.mul(it.next());
        xs.sort(null);
        xs.replaceAll(i -> i * 10);
        return first.add(it.next()).add(it.next());
    }

    @Test
    void anIteratorMadeBeforeAnArrayListSortFailsAsEagers() { // before: compiled returned a value where eager threw
        assertThrows(ConcurrentModificationException.class, () -> sortsWhileIterating(Tensor.randn(3)));
        assertAsEager(Capture11RegressionTest::sortsWhileIterating, Tensor.randn(3));
        assertAsEager(Capture11RegressionTest::sortsAfterAnIteratorWasMade, Tensor.randn(3));
        assertAsEager(Capture11RegressionTest::replacesAllWhileIterating, Tensor.randn(3));
    }

    @Test
    void theProgramCatchesTheSortsConcurrentModification() {
        Tensor x = Tensor.randn(3);
        CompileCounter cc = assertAsEager(Capture11RegressionTest::catchesTheSortsException, x);
        assertEquals(1, cc.frameCount(), "frames");
        assertEquals(0, graphBreaks(Capture11RegressionTest::catchesTheSortsException, x), "the catch is traced");
    }

    @Test
    void aLinkedListsSortAndReplaceAllAreNotStructural() {
        Tensor x = Tensor.randn(3);
        CompileCounter cc = assertAsEager(Capture11RegressionTest::sortsALinkedListWhileIterating, x);
        assertEquals(1, cc.frameCount(), "frames");
        assertEquals(0, graphBreaks(Capture11RegressionTest::sortsALinkedListWhileIterating, x), "graph breaks");
    }

    // ---- a call that changes nothing is no structural change (remove of a missing element, poll of an empty deque) ----

    static Object removesWhatIsNotThere(Tensor x) {
        List<Integer> xs = new ArrayList<>(List.of(3, 1, 2));
        LinkedList<Integer> ys = new LinkedList<>(List.of(5));
        Tensor acc = x;
        for (Integer i : xs) {
            acc = acc.add(i);
            xs.remove(Integer.valueOf(7));
            ys.addAll(List.of());
        }
        for (Integer i : ys) {
            acc = acc.mul(i);
            ys.removeFirstOccurrence(9);
        }
        return acc;
    }

    static Object addsNothingToAnArrayList(Tensor x) {
        List<Integer> xs = new ArrayList<>(List.of(3, 1, 2));
        Tensor acc = x;
        for (Integer i : xs) {
            acc = acc.add(i);
            xs.addAll(List.of());                     // ArrayList's addAll counts a change even when it adds nothing
        }
        return acc;
    }

    @Test
    void aCallThatChangesNothingLeavesIteratorsWorking() { // before: a ConcurrentModificationException in the trace, the frame run eagerly
        Tensor x = Tensor.randn(3);
        CompileCounter cc = assertAsEager(Capture11RegressionTest::removesWhatIsNotThere, x);
        assertEquals(1, cc.frameCount(), "frames");
        assertEquals(0, graphBreaks(Capture11RegressionTest::removesWhatIsNotThere, x), "graph breaks");
        assertThrows(ConcurrentModificationException.class, () -> addsNothingToAnArrayList(x));
        assertAsEager(Capture11RegressionTest::addsNothingToAnArrayList, x);
    }

    // ---- an input list sorted in the graph: the caller's views see a structural change, as eager's do ----

    static Object sortsItsArgument(List<Integer> xs) {
        xs.sort(null);
        return xs.getFirst();
    }

    @Test
    void aCallersViewOfAnArgumentSortedInTheGraphFails() {
        List<Integer> eagerList = new ArrayList<>(List.of(3, 1, 2)), compiledList = new ArrayList<>(eagerList);
        List<Integer> eagerView = eagerList.subList(0, 2), compiledView = compiledList.subList(0, 2);
        Fn1<List<Integer>, Object> f = Capture11RegressionTest::sortsItsArgument;
        assertEquals(f.apply(eagerList), Ember.compile(f).apply(compiledList));
        assertEquals(eagerList, compiledList);
        assertThrows(ConcurrentModificationException.class, eagerView::size);
        assertThrows(ConcurrentModificationException.class, compiledView::size);
    }

    // ---- Iterator.remove, ListIterator.set and add over a list ----

    static Object removesThroughTheIterator(Tensor x) {
        List<Tensor> xs = new ArrayList<>(List.of(x.mul(1), x.neg(), x.mul(3), x.exp()));
        Iterator<Tensor> it = xs.iterator();
        int i = 0;
        while (it.hasNext()) {
            Tensor t = it.next();
            if (i++ % 2 == 1) it.remove();
            else t.add_(1);
        }
        return xs;
    }

    static Object walksALinkedListBothWays(Tensor x) {
        LinkedList<Tensor> xs = new LinkedList<>(List.of(x, x.neg(), x.mul(3)));
        ListIterator<Tensor> it = xs.listIterator();
        while (it.hasNext()) {
            Tensor t = it.next();
            if (it.nextIndex() == 2) it.remove();
            else it.add(t.mul(2));
        }
        Tensor acc = x.mul(0);
        while (it.hasPrevious()) {
            Tensor t = it.previous();
            it.set(t.sub(1));
            acc = acc.mul(0.5).add(t).add(it.nextIndex());
        }
        return List.of(acc, xs);
    }

    static Object removesTwice(Tensor x) {
        List<Tensor> xs = new ArrayList<>(List.of(x, x.neg()));
        Iterator<Tensor> it = xs.iterator();
        it.next();
        it.remove();
        it.remove();
        return xs;
    }

    static Object setsAfterTheListChanged(Tensor x) {
        List<Tensor> xs = new ArrayList<>(List.of(x, x.neg()));
        ListIterator<Tensor> it = xs.listIterator();
        it.next();
        xs.add(x);
        it.set(x.mul(2));
        return xs;
    }

    static Object removesFromAnImmutableList(Tensor x) {
        Iterator<Tensor> it = List.of(x, x.neg()).iterator();
        it.next();
        try {
            it.remove();
            return x;
        } catch (UnsupportedOperationException e) {
            return x.add(1);
        }
    }

    static Object removesFromItsArgument(List<Tensor> xs) {
        Tensor kept = null;
        for (Iterator<Tensor> it = xs.iterator(); it.hasNext(); ) {
            Tensor t = it.next();
            if (kept == null) kept = t.mul(2);
            else it.remove();
        }
        return kept;
    }

    @Test
    void iteratorWritesAreTracedAsTheJdksListIteratorsRunThem() { // before: GB0003 "Iterator.remove()" / "Iterator.set()" at each
        Tensor x = Tensor.randn(3);
        for (Fn1<Tensor, Object> f : List.<Fn1<Tensor, Object>>of(Capture11RegressionTest::removesThroughTheIterator,
                Capture11RegressionTest::walksALinkedListBothWays, Capture11RegressionTest::removesFromAnImmutableList,
                PyTorchPorts5Programs::listIteratorSetAddPrevious)) {
            CompileCounter cc = assertAsEager(f, x);
            assertEquals(1, cc.frameCount(), "frames");
            assertEquals(0, graphBreaks(f, x), "graph breaks");
            Ember.reset();
        }
    }

    @Test
    void iteratorMisuseThrowsAsEager() {
        Tensor x = Tensor.randn(3);
        assertThrows(IllegalStateException.class, () -> removesTwice(x));
        assertAsEager(Capture11RegressionTest::removesTwice, x);
        assertThrows(ConcurrentModificationException.class, () -> setsAfterTheListChanged(x));
        assertAsEager(Capture11RegressionTest::setsAfterTheListChanged, x);
    }

    /** {@code f} called on copies of one list of three tensors, eagerly and compiled (one frame): the same result, and the caller's lists alike afterwards. */
    private static void assertChangesTheCallersListAsEager(Fn1<List<Tensor>, Object> f) {
        Tensor a = Tensor.randn(3), b = Tensor.randn(3), c = Tensor.randn(3);
        List<Tensor> eagerList = new ArrayList<>(List.of(a, b, c)), compiledList = new ArrayList<>(eagerList);
        CompileCounter cc = new CompileCounter();
        Compiled.assertSame(f.apply(eagerList), Ember.compile(f, Options.backend(cc)).apply(compiledList), "result");
        Compiled.assertSame(eagerList, compiledList, "the caller's list afterwards");
        assertEquals(1, cc.frameCount(), "frames");
    }

    @Test
    void anIteratorsRemoveOnAnArgumentIsReplayedOnTheCallersList() {
        assertChangesTheCallersListAsEager(Capture11RegressionTest::removesFromItsArgument);
    }

    // ---- subList, reversed() and Collections.unmodifiableList: live views in the trace ----

    static Object writesThroughNestedViews(Tensor x) {
        List<Tensor> xs = new ArrayList<>(List.of(x, x.add(1), x.add(2), x.add(3), x.add(4)));
        List<Tensor> mid = xs.subList(1, 4);
        List<Tensor> inner = mid.subList(1, 3);
        inner.add(x.mul(9));
        inner.remove(0);
        List<Tensor> back = mid.reversed();
        back.set(0, x.neg());
        xs.set(0, x.mul(7));                          // a set is no structural change: the views stay usable
        Tensor s = x.mul(0);
        for (Tensor t : back) s = s.mul(0.5).add(t);
        return List.of(s, xs, mid, inner, back, mid.size(), inner.getFirst());
    }

    static Object usesASubListAfterItsListGrew(Tensor x) {
        List<Tensor> xs = new ArrayList<>(List.of(x, x.add(1), x.add(2)));
        List<Tensor> tail = xs.subList(1, 3);
        xs.add(x);
        try {
            return tail.get(0);
        } catch (ConcurrentModificationException e) {
            return x.add(xs.size());
        }
    }

    static Object copiesAStaleSubList(Tensor x) {
        List<Tensor> xs = new ArrayList<>(List.of(x, x.add(1), x.add(2)));
        List<Tensor> head = xs.subList(0, 2);
        xs.removeLast();
        xs.removeLast();
        try {
            return new ArrayList<>(head);
        } catch (ConcurrentModificationException e) {
            return List.of(x.neg(), xs.size());
        }
    }

    static Object readsThroughAnUnmodifiableView(Tensor x) {
        List<Tensor> xs = new LinkedList<>(List.of(x, x.add(1), x.add(2)));
        List<Tensor> u = Collections.unmodifiableList(xs);
        List<Tensor> r = xs.reversed();
        xs.add(x.mul(3));
        r.add(x.mul(4));                              // reversed().add is the list's addFirst
        Tensor s = u.get(3).add(u.size()).add(r.getLast());
        try {
            u.set(0, x);
        } catch (UnsupportedOperationException e) {
            s = s.add(1);
        }
        try {
            u.sort(null);
        } catch (UnsupportedOperationException e) {
            s = s.add(1);
        }
        return List.of(s, u);
    }

    @Test
    void viewsOfAChangingListAreTracedLive() { // before: GB0003 "the result is a view that writes through to the list", and breaks at each use
        Tensor x = Tensor.randn(3);
        for (Fn1<Tensor, Object> f : List.<Fn1<Tensor, Object>>of(Capture11RegressionTest::writesThroughNestedViews,
                Capture11RegressionTest::usesASubListAfterItsListGrew, Capture11RegressionTest::readsThroughAnUnmodifiableView,
                Capture11RegressionTest::copiesAStaleSubList)) {
            CompileCounter cc = assertAsEager(f, x);
            assertEquals(1, cc.frameCount(), "frames");
            assertEquals(0, graphBreaks(f, x), "graph breaks");
            Ember.reset();
        }
    }

    static Object returnsViews(Tensor x) {
        List<Tensor> xs = new ArrayList<>(List.of(x, x.add(1), x.add(2)));
        return List.of(xs, xs.subList(0, 2), xs.reversed(), Collections.unmodifiableList(xs));
    }

    @Test
    void returnedViewsAreViewsOfTheReturnedList() {
        Tensor x = Tensor.randn(3);
        @SuppressWarnings("unchecked")
        List<List<Tensor>> got = (List<List<Tensor>>) Ember.compile((Fn1<Tensor, Object>) Capture11RegressionTest::returnsViews).apply(x);
        Compiled.assertSame(returnsViews(x), got, "values");
        got.get(0).set(0, x.mul(5));
        for (int view = 1; view <= 3; view++) {
            int at = view == 2 ? 2 : 0;
            Compiled.assertSame(x.mul(5), got.get(view).get(at), "view " + view + " shows the list's set");
        }
        got.get(1).clear();
        assertEquals(1, got.get(0).size(), "a clear through the subList empties the list's first two");
        assertThrows(UnsupportedOperationException.class, () -> got.get(3).add(x));
    }

    static Object clearsATailOfItsArgument(List<Tensor> xs) {
        Tensor first = xs.getFirst().mul(2);
        xs.subList(1, xs.size()).clear();
        xs.reversed().add(first);
        return first;
    }

    @Test
    void aViewOfAnArgumentChangesTheCallersList() {
        assertChangesTheCallersListAsEager(Capture11RegressionTest::clearsATailOfItsArgument);
    }

    // ---- downstream collectors: mapping, filtering, partitioningBy(predicate, downstream), sums and averages ----

    static final List<String> CALLS = new ArrayList<>();

    static Object collectsWithDownstreams(Tensor x) {
        List<String> names = List.of("conv", "bn", "fc", "relu", "bias", "w");
        Map<Integer, List<String>> byLength = names.stream().collect(Collectors.groupingBy(String::length, Collectors.mapping(s -> {
            CALLS.add("map " + s);                    // Java maps each item as it comes, between the classifier's calls
            return s.toUpperCase();
        }, Collectors.toList())));
        Map<Boolean, Set<String>> firsts = names.stream().collect(Collectors.partitioningBy(s -> s.length() > 2,
                Collectors.mapping(s -> s.substring(0, 1), Collectors.toSet())));
        Map<Boolean, Long> counts = names.stream().collect(Collectors.partitioningBy(s -> s.contains("b"), Collectors.counting()));
        Map<Character, Double> averages = names.stream().collect(Collectors.groupingBy(s -> s.charAt(0), TreeMap::new,
                Collectors.averagingDouble(s -> s.length() * 0.1)));
        Map<Integer, Integer> sums = names.stream().collect(Collectors.groupingBy(String::length, Collectors.summingInt(s -> s.charAt(0))));
        Map<Integer, String> joined = names.stream().collect(Collectors.groupingBy(String::length,
                Collectors.filtering(s -> !s.startsWith("b"), Collectors.joining("+", "<", ">"))));
        long longOnes = names.stream().collect(Collectors.filtering(s -> s.length() > 2, Collectors.counting()));
        Map<Integer, String> merged = names.stream().collect(Collectors.toMap(String::length, s -> s, (a, b) -> a + "|" + b, TreeMap::new));
        Tensor scaled = x.mul(longOnes).add(sums.get(2)).mul(averages.get('b'));
        return List.of(scaled, byLength, firsts, counts, averages, sums, joined, merged, List.copyOf(CALLS));
    }

    @Test
    void downstreamCollectorsAreTracedItemByItem() { // before: GB0003 "call to java.util.stream.Collectors.mapping() (not known to be pure)"
        Tensor x = Tensor.randn(3);
        Object eager = collectsWithDownstreams(x);
        CALLS.clear();
        CompileCounter cc = new CompileCounter();
        Object got = Ember.compile((Fn1<Tensor, Object>) Capture11RegressionTest::collectsWithDownstreams, Options.backend(cc)).apply(x);
        Compiled.assertSame(eager, got, "results, maps in eager's order and classes, the mapper's calls in eager's order");
        assertEquals(1, cc.frameCount(), "frames");
        CALLS.clear();
        assertEquals(0, graphBreaks(Capture11RegressionTest::collectsWithDownstreams, x), "graph breaks");
        CALLS.clear();
    }

    // ---- Objects.isNull / nonNull of a tensor or a list: known while tracing ----

    static Object filtersNulls(Tensor x) {
        List<Tensor> maybe = java.util.Arrays.asList(x.sin(), null, x.cos(), null);
        Tensor sum = maybe.stream().filter(java.util.Objects::nonNull).reduce(x.mul(0), Tensor::add);
        long missing = maybe.stream().filter(java.util.Objects::isNull).count();
        return sum.add(missing).add(java.util.Objects.isNull(maybe) ? 1 : 0);
    }

    @Test
    void nullChecksOfTracedValuesDoNotBreak() { // before: GB0003 "passing Tensor f32[3] to java.util.Objects.nonNull()"
        Tensor x = Tensor.randn(3);
        CompileCounter cc = assertAsEager(Capture11RegressionTest::filtersNulls, x);
        assertEquals(1, cc.frameCount(), "frames");
        assertEquals(0, graphBreaks(Capture11RegressionTest::filtersNulls, x), "graph breaks");
    }

    // ---- an iterator that removed, live across a graph break ----

    static Object removesAcrossABreak(Tensor x) {
        List<Tensor> xs = new ArrayList<>(List.of(x.mul(1), x.neg(), x.mul(3), x.exp()));
        Iterator<Tensor> it = xs.iterator();
        int i = 0;
        Tensor acc = x.mul(0);
        while (it.hasNext()) {
            Tensor t = it.next();
            if (i++ % 2 == 1) it.remove();
            dev.ember.Ember.graphBreak();
            acc = acc.add(t);
        }
        return List.of(acc, xs);
    }

    static Object removesAfterABreak(Tensor x) {
        List<Tensor> xs = new ArrayList<>(List.of(x.mul(1), x.neg(), x.mul(3), x.exp()));
        ListIterator<Tensor> it = xs.listIterator();
        int i = 0;
        while (it.hasNext()) {
            Tensor t = it.next();
            dev.ember.Ember.graphBreak();            // the resumed iterator's last item is t: remove and set act on it
            if (i++ % 2 == 1) it.remove();
            else it.set(t.mul(2));
        }
        try {
            it.remove();                              // removed already: IllegalStateException, as eager's
        } catch (IllegalStateException e) {
            xs.add(x.neg());
        }
        return xs;
    }

    @Test
    void anIteratorThatRemovedSurvivesABreak() { // before: its state was not carried (the frame ran eagerly)
        Tensor x = Tensor.randn(3);
        for (Fn1<Tensor, Object> f : List.<Fn1<Tensor, Object>>of(Capture11RegressionTest::removesAcrossABreak, Capture11RegressionTest::removesAfterABreak)) {
            CompileCounter cc = assertAsEager(f, x);
            org.junit.jupiter.api.Assertions.assertTrue(cc.frameCount() >= 2, "compiled around the breaks: " + cc.frameCount());
            Ember.reset();
        }
    }
}
