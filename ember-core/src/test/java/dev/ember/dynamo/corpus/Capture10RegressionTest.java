package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Capture session 10's fixes, each failing without it. */
class Capture10RegressionTest {

    @AfterEach
    void reset() {
        Ember.reset();
        LOG.clear();
    }

    // ---- an exception thrown out of the compiled function ----

    static final List<Tensor> LOG = new ArrayList<>();

    static Tensor throwsAfterWork(Tensor x) {
        LOG.add(x.mul(2));
        Tensor y = x.add(1).relu();
        if (x.dim() == 1) throw new IllegalArgumentException("expected a matrix, got " + x.dim() + " dims");
        return y;
    }

    static final class ShapeError extends RuntimeException {
        final int dim;

        ShapeError(String message, int dim, Throwable cause) {
            super("shape: " + message, cause);
            this.dim = dim;
        }
    }

    static Tensor throwsOwnException(Tensor x) {
        LOG.add(x.cos());
        throw new ShapeError("rank " + x.dim(), x.dim(), new IllegalStateException("inner " + x.shape()[0]));
    }

    static Tensor throwsFromAJdkCall(Tensor x) {
        List<Tensor> xs = List.of(x.sin());
        LOG.add(xs.getFirst().neg());
        return xs.get(3);
    }

    /** Eager's exception and the compiled call's: same class, message, cause; LOG gets what it gets eagerly; the graph before the throw is compiled once. */
    private static <T extends Throwable> T throwsAsEager(Fn1<Tensor, Tensor> fn, Class<T> type) {
        Tensor x = Tensor.randn(3);
        T eager = assertThrows(type, () -> fn.apply(x));
        List<Tensor> eagerLog = List.copyOf(LOG);
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> compiled = Ember.compile(fn, Options.backend(cc));
        T got = null;
        for (int call = 0; call < 2; call++) {
            LOG.clear();
            got = assertThrows(type, () -> compiled.apply(x));
            assertEquals(eager.getMessage(), got.getMessage(), "message");
            assertEquals(eager.getCause() == null ? null : eager.getCause().toString(), got.getCause() == null ? null : got.getCause().toString(), "cause");
            assertEquals(eager.getStackTrace()[0].getMethodName(), got.getStackTrace()[0].getMethodName(), "the stack starts in the program");
            assertEquals(eagerLog.size(), LOG.size(), "side effects");
            for (int i = 0; i < LOG.size(); i++) assertArrayEquals(eagerLog.get(i).toDoubleArray(), LOG.get(i).toDoubleArray(), 1e-6);
        }
        assertEquals(1, cc.frameCount(), "the work before the throw is one graph, compiled once (before: none, the whole call ran eagerly)");
        return got;
    }

    @Test
    void anUncaughtExceptionIsThrownAfterTheGraph() {
        throwsAsEager(Capture10RegressionTest::throwsAfterWork, IllegalArgumentException.class);
    }

    @Test
    void anExceptionOfTheProgramsClassKeepsItsFieldsAndCause() {
        ShapeError e = throwsAsEager(Capture10RegressionTest::throwsOwnException, ShapeError.class);
        assertEquals(1, e.dim);
        assertEquals(IllegalStateException.class, e.getCause().getClass());
    }

    @Test
    void anExceptionAJdkCallThrowsIsThrownAfterTheGraph() {
        throwsAsEager(Capture10RegressionTest::throwsFromAJdkCall, IndexOutOfBoundsException.class);
    }
}
