package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.function.BinaryOperator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * java.util.stream over traced lists, sets, map views and arrays, Optional, and the immutable-copy
 * factories (Set.copyOf, List.copyOf, Map.copyOf) are traced, not graph breaks: the lambdas'
 * tensor ops land in the graph, items go through the steps one at a time as in Java (side effects
 * in the order eager code makes them, limit pulling no further), and results equal eager's.
 */
class StreamTraceTest {

    @AfterEach
    void reset() { Ember.reset(); }

    // ------------------------------------------------------------------ programs

    static Tensor reduceTensors(Tensor a, Tensor b) {
        BinaryOperator<Tensor> add = Tensor::add;
        return List.of(a, b, a.mul(2)).stream().reduce(add).orElseThrow();
    }

    static List<Tensor> mapFilterToList(Tensor a, Tensor b) {
        return List.of(a, b.sum(), b).stream().map(t -> t.mul(2)).filter(t -> t.dim() == 2).toList();
    }

    static Tensor mapToIntSum(Tensor a, Tensor b) {
        int dims = Stream.of(a, b, a.sum()).mapToInt(Tensor::dim).sum();
        return a.mul(dims);
    }

    static List<Tensor> collectIsMutable(Tensor a, Tensor b) {
        List<Tensor> out = Arrays.stream(new Tensor[] {a, b}).map(Tensor::relu).collect(Collectors.toList());
        out.add(a.neg());
        return out;
    }

    /** peek, map and forEach interleave per item: p0 m0 f0 p1 m1 f1, as Java's sequential stream runs them. */
    static List<Object> stepsRunPerItem(Tensor a, Tensor b) {
        List<Object> log = new ArrayList<>();
        List.of(a, b).stream().peek(t -> log.add("peek " + t.dim())).map(t -> {
            log.add("map");
            return t.exp();
        }).forEach(log::add);
        return log;
    }

    /** limit(1) pulls one item only: the second is never peeked. */
    static List<Object> limitStopsPulling(Tensor a, Tensor b) {
        List<Object> seen = new ArrayList<>();
        List<Tensor> first = Stream.of(a, b, a).peek(seen::add).limit(1).toList();
        seen.add(first.getFirst().add(1));
        return seen;
    }

    static Tensor intRange(Tensor x) {
        return IntStream.range(1, 4).mapToObj(i -> x.mul(i)).reduce(x.neg(), Tensor::add);
    }

    static List<Object> matchAndFind(Tensor a, Tensor b) {
        List<Tensor> xs = List.of(a, b.sum(), b);
        boolean anyScalar = xs.stream().anyMatch(t -> t.dim() == 0);
        boolean allScalar = xs.stream().allMatch(t -> t.dim() == 0);
        long big = xs.stream().filter(t -> t.numel() > 1).count();
        Tensor firstScalar = xs.stream().filter(t -> t.dim() == 0).findFirst().map(t -> t.add(1)).orElse(a);
        Optional<Tensor> none = xs.stream().filter(t -> t.dim() == 5).findFirst();
        return List.of(anyScalar, allScalar, big, firstScalar.mul(2), none.isPresent());
    }

    static Tensor valuesOfAMap(Tensor a, Tensor b) {
        Map<String, Tensor> m = new LinkedHashMap<>();
        m.put("a", a);
        m.put("b", b.mul(3));
        return m.values().stream().reduce(Tensor::sub).orElseThrow();
    }

    static Tensor streamUsedTwice(Tensor a) {
        Stream<Tensor> s = Stream.of(a, a);
        s.count();
        return s.reduce(Tensor::add).orElseThrow();
    }

    static Tensor emptyOrElseThrow(Tensor a) {
        return Stream.of(a).filter(t -> t.dim() == 7).reduce(Tensor::add).orElseThrow();
    }

    static Tensor distinctBreaks(Tensor a) {
        return a.mul(Stream.of(a, a.neg(), a).distinct().count());
    }

