package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A list argument's class is guarded exactly (test_misc.py::test_callpacked: Dynamo compiles a
 * list and a tuple apart): what the trace does with a list depends on it (an ArrayList's appends
 * are replayed on the caller's list; List.of throws on add and set; Arrays.asList on add only).
 * Arrays.asList made in the trace is a fixed-size view of its array, as in Java.
 */
class ListClassGuardTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor callPacked(List<Tensor> args) {
        Tensor a = args.get(0), b = args.get(1), c = args.get(2);
        return a.sub(b.mul(c));
    }

    static Tensor appendsToItsArgument(List<Tensor> seen, Tensor x) {
        Tensor y = x.relu();
        seen.add(y);
        return y.mul(2);
    }

    static List<Object> asListWritesThrough(Tensor x) {
        Tensor[] parts = {x, x.neg()};
        List<Tensor> view = Arrays.asList(parts);
        view.set(1, x.mul(3));
        return List.of(parts[1], view.get(1), view.size());
    }

    static List<Tensor> returnsAnAsList(Tensor x) {
        return Arrays.asList(x.add(1), x.sub(1));
    }

    static Tensor addsToAnAsList(Tensor x) {
        List<Tensor> fixed = Arrays.asList(x, x);
        fixed.add(x.neg());
        return fixed.getLast();
    }

    private static final Tensor A = Tensor.randn(3, 3), B = Tensor.randn(3, 3), C = Tensor.randn(3, 3);

    @Test
    void listOfAndArraysAsListCompileApartAndEachCallHitsItsOwnEntry() {
        CompileCounter cc = new CompileCounter();
        Fn1<List<Tensor>, Tensor> fn = ListClassGuardTest::callPacked;
        Fn1<List<Tensor>, Tensor> compiled = Ember.compile(fn, Options.backend(cc));
        List<List<Tensor>> calls = List.of(List.of(A, B, C), Arrays.asList(A, B, C), List.of(A, B, C), Arrays.asList(A, B, C), new ArrayList<>(List.of(C, B, A)));
        for (List<Tensor> args : calls) assertTrue(fn.apply(args).sameData(compiled.apply(args)), args.getClass().getName());
        assertEquals(3, cc.frameCount(), "one graph per list class: List.of, Arrays.asList, ArrayList");
        assertEquals(6, cc.opCount());
    }

    @Test
    void aListOfArgumentThatTheTraceAppendsToThrowsAsEagerDoes() {
        Fn2<List<Tensor>, Tensor, Tensor> fn = ListClassGuardTest::appendsToItsArgument;
        Fn2<List<Tensor>, Tensor, Tensor> compiled = Ember.compile(fn);
        List<Tensor> grows = new ArrayList<>();
        assertTrue(fn.apply(new ArrayList<>(), A).sameData(compiled.apply(grows, A)));
        assertEquals(1, grows.size(), "the append replayed on the caller's ArrayList");
        // the ArrayList's entry replays an add: on List.of that add would throw after the graph; the class guard sends it to its own trace
        assertThrows(UnsupportedOperationException.class, () -> fn.apply(List.of(), A));
        assertThrows(UnsupportedOperationException.class, () -> compiled.apply(List.of(), A));
        List<Tensor> again = new ArrayList<>();
        compiled.apply(again, B);
        assertEquals(1, again.size());
    }

    @Test
    void arraysAsListInTheTraceIsAViewOfItsArray() {
        Fn1<Tensor, List<Object>> fn = ListClassGuardTest::asListWritesThrough;
        ExplainOutput e = Ember.explain(fn).with(A);
        assertEquals(0, e.graphBreakCount(), e.toString());
        List<Object> expected = fn.apply(A), got = Ember.compile(fn).apply(A);
        assertTrue(((Tensor) expected.get(0)).sameData((Tensor) got.get(0)), "set through the list wrote the array");
        assertTrue(((Tensor) got.get(0)).sameData(A.mul(3)));
        assertTrue(((Tensor) expected.get(1)).sameData((Tensor) got.get(1)));
        assertEquals(expected.get(2), got.get(2));
    }

    @Test
    void anArraysAsListReturnedIsOneAgainAndAddThrows() {
        Fn1<Tensor, List<Tensor>> fn = ListClassGuardTest::returnsAnAsList;
        List<Tensor> expected = fn.apply(A), got = Ember.compile(fn).apply(A);
        assertEquals(expected.getClass(), got.getClass());
        got.set(0, B);                                              // fixed size, but settable, as eager's
        assertThrows(UnsupportedOperationException.class, () -> got.add(B));
        assertTrue(expected.get(1).sameData(got.get(1)));
        Fn1<Tensor, Tensor> adds = ListClassGuardTest::addsToAnAsList;
        assertThrows(UnsupportedOperationException.class, () -> adds.apply(A));
        assertThrows(UnsupportedOperationException.class, () -> Ember.compile(adds).apply(A));
    }
}
