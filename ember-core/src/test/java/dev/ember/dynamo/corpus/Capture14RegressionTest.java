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
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

import static dev.ember.dynamo.corpus.Capture11RegressionTest.assertAsEager;
import static dev.ember.dynamo.corpus.Capture11RegressionTest.graphBreaks;
import static dev.ember.dynamo.corpus.Capture12RegressionTest.assertOneFrameNoBreak;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Capture session 14's fixes, each failing without it: compiled behaves as eager, with the frame and graph-break counts Dynamo would have. */
class Capture14RegressionTest {

    @AfterEach
    void reset() { Ember.reset(); }

    // ---- an index out of range on an immutable list raises the JDK's own exception in the trace ----

    /** Every caught exception's class and message, beside the sum: the JDK's differ by class (List12's, ListN's, toList's, a subList's). */
    static Object readsPastTheEndOfImmutableLists(Tensor x) {
        List<String> caught = new ArrayList<>();
        Tensor s = x.mul(0);
        List<List<Tensor>> lists = List.of(List.of(x), List.of(x, x.neg()), List.of(x, x, x.sin()), List.of(x, x, x).subList(0, 2),
                List.of(x, x.cos()).stream().toList(), List.copyOf(new ArrayList<>(List.of(x, x, x, x))),
                List.of(x, x, x).stream().collect(Collectors.toUnmodifiableList()), List.of(x, x.abs(), x).reversed());
        for (List<Tensor> l : lists) {
            for (int i : new int[] {-1, l.size(), 7}) {
                try {
                    s = s.add(l.get(i));
                } catch (IndexOutOfBoundsException e) {
                    caught.add(e.getClass().getSimpleName() + ": " + e.getMessage());
                    s = s.add(1);
                }
            }
        }
        return List.of(s, caught);
    }

    static Object readsPastTheEndOfAnInputList(List<Tensor> xs) {
        try {
            return xs.get(xs.size());
        } catch (IndexOutOfBoundsException e) {
            return List.of(xs.get(0).mul(2), e.getClass().getName(), String.valueOf(e.getMessage()));
        }
    }

    static Object setsPastTheEndOfAnImmutableList(Tensor x) {
        List<Tensor> fixed = List.of(x, x.neg());
        try {
            fixed.set(5, x);
            return x;
        } catch (UnsupportedOperationException e) {
            return x.add(1);   // List.of refuses any set, in range or not, before looking at the index
        }
    }

    static Object uncaughtPastTheEnd(Tensor x) {
        List<Tensor> three = List.of(x, x.neg(), x.exp());
        return three.get(3).add(1);
    }

    @Test
    void immutableListsRaiseTheJdksIndexExceptionInTheTrace() {
        assertOneFrameNoBreak(Capture14RegressionTest::readsPastTheEndOfImmutableLists);
        assertOneFrameNoBreak(Capture14RegressionTest::setsPastTheEndOfAnImmutableList);
    }

    @Test
    void inputImmutableListsToo() {
        Tensor x = Tensor.randn(3);
        for (List<Tensor> xs : List.of(List.of(x), List.of(x, x.neg()), List.of(x, x, x), List.of(x, x, x).stream().toList(),
                Collections.nCopies(2, x), Collections.singletonList(x))) {
            Ember.reset();
            CompileCounter cc = assertAsEager(Capture14RegressionTest::readsPastTheEndOfAnInputList, xs);
            assertEquals(1, cc.frameCount(), "frames for " + xs.getClass().getName());
            Ember.reset();
            assertEquals(0, Ember.explain((Fn1<List<Tensor>, Object>) Capture14RegressionTest::readsPastTheEndOfAnInputList).with(xs).graphBreakCount(),
                    "graph breaks for " + xs.getClass().getName());
        }
    }

    static Object queriesAnInputListForNull(List<Tensor> xs) {
        try {
            return List.of(xs.get(0).add(1), xs.contains(null));
        } catch (NullPointerException e) {
            return xs.get(0).sub(1);
        }
    }

    @Test
    void aQueryForNullOnAnInputListIsEagersWhateverMadeIt() {
        // List.of's and toList's lists of three share a class (ListN); only List.of's refuses a query for null
        Tensor x = Tensor.randn(3);
        for (List<Tensor> xs : List.of(List.of(x, x, x), java.util.stream.Stream.of(x, x, x).toList(), List.of(x, x, x))) {
            assertAsEager(Capture14RegressionTest::queriesAnInputListForNull, xs);
        }
        Ember.reset();
        Fn1<List<Tensor>, Object> fn = Capture14RegressionTest::queriesAnInputListForNull;
        Fn1<List<Tensor>, Object> compiled = Ember.compile(fn);
        for (List<Tensor> xs : List.of(java.util.stream.Stream.of(x, x, x).toList(), List.of(x, x, x))) {
            Compiled.assertSame(fn.apply(xs), compiled.apply(xs), "one compiled function called with both");
        }
    }

    @Test
    void uncaughtItLeavesTheFunctionAsEagersDoes() {
        Tensor x = Tensor.randn(3);
        CompileCounter cc = assertAsEager(Capture14RegressionTest::uncaughtPastTheEnd, x);
        assertEquals(1, cc.frameCount(), "frames: the graph runs, then the JDK's exception leaves the frame");
    }

