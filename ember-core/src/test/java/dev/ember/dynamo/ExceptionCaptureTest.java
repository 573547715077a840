package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * try/catch/finally in compiled code: whatever runs after a graph break (the breaking call, the
 * resume method) stays under the handlers the original method has there, so compiled code catches
 * exactly what Java catches.
 */
class ExceptionCaptureTest {

    @AfterEach
    void reset() { Ember.reset(); }

    private static final Tensor X = Tensor.randn(3, 4);

    /** A program's own exception, as programs define them. */
    static final class Invalid extends RuntimeException {
        Invalid(String message) { super(message); }
    }

    // ------------------------------------------------------------------ programs

    static Tensor checked(Tensor y, int rows) {
        if (y.size(0) == rows) throw new Invalid("has " + rows + " rows");
        return y.sin();
    }

    static Tensor oddFails(Tensor t, int i) {
        if (i % 2 == 1) throw new Invalid("odd " + i);
        return t.mul(2);
    }

    /** A helper that breaks the graph and then throws. */
    static Tensor breaksThenThrows(Tensor y) {
        y = y.add(1);
        Ember.graphBreak();
        throw new Invalid("after the break");
    }

    /** The case: the helper runs eagerly after its break, and its exception must meet this handler. */
    static Tensor catchesAroundBreakingHelper(Tensor x) {
        Tensor y = x.relu();
        try {
            y = breaksThenThrows(y);
        } catch (Invalid e) {
            y = y.neg();
        }
        return y.mul(2);
    }

    /** The break is directly in the try block; the throw after it is in the resume method. */
    static Tensor breakInsideTry(Tensor x) {
        Tensor y = x.relu();
        try {
            Ember.graphBreak();
            y = checked(y.mul(2), 3);
        } catch (Invalid e) {
            y = y.neg();
        }
        return y.add(1);
    }

    /** An inlined helper with its own try block around a helper that breaks and throws. */
    static Tensor inlinedCatcher(Tensor y) {
        try {
            return breaksThenThrows(y.mul(3));
        } catch (Invalid e) {
            return y.tanh();
        }
    }

    static Tensor callsInlinedCatcher(Tensor x) {
        Tensor y = x.sin();
        try {
            y = inlinedCatcher(y);
        } catch (IllegalStateException e) {
            y = y.neg();
        }
        return y.add(1);
    }

    /** A throw inside an inlined helper called in a try, with a break before it in the caller's try. */
    static Tensor breakThenInlinedThrow(Tensor x) {
        Tensor y = x.relu();
        try {
            Ember.graphBreak();
            y = oddFails(y, 1);
        } catch (Invalid e) {
            y = y.add(5);
        }
        return y.cos();
    }

    /** A handler that catches what eager does not throw: nothing may be caught. */
    static Tensor catchesNothing(Tensor x) {
        Tensor y = x.relu();
        try {
            Ember.graphBreak();
            y = y.mul(2);
        } catch (Invalid e) {
            y = y.neg();
        }
        return y;
    }

    // ------------------------------------------------------------------ helpers

    /** What a call gives: its result, or the exception it threw. */
    private static Object outcome(Supplier<Tensor> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            return e;
        }
    }

    private static void assertSameOutcome(Object expected, Object actual) {
        if (expected instanceof Tensor e) {
            assertTrue(actual instanceof Tensor, "expected a tensor, got " + actual);
            assertTrue(e.sameData((Tensor) actual), "expected " + e + " but got " + actual);
            return;
        }
        Throwable e = (Throwable) expected;
        assertTrue(actual instanceof Throwable, "expected " + e + ", got a result");
        assertEquals(e.getClass(), actual.getClass(), () -> "thrown: " + actual);
        assertEquals(e.getMessage(), ((Throwable) actual).getMessage());
    }

    /** Compiled with {@code options}, {@code fn} gives eager's result or exception on two calls; returns the counter. */
    private static CompileCounter assertLikeEager(Fn1<Tensor, Tensor> fn, Options options) {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile(fn, options.withBackend(cc));
        for (int call = 0; call < 2; call++) assertSameOutcome(outcome(() -> fn.apply(X)), outcome(() -> f.apply(X)));
        return cc;
    }

    private static CompileCounter assertLikeEager(Fn1<Tensor, Tensor> fn) { return assertLikeEager(fn, Options.defaults()); }

    // ------------------------------------------------------------------ across graph breaks

    @Test
    void aHelperThatBreaksThenThrowsMeetsTheCallersHandler() {
        CompileCounter cc = assertLikeEager(ExceptionCaptureTest::catchesAroundBreakingHelper);
        assertEquals(1, cc.frameCount(), "relu before the break; the helper and the handler's path run eagerly");
        ExplainOutput e = Ember.explain(ExceptionCaptureTest::catchesAroundBreakingHelper).with(X);
        assertEquals(List.of("GB0016"), e.breakReasons().stream().map(ExplainOutput.BreakReason::gbId).toList(), e.toString());
    }

    @Test
    void aThrowInTheResumeMethodMeetsTheTryAroundTheBreak() {
        assertLikeEager(ExceptionCaptureTest::breakInsideTry);
    }

    @Test
    void anInlinedHelpersOwnHandlerAroundABreak() {
        assertLikeEager(ExceptionCaptureTest::callsInlinedCatcher);
    }

    @Test
    void aThrowInAnInlinedHelperAfterABreakInTheTry() {
        assertLikeEager(ExceptionCaptureTest::breakThenInlinedThrow);
    }

    @Test
    void aHandlerAroundABreakCatchesNothingWhenNothingIsThrown() {
        CompileCounter cc = assertLikeEager(ExceptionCaptureTest::catchesNothing);
        assertEquals(2, cc.frameCount());
    }
}
