package dev.ember.dynamo.idiomatic;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static dev.ember.dynamo.idiomatic.Idioms.breaksAt;
import static dev.ember.dynamo.idiomatic.Idioms.check;
import static dev.ember.dynamo.idiomatic.Idioms.checkThrows;
import static dev.ember.dynamo.idiomatic.Idioms.oneGraph;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * java.util.stream as Java engineers write it around tensors: IntStream ranges, map/filter/reduce,
 * toList, Collectors (toMap, groupingBy, partitioningBy, joining), array streams, bounded iterate.
 * Each program runs eagerly and compiled; all are one graph.
 */
class StreamProgramsTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static final Tensor X = Tensor.randn(4, 3), Y = Tensor.randn(4, 3);

    // ------------------------------------------------------------------ programs

    static Tensor weightedSum(Tensor x) {
        return IntStream.range(0, 4).mapToObj(i -> x.mul(i + 1)).reduce(Tensor::add).orElseThrow();
    }

    static List<Tensor> activations(List<Tensor> inputs) {
        return inputs.stream().map(Tensor::relu).map(t -> t.add(0.5)).toList();
    }

    static Map<String, Tensor> namedOutputs(Tensor x) {
        return Stream.of("sin", "cos", "tanh").collect(Collectors.toMap(Function.identity(), name -> switch (name) {
            case "sin" -> x.sin();
            case "cos" -> x.cos();
            default -> x.tanh();
        }, (a, b) -> a, TreeMap::new));
    }

    static Map<Integer, Long> countByRank(Tensor x, Tensor y) {
        return Stream.of(x, y, x.sum(0), y.sum(), x.sum(1)).collect(Collectors.groupingBy(Tensor::dim, TreeMap::new, Collectors.counting()));
    }

    static List<Object> shapesJoined(Tensor x, Tensor y) {
        String shapes = Stream.of(x, y.t(), x.sum(0)).map(t -> Arrays.toString(t.shape())).collect(Collectors.joining(" x ", "<", ">"));
        return List.of(shapes, x.add(y));
    }

    static Tensor sumOfSizes(Tensor x, Tensor y) {
        int total = Stream.of(x, y).mapToInt(t -> t.size(0) * t.size(1)).sum();
        int widest = Stream.of(x, y.t()).mapToInt(t -> t.size(1)).max().orElse(0);
        return x.mul(total).add(widest);
    }

    static List<Tensor> boxedRangeClosed(Tensor x) {
        return IntStream.rangeClosed(1, 3).boxed().map(k -> x.pow(k)).collect(Collectors.toList());
    }

    static List<Object> filterCountMatch(Tensor x, Tensor y) {
        List<Tensor> all = List.of(x, y, x.sum(), y.mean(0));
        long vectors = all.stream().filter(t -> t.dim() == 1).count();
        boolean anyScalar = all.stream().anyMatch(t -> t.dim() == 0);
        boolean noneCube = all.stream().noneMatch(t -> t.dim() == 3);
        return List.of(vectors, anyScalar, noneCube, all.stream().filter(t -> t.dim() == 2).reduce(Tensor::mul).orElseThrow());
    }

    static Tensor arrayOfWeights(Tensor x) {
        Tensor[] weights = {Tensor.ones(3, 3).mul(0.5), Tensor.eye(3), Tensor.ones(3, 3).mul(-0.25)};
        return Arrays.stream(weights).map(x::matmul).reduce(x, Tensor::add);
    }

    static Tensor iterateHalvings(Tensor x) {
        return Stream.iterate(x, t -> t.mul(0.5)).limit(4).reduce(Tensor.zeros(4, 3), Tensor::add);
    }

    static Tensor iterateBounded(Tensor x) {
        return Stream.iterate(1, i -> i <= 3, i -> i + 1).map(i -> x.mul(i)).reduce(Tensor::add).orElseThrow();
    }

    static Tensor threeArgumentReduce(Tensor x) {
        return Stream.of(1.0, 2.0, 3.0).reduce(x.mul(0), (acc, s) -> acc.add(x.mul(s)), Tensor::add);
    }

    static Map<Boolean, List<Tensor>> partitionBySize(Tensor x, Tensor y) {
        return Stream.of(x, y.sum(1), x.mean(), y).collect(Collectors.partitioningBy(t -> t.numel() > 4));
    }

    static Tensor emptyStreamThrows(Tensor x) {
        return Stream.of(x, x.neg()).filter(t -> t.dim() > 2).findFirst().orElseThrow(() -> new IllegalStateException("no input of rank > 2 among " + 2));
    }

    // ------------------------------------------------------------------ tests

    @Test
    void intRangeMapToObjReduce() {
        oneGraph(check((Fn1<Tensor, Tensor>) StreamProgramsTest::weightedSum, X), 7);
    }

    @Test
    void mapChainToList() {
        oneGraph(check((Fn1<List<Tensor>, List<Tensor>>) StreamProgramsTest::activations, List.of(X, Y)), 4);
    }

    @Test
    void collectorsToMapIntoATreeMap() {
        Fn1<Tensor, Map<String, Tensor>> fn = StreamProgramsTest::namedOutputs;
        oneGraph(check(fn, X), 3);   // Function.identity(), the switch lambda, the merge function and TreeMap::new, all traced
        assertEquals(List.of("cos", "sin", "tanh"), List.copyOf(Ember.compile(fn).apply(X).keySet()));
    }

    @Test
    void collectorsGroupingByCounting() {
        Fn2<Tensor, Tensor, Map<Integer, Long>> fn = StreamProgramsTest::countByRank;
        // TreeMap::new and Collectors.counting are traced (before capture10: a break naming counting())
        oneGraph(check(fn, X, Y));
        assertEquals(Map.of(0, 1L, 1, 2L, 2, 2L), Ember.compile(fn).apply(X, Y));
    }

    @Test
    void collectorsJoiningShapes() {
        Fn2<Tensor, Tensor, List<Object>> fn = StreamProgramsTest::shapesJoined;
        oneGraph(check(fn, X, Y), 3);   // y.t(), x.sum(0), x.add(y); the joined text is a constant of the trace
        assertEquals("<[4, 3] x [3, 4] x [3]>", fn.apply(X, Y).getFirst());
    }

    @Test
    void mapToIntSumAndMax() {
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) StreamProgramsTest::sumOfSizes, X, Y), 3);   // y.t(), mul, add
    }

    @Test
    void rangeClosedBoxedToList() {
        oneGraph(check((Fn1<Tensor, List<Tensor>>) StreamProgramsTest::boxedRangeClosed, X), 3);
    }

    @Test
    void filterCountAnyNoneMatch() {
        oneGraph(check((Fn2<Tensor, Tensor, List<Object>>) StreamProgramsTest::filterCountMatch, X, Y));
    }

    @Test
    void arrayStreamWithABoundMethodReference() {
        oneGraph(check((Fn1<Tensor, Tensor>) StreamProgramsTest::arrayOfWeights, X));
    }

    @Test
    void iterateWithLimit() {
        // the two-argument Stream.iterate (unbounded until limit: each item made as it is pulled) and the bounded three-argument form are traced
        oneGraph(check((Fn1<Tensor, Tensor>) StreamProgramsTest::iterateHalvings, X), 8);   // zeros, three muls, four adds
        oneGraph(check((Fn1<Tensor, Tensor>) StreamProgramsTest::iterateBounded, X), 5);   // three muls, two adds
    }

    @Test
    void reduceWithIdentityAccumulatorCombiner() {
        oneGraph(check((Fn1<Tensor, Tensor>) StreamProgramsTest::threeArgumentReduce, X));
    }

    @Test
    void collectorsPartitioningBy() {
        oneGraph(check((Fn2<Tensor, Tensor, Map<Boolean, List<Tensor>>>) StreamProgramsTest::partitionBySize, X, Y));
    }

    @Test
    void orElseThrowWithASupplierThrowsAsEager() {
        Throwable t = checkThrows((Fn1<Tensor, Tensor>) StreamProgramsTest::emptyStreamThrows, X);
        assertEquals("no input of rank > 2 among 2", t.getMessage());
    }
}
