package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.GradMode;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * try/catch/finally in compiled code: a throw whose handler is in the traced region is traced into
 * the graph (the handler's path is followed, as Dynamo traces raise/except), and whatever runs
 * after a graph break (the breaking call, the resume method) stays under the handlers the original
 * method has there, so compiled code catches exactly what Java catches.
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

    static Tensor throwAndCatch(Tensor x) {
        Tensor y = x.relu();
        try {
            if (y.dim() == 2) throw new Invalid("a matrix");
            y = y.neg();
        } catch (Invalid e) {
            y = y.add(e.getMessage().length());
        }
        return y.mul(2);
    }

    static Tensor catchWithFinally(Tensor x) {
        Tensor y = x.mul(2);
        try {
            y = checked(y, 3);
        } catch (Invalid e) {
            y = y.sub(1);
        } finally {
            y = y.add(10);
        }
        return y;
    }

    /** A finally without a catch: it runs on the way out, and the exception goes on to the outer handler. */
    static Tensor finallyThenOuterCatch(Tensor x) {
        Tensor y = x.cos();
        try {
            try {
                y = checked(y, 3);
            } finally {
                y = y.mul(3);
            }
        } catch (Invalid e) {
            y = y.neg();
        }
        return y;
    }

    static Tensor pick(Tensor x, int which) {
        return switch (which) {
            case 0 -> throw new IllegalArgumentException("zero");
            case 1 -> throw new IllegalStateException("one");
            case 2 -> throw new UnsupportedOperationException("two");
            default -> x.cos();
        };
    }

    static Tensor multiCatch(Tensor x, Integer which) {
        Tensor y;
        try {
            y = pick(x, which);
        } catch (IllegalArgumentException | IllegalStateException e) {
            y = x.neg();
        } catch (RuntimeException e) {
            y = x.abs();
        }
        return y.add(1);
    }

    static Tensor rethrows(Tensor x) {
        try {
            return checked(x.exp(), x.size(0));
        } catch (Invalid e) {
            throw new IllegalStateException("wrapped: " + e.getMessage(), e);
        }
    }

    static Tensor catchesRethrown(Tensor x) {
        try {
            return rethrows(x);
        } catch (IllegalStateException e) {
            return x.add(e.getMessage().length());
        }
    }

    static Tensor uncaught(Tensor x) {
        Tensor y = x.relu();
        if (y.size(0) > 1) throw new Invalid("too many rows: " + y.size(0));
        return y;
    }

    /** The shape mismatch an op's meta function finds while tracing is the exception eager's op throws. */
    static Tensor catchesShapeError(Tensor x) {
        Tensor y;
        try {
            y = x.add(Tensor.ones(5));
        } catch (IllegalArgumentException e) {
            y = x.mul(2);
        }
        return y.relu();
    }

    /** try-with-resources: the scope's close() runs on the way to the handler, so grad mode is back on after it. */
    static Tensor throwInsideNoGrad(Tensor x) {
        Tensor y = x.mul(2);
        try (var scope = Ember.noGrad()) {
            y = checked(y, 3);
        } catch (Invalid e) {
            y = y.add(1);
        }
        return GradMode.isEnabled() ? y.neg() : y.exp();
    }

    static int parsedOrMinusOne(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** A JDK call evaluated while tracing throws its own exception, which the handler catches. */
    static Tensor catchesJdkException(Tensor x) {
        return x.add(parsedOrMinusOne("12")).mul(parsedOrMinusOne("twelve"));
    }

    /** An array index out of bounds is the JVM's exception, with its message. */
    static Tensor catchesIndexError(Tensor x) {
        Tensor[] parts = {x.relu(), x.neg()};
        Tensor y;
        try {
            y = parts[parts.length];
        } catch (ArrayIndexOutOfBoundsException e) {
            y = parts[0].add(e.getMessage().length());
        }
        return y;
    }

    static Tensor loopCatches(Tensor x) {
        Tensor acc = x;
        for (int i = 0; i < 4; i++) {
            try {
                acc = oddFails(acc, i);
            } catch (Invalid e) {
                acc = acc.add(i);
            }
        }
        return acc;
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

    /** The throw before the break is caught in the graph; the break comes after the handler. */
    static Tensor catchThenBreak(Tensor x) {
        Tensor y = x.relu();
        try {
            y = checked(y, 3);
        } catch (Invalid e) {
            y = y.sub(2);
        }
        Ember.graphBreak();
        return y.exp();
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

    static Tensor throwsModelless(Tensor x) {
        Tensor y = x.relu();
        if (y.dim() == 2) throw new IllegalStateException(new Invalid("cause"));
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

    // ------------------------------------------------------------------ within one graph

    @Test
    void throwAndCatchInOneGraph() {
        CompileCounter cc = assertLikeEager(ExceptionCaptureTest::throwAndCatch, Options.fullgraph());
        assertEquals(1, cc.frameCount());
        assertEquals(3, cc.opCount(), "relu, add, mul: the handler's path, not the try block's neg");
    }

    @Test
    void catchWithFinally() {
        CompileCounter cc = assertLikeEager(ExceptionCaptureTest::catchWithFinally, Options.fullgraph());
        assertEquals(1, cc.frameCount());
        assertEquals(3, cc.opCount(), "mul, sub, add");
    }

    @Test
    void finallyRunsOnTheWayToAnOuterHandler() {
        CompileCounter cc = assertLikeEager(ExceptionCaptureTest::finallyThenOuterCatch, Options.fullgraph());
        assertEquals(1, cc.frameCount());
        assertEquals(3, cc.opCount(), "cos, mul, neg");
    }

    @Test
    void multiCatchPicksTheFirstMatchingHandler() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) ExceptionCaptureTest::multiCatch, Options.backend(cc).fullgraph(true));
        for (int which = 0; which < 4; which++) {
            int w = which;
            assertSameOutcome(outcome(() -> multiCatch(X, w)), outcome(() -> f.apply(X, w)));
        }
        assertEquals(4, cc.frameCount(), "one graph per value of which");
    }

    @Test
    void aCatchThatThrowsAnotherException() {
        CompileCounter cc = assertLikeEager(ExceptionCaptureTest::catchesRethrown, Options.fullgraph());
        assertEquals(1, cc.frameCount());
        assertEquals(2, cc.opCount(), "exp (its result unused but traced), add");
    }

    @Test
    void anOpsShapeErrorIsCaughtByTheHandler() {
        CompileCounter cc = assertLikeEager(ExceptionCaptureTest::catchesShapeError, Options.fullgraph());
        assertEquals(1, cc.frameCount());
    }

    @Test
    void aTryWithResourcesClosesOnTheWayToTheHandler() {
        Tensor w = Tensor.randn(3, 4).requiresGrad(true);
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile(ExceptionCaptureTest::throwInsideNoGrad, Options.backend(cc).fullgraph(true));
        Tensor expected = throwInsideNoGrad(w), actual = f.apply(w);
        assertSameOutcome(expected, actual);
        assertEquals(expected.requiresGrad(), actual.requiresGrad());
        assertEquals(1, cc.frameCount());
    }

    @Test
    void aJdkCallsExceptionIsCaughtByTheHandler() {
        CompileCounter cc = assertLikeEager(ExceptionCaptureTest::catchesJdkException, Options.fullgraph());
        assertEquals(1, cc.frameCount());
        assertEquals(2, cc.opCount(), "add, mul");
    }

    @Test
    void anArrayIndexErrorIsCaughtByTheHandler() {
        CompileCounter cc = assertLikeEager(ExceptionCaptureTest::catchesIndexError, Options.fullgraph());
        assertEquals(1, cc.frameCount());
    }

    @Test
    void aLoopWhoseBodyCatches() {
        CompileCounter cc = assertLikeEager(ExceptionCaptureTest::loopCatches, Options.fullgraph());
        assertEquals(1, cc.frameCount());
        assertEquals(4, cc.opCount(), "mul, add, mul, add");
    }

    // ------------------------------------------------------------------ escaping the traced region

    @Test
    void anUncaughtThrowIsEagersExceptionWithTheUsersFrames() {
        assertLikeEager(ExceptionCaptureTest::uncaught);
        Invalid e = assertThrows(Invalid.class, () -> Ember.compile(ExceptionCaptureTest::uncaught).apply(X));
        assertTrue(Arrays.stream(e.getStackTrace()).anyMatch(f -> f.getMethodName().equals("uncaught")), Arrays.toString(e.getStackTrace()));
        assertTrue(Arrays.stream(e.getStackTrace()).noneMatch(f -> f.getClassName().contains("$Resume")), Arrays.toString(e.getStackTrace()));
    }

    @Test
    void anUncaughtThrowInFullgraphNamesTheLine() {
        Unsupported u = assertThrows(Unsupported.class, () -> Ember.compile(ExceptionCaptureTest::uncaught, Options.fullgraph()).apply(X));
        assertEquals("GB0008", u.gbId());
        assertTrue(u.reason().contains("Invalid: too many rows: 3"), u.reason());
        assertNotNull(u.userFrame());
        assertEquals("uncaught", u.userFrame().methodName());
    }

    @Test
    void anExceptionTheTracerCannotModelBreaksWithItsLine() {
        assertLikeEager(ExceptionCaptureTest::throwsModelless);
        Unsupported u = assertThrows(Unsupported.class, () -> Ember.compile(ExceptionCaptureTest::throwsModelless, Options.fullgraph()).apply(X));
        assertTrue(u.reason().contains("only an exception made with no argument, or with a message"), u.reason());
        assertEquals("throwsModelless", u.userFrame().methodName());
    }

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
        CompileCounter cc = assertLikeEager(ExceptionCaptureTest::breakInsideTry);
        assertEquals(2, cc.frameCount(), "the graph before the break, and the resume method's");
        assertEquals(4, cc.opCount(), "relu; then mul, neg, add");
    }

    @Test
    void aCatchBeforeABreak() {
        CompileCounter cc = assertLikeEager(ExceptionCaptureTest::catchThenBreak);
        assertEquals(2, cc.frameCount());
        assertEquals(3, cc.opCount(), "relu, sub; then exp");
    }

    @Test
    void anInlinedHelpersOwnHandlerAroundABreak() {
        assertLikeEager(ExceptionCaptureTest::callsInlinedCatcher);
    }

    @Test
    void aThrowInAnInlinedHelperAfterABreakInTheTry() {
        CompileCounter cc = assertLikeEager(ExceptionCaptureTest::breakThenInlinedThrow);
        assertEquals(2, cc.frameCount());
        assertEquals(3, cc.opCount(), "relu; then add, cos");
    }

    @Test
    void aHandlerAroundABreakCatchesNothingWhenNothingIsThrown() {
        CompileCounter cc = assertLikeEager(ExceptionCaptureTest::catchesNothing);
        assertEquals(2, cc.frameCount());
        assertEquals(2, cc.opCount(), "relu; then mul");
    }

    static final java.util.Map<String, Integer> COUNTS = java.util.Map.of("a", 3);

    /** test_exceptions.py::test_key_error: a missing key's null unboxed throws NullPointerException, caught in the frame. */
    static Tensor unboxedMissingKey(Tensor x) {
        int a;
        try {
            a = COUNTS.get("b");
        } catch (NullPointerException e) {
            a = 2;
        }
        return x.mul(a);
    }

    static Tensor readsTheJvmsMessage(Tensor x) {
        try {
            int a = COUNTS.get("b");
            return x.mul(a);
        } catch (NullPointerException e) {
            return e.getMessage().contains("intValue") ? x.neg() : x;
        }
    }

    @Test
    void aNullPointerExceptionTheJvmThrowsIsCaughtInTheGraph() {
        CompileCounter cc = assertLikeEager(ExceptionCaptureTest::unboxedMissingKey, Options.fullgraph());
        assertEquals(1, cc.frameCount());
        assertEquals(1, cc.opCount());
    }

    @Test
    void itsMessageIsTheJvmsSoReadingItLeavesTheGraph() {
        assertLikeEager(ExceptionCaptureTest::readsTheJvmsMessage);
    }
}
