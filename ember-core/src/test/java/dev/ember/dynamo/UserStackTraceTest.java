package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An exception user code throws inside a compiled function shows the user's frames, as eager shows them, and none of Ember's. */
class UserStackTraceTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor check(Tensor y, double total) {
        if (total == total) throw new IllegalArgumentException("total " + total, new ArithmeticException("the cause"));
        return y;
    }

    /** The throw is in a helper called after a break: it runs from the generated break code of the resume method. */
    static Tensor throwsAfterBreak(Tensor x) {
        Tensor y = x.mul(2.0);
        double total = y.sum().item();
        return check(y, total);
    }

    /** The loop is too long to trace, so no resume can start: the whole method runs eagerly. */
    static Tensor throwsWhenEager(Tensor x) {
        long n = 0;
        for (int i = 0; i < 10_000_000; i++) n += i;
        return check(x, n);
    }

    @Test
    void aThrowAfterABreakShowsTheUserFramesOnly() {
        assertUserFrames(UserStackTraceTest::throwsAfterBreak);
    }

    @Test
    void aThrowInEagerFallbackCodeShowsTheUserFramesOnly() {
        assertUserFrames(UserStackTraceTest::throwsWhenEager);
    }

    private static void assertUserFrames(Fn1<Tensor, Tensor> fn) {
        Tensor x = Tensor.ones(2, 3);
        IllegalArgumentException eager = assertThrows(IllegalArgumentException.class, () -> fn.apply(x));
        IllegalArgumentException compiled = assertThrows(IllegalArgumentException.class, () -> Ember.compile(fn).apply(x));
        String trace = Arrays.toString(compiled.getStackTrace());
        assertEquals(top(eager), top(compiled), "the user's methods and lines, as eager: " + trace);
        for (StackTraceElement e : compiled.getStackTrace()) {
            boolean embers = e.getClassName().startsWith("dev.ember.dynamo.") && !e.getClassName().startsWith(UserStackTraceTest.class.getName());
            assertTrue(!embers && !e.getClassName().contains("$Resume"), "no Ember frame: " + trace);
        }
        assertEquals("the cause", compiled.getCause().getMessage(), "the cause chain is kept");
        assertSame(ArithmeticException.class, compiled.getCause().getClass());
    }

    /** The two innermost frames: the helper at its throw, its caller at the call. */
    private static List<String> top(Throwable t) {
        return Arrays.stream(t.getStackTrace()).limit(2).map(e -> e.getClassName() + "." + e.getMethodName() + ":" + e.getLineNumber()).toList();
    }
}
