package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.fx.Graph;
import dev.ember.ops.AssertOps;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An assert on tensor data ({@code assert t.asBoolean() : "msg"}, {@code if (!t.asBoolean()) throw
 * new X("msg")}) is a node of the graph, not a graph break, as Dynamo's {@code torch._assert}: one
 * frame, and a failing assert in compiled code throws what eager code throws, with its message, on
 * every backend. Surefire runs the tests with assertions enabled ({@code -ea}).
 */
class TensorAssertTest {

    @AfterEach
    void reset() { Ember.reset(); }

    // ------------------------------------------------------------------ programs

    static Tensor javaAssert(Tensor x) {
        Tensor b = x.sin();
        assert x.select(0, 0).eq(3).asBoolean() : "First dim need to be 3";
        return x.cos().add(b);
    }

    static Tensor javaAssertWithoutMessage(Tensor x) {
        Tensor b = x.sin();
        assert x.select(0, 0).eq(3).asBoolean();
        return x.cos().add(b);
    }

    static Tensor ifThrowAssertionError(Tensor x) {
        Tensor b = x.sin();
        if (!x.select(0, 0).eq(3).asBoolean()) throw new AssertionError("First dim need to be 3");
        return x.cos().add(b);
    }

    static Tensor ifThrowIllegalArgument(Tensor x) {
        if (!x.sum().gt(0).asBoolean()) throw new IllegalArgumentException("the sum must be positive");
        return x.mul(2);
    }

    /** The throw is on the true side: the assert holds the negation. */
    static Tensor throwsWhenTrue(Tensor x) {
        if (x.ne(x).sum().gt(0).asBoolean()) throw new IllegalStateException("x has a NaN");
        return x.add(1);
    }

    static void checkPositive(Tensor x) {
        assert x.amin().gt(0).asBoolean() : "x must be positive";
    }

    static Tensor assertInAHelper(Tensor x) {
        checkPositive(x);
        return x.log();
    }

    // not rewritten: each breaks the graph as before

    static Tensor messageMadeAtRunTime(Tensor x) {
        Tensor b = x.sin();
        if (!x.select(0, 0).eq(3).asBoolean()) throw new IllegalArgumentException("first is " + x.dim());
        return x.cos().add(b);
    }

    static final class MyError extends RuntimeException {
        MyError(String m) { super(m); }
    }

    static Tensor exceptionOfTheUsers(Tensor x) {
        Tensor b = x.sin();
        if (!x.select(0, 0).eq(3).asBoolean()) throw new MyError("mine");
        return x.cos().add(b);
    }

    static Tensor caughtInTheMethod(Tensor x) {
        Tensor b = x.sin();
        try {
            if (!x.select(0, 0).eq(3).asBoolean()) throw new IllegalStateException("caught");
        } catch (IllegalStateException e) {
            return b.neg();
        }
        return x.cos().add(b);
    }

    static Tensor writesAnInputFirst(Tensor x) {
        x.add_(1);
        if (!x.select(0, 0).eq(4).asBoolean()) throw new IllegalStateException("x[0] was not 3");
        return x.mul(2);
    }

    /** A class whose assertions are disabled ({@code -da} for it): Java runs none of its asserts, nor does the trace. */
    static final class AssertionsDisabled {
        static Tensor fn(Tensor x) {
            Tensor b = x.sin();
            assert x.select(0, 0).eq(3).asBoolean() : "never checked";
            return x.cos().add(b);
        }
    }

    // ------------------------------------------------------------------ helpers

    private static Tensor passing() { return Tensor.of(new float[] {3, 1, 2}, 3); }

    private static Tensor failing() { return Tensor.of(new float[] {4, 1, 2}, 3); }

    private static ExplainOutput explain(Fn1<Tensor, Tensor> fn, Tensor x) { return Ember.explain(fn).with(x); }

    /** Eager and compiled give the same result on a passing input, and throw the same exception with the same message on a failing one. */
    private static void sameAsEager(Fn1<Tensor, Tensor> fn, Tensor pass, Tensor fail, String backend) {
        Fn1<Tensor, Tensor> compiled = Ember.compile(fn, Options.backend(backend));
        Tensor expected = fn.apply(pass.clone());
        Tensor got = compiled.apply(pass.clone());
        assertTrue(expected.sub(got).abs().amax().item() <= 1e-6, backend + ": " + expected + " vs " + got);
        Throwable eager = assertThrows(Throwable.class, () -> fn.apply(fail.clone()));
        Throwable compiledError = assertThrows(Throwable.class, () -> compiled.apply(fail.clone()), backend + ": the failing assert must throw");
        assertEquals(eager.getClass(), compiledError.getClass(), backend + ": " + compiledError);
        assertEquals(eager.getMessage(), compiledError.getMessage(), backend);
    }

    // ------------------------------------------------------------------ tests