    static List<Object> immutableCopies(Tensor a) {
        List<String> names = List.of("local", "lsh", "local");
        Set<String> distinct = Set.copyOf(names);
        Map<String, Tensor> m = new LinkedHashMap<>();
        m.put("z", a.mul(2));
        m.put("y", a.add(1));
        Map<String, Tensor> frozen = Map.copyOf(m);
        m.put("x", a);
        List<Tensor> copied = List.copyOf(new ArrayList<>(List.of(a, a.neg())));
        return List.of(distinct.size(), distinct.equals(Set.of("lsh", "local")), frozen.size(), frozen.get("z"), frozen.get("y").add(frozen.get("z")),
                copied.get(1), Map.copyOf(frozen) == frozen, Set.copyOf(distinct) == distinct);
    }

    /** flatMap pulls each inner stream lazily: limit(3) after it stops inside the second one, whose last item is never peeked. */
    static List<Object> flatMapPullsLazily(Tensor a, Tensor b) {
        List<Object> seen = new ArrayList<>();
        List<Tensor> firstThree = Stream.of(List.of(a, b), List.of(a.neg(), b.neg()), List.of(a))
                .flatMap(l -> l.stream().peek(seen::add)).limit(3).map(t -> t.mul(2)).toList();
        seen.add(firstThree.size());
        seen.addAll(firstThree);
        return seen;
    }

    /** sorted() buffers: every item is peeked before the first is mapped, and they are mapped in sorted order. */
    static List<Object> sortedIsABarrier(Tensor a, Tensor b) {
        List<Object> log = new ArrayList<>();
        List<Tensor> scaled = Stream.of(3, 1, 2).peek(i -> log.add("peek " + i)).sorted(Comparator.reverseOrder()).map(i -> {
            log.add("map " + i);
            return a.mul(i);
        }).toList();
        log.addAll(scaled);
        return log;
    }

    /** Sizes sorted in place (Collections.sort) and a concatenated stream sorted in reverse. */
    static List<Object> sortAndConcatSizes(Tensor a, Tensor b) {
        List<Integer> sizes = new ArrayList<>(List.of(a.size(1), b.size(0), 1));
        Collections.sort(sizes);
        List<Integer> down = Stream.concat(sizes.stream(), Stream.of(0)).sorted(Collections.reverseOrder()).toList();
        return List.of(sizes, down, a.mul(down.getFirst()));
    }

    /** A comparator the trace cannot evaluate (a lambda over tensors): sorted() breaks the graph, naming itself. */
    static Tensor sortedByALambda(Tensor a, Tensor b) {
        return Stream.of(a, b.sum()).sorted((x, y) -> Integer.compare(x.dim(), y.dim())).findFirst().orElseThrow().add(1);
    }

    static Tensor sortedByDataBreaks(Tensor a, Tensor b) {
        return Stream.of(a, b).sorted((x, y) -> Double.compare(x.sum().item(), y.sum().item())).findFirst().orElseThrow().add(1);
    }

    static Set<String> returnsACopiedSet(Tensor a) {
        return Set.copyOf(List.of("b", "a", "b", "c"));
    }

    /** docs/graph-breaks/GB0003.md's example: a stream over a list passed in. */
    static Tensor total(List<Tensor> parts) {
        return parts.stream().map(t -> t.mul(2)).reduce(Tensor::add).orElseThrow();   // one graph
    }

    // ------------------------------------------------------------------ helpers

    private static final Tensor A = Tensor.randn(3, 4), B = Tensor.randn(3, 4);

    private static void assertSameValue(Object expected, Object got, String where) {
        switch (expected) {
            case Tensor t -> assertTrue(got instanceof Tensor g && t.sub(g).abs().amax().item() <= 1e-5 * Math.max(1, t.abs().amax().item()),   // the compiled sum may add in another order
                    where + ": " + t + " vs " + got);
            case List<?> l -> {
                assertInstanceOf(List.class, got, where);
                List<?> g = (List<?>) got;
                assertEquals(l.size(), g.size(), where + ": " + l + " vs " + g);
                for (int i = 0; i < l.size(); i++) assertSameValue(l.get(i), g.get(i), where + "[" + i + "]");
            }
            case null -> assertEquals(null, got, where);
            default -> assertEquals(expected, got, where);
        }
    }

