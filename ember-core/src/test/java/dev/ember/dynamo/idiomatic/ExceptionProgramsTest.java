package dev.ember.dynamo.idiomatic;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import static dev.ember.dynamo.idiomatic.Idioms.check;
import static dev.ember.dynamo.idiomatic.Idioms.checkThrows;
import static dev.ember.dynamo.idiomatic.Idioms.oneGraph;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Exceptions as Java engineers use them around tensor code: argument checks that throw
 * IllegalArgumentException on bad shapes (caught or propagated), Objects.requireNonNull,
 * try/catch/finally, custom exception classes, multi-catch, rethrow with a cause, and ATen's own
 * errors (a shape mismatch) caught. The compiled function must throw what eager throws: the same
 * class and message.
 */
class ExceptionProgramsTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static final Tensor X = Tensor.randn(4, 3), W = Tensor.randn(3, 5);

    /** A program's own checked-style error, unchecked as most Java libraries make them. */
    static final class ShapeError extends RuntimeException {
        final int expected, actual;

        ShapeError(int expected, int actual) {
            super("expected " + expected + " features, got " + actual);
            this.expected = expected;
            this.actual = actual;
        }
    }

    // ------------------------------------------------------------------ helpers a program calls

    static Tensor checkedMatmul(Tensor x, Tensor w) {
        if (x.dim() != 2) throw new IllegalArgumentException("x must be 2-D, got shape " + Arrays.toString(x.shape()));
        if (x.size(1) != w.size(0)) throw new ShapeError(w.size(0), x.size(1));
        return x.matmul(w);
    }

    // ------------------------------------------------------------------ programs

    static Tensor propagated(Tensor x, Tensor w) { return checkedMatmul(x, w).relu(); }

    static Tensor caughtFallsBack(Tensor x, Tensor w) {
        try {
            return checkedMatmul(x, w);
        } catch (ShapeError e) {
            return x.sum(1, true).mul(e.expected);
        }
    }

    static Tensor requireNonNull(Tensor x, Tensor bias) {
        Tensor b = Objects.requireNonNull(bias, "bias must not be null");
        return x.add(b);
    }

    static List<Object> finallyAlwaysRuns(Tensor x, Tensor w) {
        List<Object> log = new ArrayList<>();
        Tensor y = x;
        try {
            y = checkedMatmul(x, w);
            log.add("ok");
        } catch (ShapeError e) {
            log.add("caught " + e.getMessage());
        } finally {
            log.add("finally");
            y = y.tanh();
        }
        log.add(y);
        return log;
    }

    static Tensor multiCatch(Tensor x, Tensor w) {
        try {
            return checkedMatmul(x, w);
        } catch (IllegalArgumentException | ShapeError e) {
            return x.neg().add(e.getMessage().length());
        }
    }

    static Tensor rethrowWithCause(Tensor x, Tensor w) {
        try {
            return checkedMatmul(x, w);
        } catch (ShapeError e) {
            throw new IllegalStateException("layer 'proj' failed: " + e.getMessage(), e);
        }
    }

    static Tensor atenErrorCaught(Tensor x, Tensor w) {
        try {
            return x.matmul(w);   // ATen rejects the shapes: eager throws, the trace's meta function throws the same
        } catch (IllegalArgumentException e) {
            return x.mul(0);
        }
    }

    static Tensor atenErrorPropagated(Tensor x, Tensor w) { return x.matmul(w).exp(); }

    static Tensor validateAll(List<Tensor> batch) {
        for (int i = 0; i < batch.size(); i++) {
            if (batch.get(i).dim() != 2) throw new IllegalArgumentException(String.format("batch[%d] has rank %d, expected 2", i, batch.get(i).dim()));
        }
        return batch.stream().reduce(Tensor::add).orElseThrow();
    }

    static Tensor nestedTryFinally(Tensor x) {
        Tensor y = x;
        try {
            try {
                y = y.mul(2);
                if (y.dim() == 2) throw new ArithmeticException("inner");
            } finally {
                y = y.add(1);
            }
        } catch (ArithmeticException e) {
            y = y.sub(e.getMessage().length());
        }
        return y;
    }

    // ------------------------------------------------------------------ tests

    @Test
    void aShapeCheckPassesInOneGraph() {
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) ExceptionProgramsTest::propagated, X, W), 2);
    }

    @Test
    void aCustomExceptionPropagatesWithEagersMessage() {
        Throwable t = checkThrows((Fn2<Tensor, Tensor, Tensor>) ExceptionProgramsTest::propagated, X, W.t());
        assertInstanceOf(ShapeError.class, t);
        assertEquals("expected 5 features, got 3", t.getMessage());
        Throwable rank = checkThrows((Fn2<Tensor, Tensor, Tensor>) ExceptionProgramsTest::propagated, X.sum(0), W);
        assertEquals("x must be 2-D, got shape [3]", rank.getMessage());
    }

    @Test
    void aCaughtCustomExceptionIsTracedWithItsFields() {
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) ExceptionProgramsTest::caughtFallsBack, X, W.t()), 2);
    }

    @Test
    void objectsRequireNonNull() {
        Fn2<Tensor, Tensor, Tensor> fn = ExceptionProgramsTest::requireNonNull;
        oneGraph(check(fn, X, Tensor.ones(3)), 1);
        Throwable t = checkThrows(fn, X, null);
        assertInstanceOf(NullPointerException.class, t);
        assertEquals("bias must not be null", t.getMessage());
    }

    @Test
    void finallyRunsOnBothPaths() {
        Fn2<Tensor, Tensor, List<Object>> fn = ExceptionProgramsTest::finallyAlwaysRuns;
        oneGraph(check(fn, X, W), 2);
        oneGraph(check(fn, X, W.t()), 1);
        assertEquals(List.of("caught expected 5 features, got 3", "finally"), fn.apply(X, W.t()).subList(0, 2));
    }

    @Test
    void multiCatchOfTwoExceptionTypes() {
        Fn2<Tensor, Tensor, Tensor> fn = ExceptionProgramsTest::multiCatch;
        oneGraph(check(fn, X, W.t()), 2);
        oneGraph(check(fn, X.sum(0), W), 2);   // rank check throws first: neg, add
    }

    @Test
    void rethrowWithACause() {
        Throwable t = checkThrows((Fn2<Tensor, Tensor, Tensor>) ExceptionProgramsTest::rethrowWithCause, X, W.t());
        assertInstanceOf(IllegalStateException.class, t);
        assertEquals("layer 'proj' failed: expected 5 features, got 3", t.getMessage());
        Ember.reset();
        try {
            Ember.compile((Fn2<Tensor, Tensor, Tensor>) ExceptionProgramsTest::rethrowWithCause).apply(X, W.t());
        } catch (IllegalStateException compiled) {
            assertInstanceOf(ShapeError.class, compiled.getCause(), "the cause is kept, as eager keeps it");
        }
    }

    @Test
    void atensOwnShapeErrorCaught() {
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) ExceptionProgramsTest::atenErrorCaught, X, W.t()), 1);
    }

    @Test
    void atensOwnShapeErrorPropagatesWithItsMessage() {
        Throwable t = checkThrows((Fn2<Tensor, Tensor, Tensor>) ExceptionProgramsTest::atenErrorPropagated, X, W.t());
        assertTrue(t.getMessage().contains("cannot be multiplied"), t.getMessage());   // ATen: "mat1 and mat2 shapes cannot be multiplied (4x3 and 5x3)"
    }

    @Test
    void aValidationLoopWithStringFormat() {
        Fn1<List<Tensor>, Tensor> fn = ExceptionProgramsTest::validateAll;
        oneGraph(check(fn, List.of(X, X.neg())), 1);
        Throwable t = checkThrows(fn, List.of(X, X.sum(0)));
        assertEquals("batch[1] has rank 1, expected 2", t.getMessage());
    }

    @Test
    void nestedTryFinallyThenCatch() {
        oneGraph(check((Fn1<Tensor, Tensor>) ExceptionProgramsTest::nestedTryFinally, X), 3);
    }
}
