package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code Ember.explain} of a function that raises reports what was compiled up to the exception and
 * the exception with the user's line, instead of throwing it; and an exception thrown after a graph
 * break names the user's method in its stack trace (the code after a break is a hidden class, whose
 * frame the JVM leaves out), not Ember's frames only.
 */
class ExplainRaisesTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static final class BadShape extends RuntimeException {
        BadShape(String m) { super(m); }
    }

    static Tensor raisesBeforeAnyBreak(Tensor x) {
        Tensor y = x.sin();
        if (x.dim() == 1) throw new BadShape("expected a matrix, got " + x.dim() + " dim");
        return y;
    }

    static Tensor raisesAfterABreak(Tensor x) {
        Tensor y = x.cos().mul(2);
        double total = y.sum().item();
        if (total > -1e9) throw new IllegalArgumentException("total " + (total > -1e9));
        return y;
    }

    static Tensor returns(Tensor x) { return x.sin(); }

    static int lineOf(String text) throws Exception {
        var lines = java.nio.file.Files.readAllLines(java.nio.file.Path.of("src/test/java/dev/ember/dynamo/ExplainRaisesTest.java"));
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).contains(text) && !lines.get(i).contains("lineOf")) return i + 1;
        throw new AssertionError(text);
    }

    @Test
    void explainOfAFunctionThatRaisesReportsTheGraphsSoFarAndTheException() throws Exception {
        ExplainOutput e = Ember.explain((Fn1<Tensor, Tensor>) ExplainRaisesTest::raisesBeforeAnyBreak).with(Tensor.randn(3));
        assertInstanceOf(BadShape.class, e.raised());
        assertEquals("expected a matrix, got 1 dim", e.raised().getMessage());
        assertEquals(1, e.graphCount(), "the sin before the throw is a graph");
        assertEquals(lineOf("throw new BadShape("), e.raisedAt().line());
        assertEquals("raisesBeforeAnyBreak", e.raisedAt().methodName());
        String report = e.toString();
        assertTrue(report.contains("Raised: " + BadShape.class.getName() + ": expected a matrix, got 1 dim"), report);
        assertTrue(report.contains("ExplainRaisesTest.java:" + lineOf("throw new BadShape(") + " in ExplainRaisesTest.raisesBeforeAnyBreak:  if (x.dim() == 1)"), report);
    }

    @Test
    void explainNamesTheLineThatRaisedAfterABreak() throws Exception {
        ExplainOutput e = Ember.explain((Fn1<Tensor, Tensor>) ExplainRaisesTest::raisesAfterABreak).with(Tensor.randn(3));
        assertInstanceOf(IllegalArgumentException.class, e.raised());
        assertEquals("GB0001", e.breakReasons().getFirst().gbId(), "item() broke the graph first");
        assertEquals(1, e.graphCount());
        assertEquals(lineOf("throw new IllegalArgumentException(\"total"), e.raisedAt().line());
        assertEquals("raisesAfterABreak", e.raisedAt().methodName(), "the user's method, not the resume method's name");
    }

    @Test
    void anExceptionThrownAfterABreakNamesTheUsersMethodInItsStackTrace() {
        Fn1<Tensor, Tensor> f = Ember.compile((Fn1<Tensor, Tensor>) ExplainRaisesTest::raisesAfterABreak);
        IllegalArgumentException t = assertThrows(IllegalArgumentException.class, () -> f.apply(Tensor.randn(3)));
        StackTraceElement top = t.getStackTrace()[0];
        assertEquals(ExplainRaisesTest.class.getName(), top.getClassName(), Arrays.toString(t.getStackTrace()));
        assertEquals("raisesAfterABreak", top.getMethodName());
        assertFalse(Arrays.stream(t.getStackTrace()).anyMatch(s -> s.getClassName().startsWith("dev.ember.dynamo.resume.")),
                "no frame of Ember's plumbing: " + Arrays.toString(t.getStackTrace()));
    }

    @Test
    void aRunThatReturnsReportsNoException() {
        ExplainOutput e = Ember.explain((Fn1<Tensor, Tensor>) ExplainRaisesTest::returns).with(Tensor.randn(3));
        assertNull(e.raised());
        assertNull(e.raisedAt());
        assertFalse(e.toString().contains("Raised:"), e.toString());
    }

    @Test
    void emberOwnFailuresStillThrow() {
        // fullgraph makes the break an error of Ember's: explain does not swallow it as the function's own exception
        assertThrows(RuntimeException.class, () -> Ember.explain((Fn1<Tensor, Tensor>) ExplainRaisesTest::raisesAfterABreak,
                dev.ember.Options.defaults().fullgraph(true)).with(Tensor.randn(3)));
    }
}