    private static ExplainOutput traced(Fn2<Tensor, Tensor, ?> fn) {
        ExplainOutput e = Ember.explain(fn).with(A, B);
        Ember.reset();
        Object expected = fn.apply(A, B), got = Ember.compile(fn).apply(A, B);
        assertSameValue(expected, got, "compiled vs eager");
        return e;
    }

    private static void noBreak(ExplainOutput e, int ops) {
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertEquals(1, e.graphCount(), e.toString());
        assertEquals(ops, e.opCount(), e.toString());
    }

    // ------------------------------------------------------------------ tests

    @Test
    void reduceOverAListIsTheAddsInOneGraph() {
        noBreak(traced(StreamTraceTest::reduceTensors), 3);       // mul, add, add: test_functions.py::test_reduce's count
    }

    @Test
    void theDocsExampleStreamsAListPassedIn() {
        Fn1<List<Tensor>, Tensor> fn = StreamTraceTest::total;
        List<Tensor> parts = List.of(A, B, A.neg());
        noBreak(Ember.explain(fn).with(parts), 5);                // three muls, two adds
        assertTrue(fn.apply(parts).sub(Ember.compile(fn).apply(parts)).abs().amax().item() <= 1e-6);
    }

    @Test
    void mapFilterAndToListTraceTheLambdas() {
        noBreak(traced(StreamTraceTest::mapFilterToList), 4);     // sum, and mul for each of the three; the filter keeps two
        assertEquals(2, mapFilterToList(A, B).size());
    }

    @Test
    void mapToIntAndSumAreKnownWhileTracing() {
        noBreak(traced(StreamTraceTest::mapToIntSum), 2);         // sum, mul by the constant 4
    }

    @Test
    void collectToListMakesAListThatCanGrow() {
        ExplainOutput e = traced(StreamTraceTest::collectIsMutable);
        noBreak(e, 3);
        Object got = Ember.compile((Fn2<Tensor, Tensor, List<Tensor>>) StreamTraceTest::collectIsMutable).apply(A, B);
        assertEquals(ArrayList.class, got.getClass());
    }

    @Test
    void eachItemGoesThroughEveryStepBeforeTheNext() {
        noBreak(traced(StreamTraceTest::stepsRunPerItem), 2);
        List<Object> log = stepsRunPerItem(A, B);
        assertEquals(List.of("peek 2", "map"), log.subList(0, 2));
        assertEquals("peek 2", log.get(3), "the second item is peeked after the first went through forEach");
    }

    @Test
    void limitPullsNoMoreItemsThanItPasses() {
        noBreak(traced(StreamTraceTest::limitStopsPulling), 1);
        assertEquals(2, limitStopsPulling(A, B).size());
    }

    @Test
    void intRangeMapToObjAndReduceWithIdentity() {
        Fn1<Tensor, Tensor> fn = StreamTraceTest::intRange;
        ExplainOutput e = Ember.explain(fn).with(A);
        noBreak(e, 7);                                            // neg, three muls, three adds
        assertTrue(fn.apply(A).sub(Ember.compile(fn).apply(A)).abs().amax().item() <= 1e-6);
    }

    @Test
    void matchCountFindFirstAndOptional() {
        noBreak(traced(StreamTraceTest::matchAndFind), 3);        // b.sum(), the add Optional.map makes, the mul
    }

    @Test
    void aStreamOverAMapsValues() {
        noBreak(traced(StreamTraceTest::valuesOfAMap), 2);
    }

    @Test
    void aStreamUsedTwiceThrowsAsInJava() {
        Fn1<Tensor, Tensor> fn = StreamTraceTest::streamUsedTwice;
        IllegalStateException eager = assertThrows(IllegalStateException.class, () -> fn.apply(A));
        IllegalStateException compiled = assertThrows(IllegalStateException.class, () -> Ember.compile(fn).apply(A));
        assertEquals(eager.getMessage(), compiled.getMessage());
    }

