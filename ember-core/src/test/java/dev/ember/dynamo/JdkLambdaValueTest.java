package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A serializable lambda of the JDK's own ({@code Comparator.comparingInt(...)}, whose class is in a
 * package java.base does not open) reaching the tracer as a value, as an argument or as a local a
 * resume method receives: Ember cannot read its SerializedLambda, so it is an opaque object (calls on
 * it break the graph) instead of an internal error while compiling.
 */
class JdkLambdaValueTest {

    @AfterEach
    void reset() { Ember.reset(); }

    record Item(String name, int rank) implements Comparable<Item> {
        public int compareTo(Item o) { return name.compareTo(o.name); }
    }

    static Tensor compareWith(Tensor x, Comparator<Item> byRank) {
        return byRank.compare(new Item("a", 1), new Item("b", 2)) < 0 ? x.add(1) : x.sub(1);
    }

    /** The comparator made in the frame is live across the break at the first sort: the resume method receives it. */
    static List<Object> sortAcrossBreak(Tensor x, List<Item> items) {
        List<Item> byName = new ArrayList<>(items);
        byName.sort(null);
        List<Item> byRank = new ArrayList<>(items);
        byRank.sort(Comparator.comparingInt(Item::rank).reversed());
        return List.of(x.add(1), byName, byRank);
    }

    @Test
    void aJdkComparatorArgumentIsAnOpaqueObject() {
        Fn2<Tensor, Comparator<Item>, Tensor> fn = JdkLambdaValueTest::compareWith;
        CompileCounter cc = new CompileCounter();
        Fn2<Tensor, Comparator<Item>, Tensor> compiled = Ember.compile(fn, Options.backend(cc));
        Tensor x = Tensor.randn(3);
        Comparator<Item> byRank = Comparator.comparingInt(Item::rank);
        assertTrue(fn.apply(x, byRank).sameData(compiled.apply(x, byRank)));
    }

    @Test
    void aJdkComparatorLiveAcrossABreakReachesTheResumeMethod() {
        Fn2<Tensor, List<Item>, List<Object>> fn = JdkLambdaValueTest::sortAcrossBreak;
        Fn2<Tensor, List<Item>, List<Object>> compiled = Ember.compile(fn, Options.backend(new CompileCounter()));
        Tensor x = Tensor.randn(3);
        List<Item> items = List.of(new Item("b", 1), new Item("a", 3), new Item("c", 2));
        List<Object> expected = fn.apply(x, items), actual = compiled.apply(x, items);
        assertTrue(((Tensor) expected.get(0)).sameData((Tensor) actual.get(0)));
        assertEquals(expected.subList(1, 3), actual.subList(1, 3));
    }
}