    /**
     * Handed on past a graph break, immutable lists are made again as eager's were: a subList, a
     * reversed view, toList's (which allows null queries); getClass() of each is answered in the trace.
     */
    static Object immutableListsAcrossABreak(Tensor x) {
        List<Tensor> sub = List.of(x, x.neg(), x.sin()).subList(0, 2);
        List<Tensor> back = List.of(x, x.cos(), x).reversed();
        List<Tensor> listed = java.util.stream.Stream.of(x, x.cos()).toList();
        Ember.graphBreak();
        List<String> seen = new ArrayList<>();
        for (List<Tensor> l : List.of(sub, listed)) {
            seen.add(l.getClass().getName());
            try {
                l.get(l.size());
            } catch (IndexOutOfBoundsException e) {
                seen.add(e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            try {
                seen.add(String.valueOf(l.contains(null)));
            } catch (NullPointerException e) {
                seen.add("refuses a query for null");
            }
        }
        return List.of(sub.get(1).add(back.get(1)).add(listed.get(1)), seen, back);
    }

    @Test
    void immutableListsAreMadeAgainAsEagersAfterABreak() {
        Tensor x = Tensor.randn(3);
        CompileCounter cc = assertAsEager(Capture14RegressionTest::immutableListsAcrossABreak, x);
        assertEquals(2, cc.frameCount(), "frames: before and after the break");
        Ember.reset();
        // after the explicit break the lists are the resumed frame's inputs: a query for null on one that may refuse it breaks
        // (its class does not say how it was made), so eager's rebuilt list answers it; so does a read of the reversed view
        // (an input view, read after the frame changed a list)
        var e = Ember.explain((Fn1<Tensor, Object>) Capture14RegressionTest::immutableListsAcrossABreak).with(x);
        assertEquals("GB0016", e.breakReasons().getFirst().gbId(), e.toString());
        for (var b : e.breakReasons().subList(1, e.breakReasons().size())) {
            assertTrue(b.reason().contains("(null) on") || b.reason().contains("a view of another container"), e.toString());
        }
    }

    // ---- plain (not serializable) lambdas of one shape are told apart by their class's constant pool ----

    static final class Steps {
        final List<UnaryOperator<Tensor>> steps;
        final List<BiFunction<Tensor, Tensor, Tensor>> merges;

        Steps(int k) {
            // one shape each: a UnaryOperator capturing nothing, a BiFunction capturing one int
            steps = List.of(Tensor::relu, t -> t.mul(3), Tensor::neg, t -> t.sub(t.mean()), Tensor::exp);
            merges = List.of((a, b) -> a.add(b.mul(k)), (a, b) -> a.sub(b.mul(k)), (a, b) -> a.mul(b).add(k));
        }

        Tensor run(Tensor x) {
            Tensor y = x;
            for (UnaryOperator<Tensor> s : steps) y = s.apply(y).tanh();
            for (BiFunction<Tensor, Tensor, Tensor> m : merges) y = m.apply(y, x);
            return y;
        }
    }

    /** A method reference to a method the receiver's class inherits: the hidden class's pool names the declaring class. */
    static class Base {
        Tensor twice(Tensor t) { return t.mul(2); }
    }

    static final class Derived extends Base {
        Tensor thrice(Tensor t) { return t.mul(3); }
    }

    static Object inheritedMethodReferences(Tensor x) {
        Derived d = new Derived();
        List<Function<Tensor, Tensor>> fs = new ArrayList<>();
        fs.add(d::twice);
        fs.add(d::thrice);
        return fs.get(0).apply(x).add(fs.get(1).apply(x.neg()));
    }

    @Test
    void plainLambdasOfOneShapeAreToldApart() {
        Tensor x = Tensor.randn(4, 3);
        for (int k : new int[] {2, -1}) {
            Ember.reset();
            Steps steps = new Steps(k);
            Fn1<Tensor, Object> run = steps::run;
            CompileCounter cc = assertAsEager(run, x);
            assertEquals(1, cc.frameCount(), "frames");
            assertEquals(0, graphBreaks(run, x), "graph breaks");
        }
        Ember.reset();
        assertOneFrameNoBreak(Capture14RegressionTest::inheritedMethodReferences);
    }

    @Test
    void listsOfPlainLambdasCompiledFromTheirOwnInput() {
        // the lambdas are arguments, not fields: guarded as the classes they are, so another list recompiles
        Fn1<List<UnaryOperator<Tensor>>, Object> apply = fs -> {
            Tensor y = Tensor.ones(3);
            for (UnaryOperator<Tensor> f : fs) y = f.apply(y);
            return y;
        };
        List<UnaryOperator<Tensor>> first = List.of(t -> t.mul(5), t -> t.add(1));
        List<UnaryOperator<Tensor>> second = List.of(t -> t.add(1), t -> t.mul(5));
        CompileCounter cc = new CompileCounter();
        Fn1<List<UnaryOperator<Tensor>>, Object> compiled = Ember.compile(apply, Options.backend(cc));
        Compiled.assertSame(apply.apply(first), compiled.apply(first), "first order");
        Compiled.assertSame(apply.apply(second), compiled.apply(second), "second order");
        assertEquals(2, cc.frameCount(), "one frame per order of the lambdas");
    }
}