    @Test
    void anEmptyOptionalThrowsNoSuchElement() {
        Fn1<Tensor, Tensor> fn = StreamTraceTest::emptyOrElseThrow;
        NoSuchElementException eager = assertThrows(NoSuchElementException.class, () -> fn.apply(A));
        NoSuchElementException compiled = assertThrows(NoSuchElementException.class, () -> Ember.compile(fn).apply(A));
        assertEquals(eager.getMessage(), compiled.getMessage());
    }

    @Test
    void anUntracedStreamOperationBreaksNamingIt() {
        Fn1<Tensor, Tensor> fn = StreamTraceTest::distinctBreaks;
        ExplainOutput e = Ember.explain(fn).with(A);
        assertTrue(e.graphBreakCount() >= 1, e.toString());
        assertTrue(e.breakReasons().getFirst().reason().contains("Stream.distinct()"), e.toString());
        Ember.reset();
        assertTrue(fn.apply(A).sameData(Ember.compile(fn).apply(A)), "distinct by identity: a twice counts once, eager and compiled");
    }

    @Test
    void immutableCopiesAreTracedAsJavaMakesThem() {
        Fn1<Tensor, List<Object>> fn = StreamTraceTest::immutableCopies;
        ExplainOutput e = Ember.explain(fn).with(A);
        assertEquals(0, e.graphBreakCount(), e.toString());
        List<Object> expected = fn.apply(A), got = Ember.compile(fn).apply(A);
        assertSameValue(expected, got, "copies");
        assertEquals(List.of(2, true, 2), expected.subList(0, 3));
        assertEquals(List.of(true, true), expected.subList(6, 8), "an immutable map or set is its own copy");
    }

    @Test
    void flatMapPullsTheInnerStreamsLazily() {
        noBreak(traced(StreamTraceTest::flatMapPullsLazily), 5);  // two negs, three muls
        assertEquals(7, flatMapPullsLazily(A, B).size(), "three peeked, the count, the three results");
    }

    @Test
    void sortedPullsEveryItemBeforePassingOne() {
        noBreak(traced(StreamTraceTest::sortedIsABarrier), 3);
        assertEquals(List.of("peek 3", "peek 1", "peek 2", "map 3", "map 2", "map 1"), sortedIsABarrier(A, B).subList(0, 6));
    }

    @Test
    void sortingValuesAndConcatenatingStreamsAreTraced() {
        noBreak(traced(StreamTraceTest::sortAndConcatSizes), 1);
        assertEquals(List.of(List.of(1, 3, 4), List.of(4, 3, 1, 0)), sortAndConcatSizes(A, B).subList(0, 2));
    }

    @Test
    void sortingByALambdaIsTracedAndByDataBreaks() {
        // the program's comparator is traced while Java's sort runs: dims are known, so the order is
        Fn2<Tensor, Tensor, Tensor> fn = StreamTraceTest::sortedByALambda;
        ExplainOutput e = Ember.explain(fn).with(A, B);
        assertEquals(0, e.graphBreakCount(), e.toString());
        Ember.reset();
        assertTrue(fn.apply(A, B).allclose(Ember.compile(fn).apply(A, B)), "b's sum (inductor adds in another order)");
        // a comparator on tensor data gives answers the trace does not know: a break, eager's order
        Ember.reset();
        Fn2<Tensor, Tensor, Tensor> byData = StreamTraceTest::sortedByDataBreaks;
        assertTrue(Ember.explain(byData).with(A, B).graphBreakCount() >= 1);
        Ember.reset();
        assertTrue(byData.apply(A, B).sameData(Ember.compile(byData).apply(A, B)));
        assertTrue(byData.apply(B, A).sameData(Ember.compile(byData).apply(B, A)));
    }

    @Test
    void aCopiedSetReturnedIsRebuiltInJavasOrder() {
        Fn1<Tensor, Set<String>> fn = StreamTraceTest::returnsACopiedSet;
        Set<String> expected = fn.apply(A), got = Ember.compile(fn).apply(A);
        assertEquals(expected, got);
        assertEquals(List.copyOf(expected), List.copyOf(got), "iteration order: Set.of over new HashSet<>(list).toArray(), as Set.copyOf");
        assertThrows(UnsupportedOperationException.class, () -> got.add("d"));
    }
}