    @ParameterizedTest
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void aJavaAssertIsOneGraphAndFailsAsEagerDoes(String backend) {
        ExplainOutput e = explain(TensorAssertTest::javaAssert, passing());
        assertEquals(1, e.graphCount(), e.toString());
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertEquals(6, e.opCount(), "sin, select, eq, the assert, cos, add (Dynamo's count):\n" + e);
        assertTrue(String.join("\n", e.graphs()).contains("aten._assert_async.msg(eq, \"First dim need to be 3\")"), e.toString());
        sameAsEager(TensorAssertTest::javaAssert, passing(), failing(), backend);
        AssertionError thrown = assertThrows(AssertionError.class, () -> Ember.compile((Fn1<Tensor, Tensor>) TensorAssertTest::javaAssert,
                Options.backend(backend)).apply(failing()));
        assertEquals("First dim need to be 3", thrown.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void anAssertWithoutMessageThrowsOneWithoutMessage(String backend) {
        ExplainOutput e = explain(TensorAssertTest::javaAssertWithoutMessage, passing());
        assertEquals(1, e.graphCount(), e.toString());
        assertTrue(String.join("\n", e.graphs()).contains("aten._assert_async.default(eq)"), e.toString());
        sameAsEager(TensorAssertTest::javaAssertWithoutMessage, passing(), failing(), backend);
        AssertionError thrown = assertThrows(AssertionError.class, () -> Ember.compile((Fn1<Tensor, Tensor>) TensorAssertTest::javaAssertWithoutMessage,
                Options.backend(backend)).apply(failing()));
        assertNull(thrown.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void anIfThrowOfAJdkExceptionIsAnAssert(String backend) {
        for (Fn1<Tensor, Tensor> fn : List.<Fn1<Tensor, Tensor>>of(TensorAssertTest::ifThrowAssertionError)) {
            assertEquals(1, explain(fn, passing()).graphCount());
            sameAsEager(fn, passing(), failing(), backend);
        }
        ExplainOutput e = explain(TensorAssertTest::ifThrowIllegalArgument, passing());
        assertEquals(1, e.graphCount(), e.toString());
        assertTrue(String.join("\n", e.graphs()).contains("ember::_assert_raise(gt, \"java.lang.IllegalArgumentException\", \"the sum must be positive\")")
                || String.join("\n", e.graphs()).contains("_assert_raise"), e.toString());
        sameAsEager(TensorAssertTest::ifThrowIllegalArgument, passing(), passing().neg(), backend);
        IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class,
                () -> Ember.compile((Fn1<Tensor, Tensor>) TensorAssertTest::ifThrowIllegalArgument, Options.backend(backend)).apply(passing().neg()));
        assertEquals("the sum must be positive", thrown.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void aThrowOnTheTrueSideAssertsTheNegation(String backend) {
        ExplainOutput e = explain(TensorAssertTest::throwsWhenTrue, passing());
        assertEquals(1, e.graphCount(), e.toString());
        assertTrue(String.join("\n", e.graphs()).contains("logical_not"), e.toString());
        sameAsEager(TensorAssertTest::throwsWhenTrue, passing(), Tensor.of(new float[] {1, Float.NaN}, 2), backend);
    }

    @ParameterizedTest
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void anAssertInAnInlinedHelperIsInTheCallersGraph(String backend) {
        ExplainOutput e = explain(TensorAssertTest::assertInAHelper, passing());
        assertEquals(1, e.graphCount(), e.toString());
        assertEquals(4, e.opCount(), "amin, gt, the assert, log:\n" + e);
        sameAsEager(TensorAssertTest::assertInAHelper, passing(), failing().sub(4), backend);
    }

    static Tensor assertsWhileTraining(Tensor w) {
        assert w.sum().gt(0).asBoolean() : "the weights must sum above zero";
        return w.mul(w).sum();
    }

    /** With a weight that requires grad the graph is split into forward and backward (aot_eager, inductor): the assert stays in the forward. */
    @ParameterizedTest
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void anAssertInATrainingGraphStaysInTheForward(String backend) {
        Fn1<Tensor, Tensor> fn = TensorAssertTest::assertsWhileTraining;
        Fn1<Tensor, Tensor> compiled = Ember.compile(fn, Options.backend(backend));
        Tensor eagerW = Tensor.of(new float[] {1, 2, 3}, 3).requiresGrad(true), compiledW = Tensor.of(new float[] {1, 2, 3}, 3).requiresGrad(true);
        fn.apply(eagerW).backward();
        compiled.apply(compiledW).backward();
        assertTrue(eagerW.grad().sub(compiledW.grad()).abs().amax().item() <= 1e-6, backend + ": " + compiledW.grad());
        AssertionError e = assertThrows(AssertionError.class, () -> compiled.apply(Tensor.of(new float[] {-1, -2, 0}, 3).requiresGrad(true)), backend);
        assertEquals("the weights must sum above zero", e.getMessage());
    }

    @Test
    void theAssertSurvivesDeadCodeEliminationAndIsImpure() {
        Graph g = new Graph();
        var x = g.placeholder("x", Tensor.zeros(1));
        var eq = g.callFunction(dev.ember.ops.PointwiseOps.EQ_SCALAR, List.of(x, 0.0), java.util.Map.of());
        var check = g.callFunction(AssertOps.ASSERT_ASYNC_MSG, List.of(eq, "x is zero"), java.util.Map.of());
        g.output(x);
        assertTrue(check.isImpure());
        g.eliminateDeadCode();
        assertTrue(g.nodes().contains(check), g.toString());
        assertTrue(g.nodes().contains(eq), "the assert uses eq: it stays too");
    }

    @Test
    void theOpsCheckTheirConditionAsAsBooleanDoes() {
        assertNull(AssertOps.ASSERT_ASYNC_MSG.call(Tensor.of(new float[] {Float.NaN}, 1), "NaN is true, as in asBoolean"));
        AssertionError e = assertThrows(AssertionError.class, () -> AssertOps.ASSERT_ASYNC_MSG.call(Tensor.zeros(1), "zero"));
        assertEquals("zero", e.getMessage());
        IllegalArgumentException many = assertThrows(IllegalArgumentException.class, () -> AssertOps.ASSERT_ASYNC.call(Tensor.ones(2)));
        assertTrue(many.getMessage().contains("2 elements is ambiguous"), many.getMessage());
        IllegalArgumentException notJdk = assertThrows(IllegalArgumentException.class,
                () -> AssertOps.ASSERT_RAISE.call(Tensor.ones(1), MyError.class.getName(), "m"));
        assertTrue(notJdk.getMessage().contains("no JDK class") || notJdk.getMessage().contains("not a JDK exception"), notJdk.getMessage());
        UnsupportedOperationException unsupported = assertThrows(UnsupportedOperationException.class,
                () -> AssertOps.ASSERT_RAISE.call(Tensor.zeros(1), UnsupportedOperationException.class.getName(), "nope"));
        assertEquals("nope", unsupported.getMessage());
    }

    @Test
    void whatIsNotAConstantAssertStillBreaksAndStaysCorrect() {
        for (Fn1<Tensor, Tensor> fn : List.<Fn1<Tensor, Tensor>>of(TensorAssertTest::messageMadeAtRunTime, TensorAssertTest::exceptionOfTheUsers,
                TensorAssertTest::caughtInTheMethod)) {
            ExplainOutput e = explain(fn, passing());
            assertEquals(1, e.graphBreakCount(), e.toString());
            assertFalse(String.join("\n", e.graphs()).contains("assert"), e.toString());
            Ember.reset();
            Fn1<Tensor, Tensor> compiled = Ember.compile(fn);
            assertTrue(fn.apply(passing()).sameData(compiled.apply(passing())));
            Tensor fail = failing();
            Object eager, got;
            try { eager = fn.apply(fail); } catch (RuntimeException ex) { eager = ex.getClass(); }
            try { got = compiled.apply(fail); } catch (RuntimeException ex) { got = ex.getClass(); }
            if (eager instanceof Tensor t) assertTrue(t.sameData((Tensor) got), "caught in the method: its handler runs");
            else assertEquals(eager, got);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void anInputWrittenBeforeTheAssertKeepsTheBreakSoTheWriteHappens(String backend) {
        ExplainOutput e = explain(TensorAssertTest::writesAnInputFirst, passing());
        assertEquals(1, e.graphBreakCount(), "the write of x would be copied back after a failing graph: " + e);
        Fn1<Tensor, Tensor> compiled = Ember.compile(TensorAssertTest::writesAnInputFirst, Options.backend(backend));
        Tensor eagerX = failing(), compiledX = failing();
        assertThrows(IllegalStateException.class, () -> writesAnInputFirst(eagerX));
        assertThrows(IllegalStateException.class, () -> compiled.apply(compiledX));
        assertTrue(eagerX.sameData(compiledX), "x was written before the throw, as eagerly: " + compiledX);
    }

    @Test
    void withAssertionsDisabledForTheClassNoAssertIsTraced() {
        // javac has a nested class ask its top-level class's status, when the nested class is initialized (below)
        ClassLoader loader = TensorAssertTest.class.getClassLoader();
        loader.setClassAssertionStatus(TensorAssertTest.class.getName(), false);
        Fn1<Tensor, Tensor> fn;
        try {
            fn = AssertionsDisabled::fn;
            fn.apply(passing());
        } finally {
            loader.setClassAssertionStatus(TensorAssertTest.class.getName(), true);
        }
        ExplainOutput e = explain(fn, failing());
        assertEquals(1, e.graphCount(), e.toString());
        assertEquals(3, e.opCount(), "sin, cos, add: no select, eq or assert\n" + e);
        assertFalse(String.join("\n", e.graphs()).contains("assert"), e.toString());
        assertTrue(fn.apply(failing()).sameData(Ember.compile(fn).apply(failing())), "no assert runs, eager or compiled");
    }
}
