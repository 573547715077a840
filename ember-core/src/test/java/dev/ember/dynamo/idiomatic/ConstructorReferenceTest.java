package dev.ember.dynamo.idiomatic;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * Constructor references ({@code Box::new}, {@code ArrayList::new}, {@code TreeMap::new}) are
 * traced as the {@code new} and constructor call they stand for, as Dynamo traces a class called
 * as a function. They were a graph break (GB0015: "a method reference of kind CONSTRUCTOR").
 */
class ConstructorReferenceTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static final class Box {
        final Tensor t;

        Box(Tensor t) { this.t = t; }
    }

    record Scaled(Tensor value, double factor) {}

    static Tensor userClass(Tensor x) {
        Function<Tensor, Box> mk = Box::new;
        return mk.apply(x.relu()).t.mul(2);
    }

    static List<Tensor> jdkList(Tensor x) {
        Supplier<List<Tensor>> fresh = ArrayList::new;
        List<Tensor> out = fresh.get();
        out.add(x.neg());
        out.add(x.exp());
        return out;
    }

    static Map<Integer, Long> groupedIntoATreeMap(Tensor x) {
        return Stream.of(x, x.sum(0), x.sum()).collect(Collectors.groupingBy(Tensor::dim, TreeMap::new, Collectors.counting()));
    }

    static Tensor recordConstructor(Tensor x) {
        java.util.function.BiFunction<Tensor, Double, Scaled> mk = Scaled::new;
        Scaled s = mk.apply(x, 3.0);
        return s.value().mul(s.factor());
    }

    private static ExplainOutput noBreakSameAsEager(Fn1<Tensor, ?> fn, Tensor x) {
        Idioms.sameOutcome(Idioms.run(fn, x), Idioms.run(Ember.compile(fn), x), "compiled vs eager");
        Ember.reset();
        ExplainOutput e = Ember.explain(fn).with(x);
        assertEquals(0, e.graphBreakCount(), e.toString());
        return e;
    }

    @Test
    void aUserClassConstructorReference() {
        assertEquals(2, noBreakSameAsEager(ConstructorReferenceTest::userClass, Tensor.randn(2, 3)).opCount());
    }

    @Test
    void arrayListNewAsASupplier() {
        Fn1<Tensor, List<Tensor>> fn = ConstructorReferenceTest::jdkList;
        noBreakSameAsEager(fn, Tensor.randn(2, 3));
        assertEquals(ArrayList.class, Ember.compile(fn).apply(Tensor.randn(2, 3)).getClass());
    }

    @Test
    void aRecordsConstructorReference() {
        noBreakSameAsEager(ConstructorReferenceTest::recordConstructor, Tensor.randn(2, 3));
    }

    @Test
    void treeMapNewInAGroupingCollectorCompilesInOneGraph() {
        // the constructor reference and the grouping collectors (groupingBy with a map factory, counting) are traced
        Fn1<Tensor, Map<Integer, Long>> fn = ConstructorReferenceTest::groupedIntoATreeMap;
        Tensor x = Tensor.randn(2, 3);
        Map<Integer, Long> got = Ember.compile(fn).apply(x);
        assertInstanceOf(TreeMap.class, got);
        assertEquals(fn.apply(x), got);
        Ember.reset();
        ExplainOutput e = Ember.explain(fn).with(x);
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertEquals(1, e.graphCount(), e.toString());
    }
}
