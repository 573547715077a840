package dev.ember.dynamo.comptime;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.Comptime;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Comptime while tracing: what each call prints of the tracer's state, assertStatic's verdicts,
 * graphBreak's break, the breakpoint without a terminal, and what each call does when the code
 * runs without being traced.
 */
class ComptimeTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor inspected(Tensor x, int n) {
        Tensor y = x.relu().mul(n);
        Comptime.printLocals();
        Comptime.printGraph();
        Comptime.printGuards();
        return y.sum();
    }

    @Test
    void printsLocalsGraphAndGuardsAsTheTracerSeesThem() {
        Tensor x = Tensor.randn(3, 4);
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) ComptimeTest::inspected, Options.backend(new CompileCounter()));
        String out = dev.ember.testing.Stdout.of(() -> f.apply(x, 2));
        assertTrue(out.startsWith("locals of ComptimeTest.inspected at " + line("Comptime.printLocals();") + " (bci "), out);
        assertTrue(out.contains("\n  slot  name  type    value\n"), out);
        assertTrue(out.contains("\n  0     x     Tensor  Tensor f32[3, 4]  graph node l_x_, from L['x']\n"), out);
        assertTrue(out.contains("\n  1     n     int     int 2  constant, from L['n']\n"), out);
        assertTrue(out.contains("\n  2     y     Tensor  Tensor f32[3, 4]  graph node mul\n"), out);
        assertTrue(out.contains("graph so far (2 ops, no output yet):\n"), out);
        assertTrue(out.contains("// " + line("Tensor y = x.relu().mul(n);") + "  Tensor y = x.relu().mul(n);\n"), out);
        assertTrue(out.contains("Tensor relu = aten.relu.default(l_x_);"), out);
        assertTrue(out.contains("guards installed so far ("), out);
        assertTrue(out.contains("  TENSOR_MATCH: L['x']"), out);
        assertFalse(out.contains("aten.sum"), "printed before the sum was traced: " + out);
    }

    @Test
    void nothingIsAddedToTheGraphAndEagerCallsDoNothing() {
        Tensor x = Tensor.randn(3, 4);
        CompileCounter counter = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) ComptimeTest::inspected, Options.backend(counter));
        Tensor compiled = f.apply(x, 2);
        assertEquals(1, counter.frameCount());
        assertEquals(3, counter.opCount(), "relu, mul, sum");
        assertEquals("", dev.ember.testing.Stdout.of(() -> inspected(x, 2)), "run without tracing, the print calls do nothing");
        assertTrue(compiled.sameData(inspected(x, 2)));
        assertEquals("", dev.ember.testing.Stdout.of(() -> f.apply(x, 2)), "a cached call does not trace, so it prints nothing");
    }

    static Tensor stopsHere(Tensor x) {
        Tensor y = x.sin();
        Comptime.breakpoint();
        return y.cos();
    }

    @Test
    void aBreakpointWithoutATerminalPrintsLocalsGraphAndStackAndTracingContinues() {
        Tensor x = Tensor.randn(2);
        CompileCounter counter = new CompileCounter();
        var f = Ember.compile((Fn1<Tensor, Tensor>) ComptimeTest::stopsHere, Options.backend(counter));
        String out = dev.ember.testing.Stdout.of(() -> f.apply(x));
        assertTrue(out.startsWith("Comptime.breakpoint() at " + line("Comptime.breakpoint();") + " in ComptimeTest.stopsHere: no terminal to read commands from"), out);
        assertTrue(out.contains("  1     y     Tensor  Tensor f32[2]  graph node sin\n"), out);
        assertTrue(out.contains("Tensor sin = aten.sin.default(l_x_);"), out);
        assertTrue(out.contains("operand stack of ComptimeTest.stopsHere (bottom first):\n  empty\n"), out);
        assertEquals(1, counter.frameCount(), "one graph: the breakpoint is no break");
        assertEquals(2, counter.opCount());
    }

    @Test
    void aBreakpointRunOutsideTracingSaysSoAndHowToUseIt() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> stopsHere(Tensor.randn(2)));
        assertTrue(e.getMessage().startsWith("Comptime.breakpoint() ran as ordinary Java code at " + line("Comptime.breakpoint();") + " in ComptimeTest.stopsHere, not while Ember traced it."),
                e.getMessage());
        assertTrue(e.getMessage().contains("Call the compiled function, e.g. Ember.compile(MyApp::fn).apply(x)"), e.getMessage());
    }

    static Tensor staticSize(Tensor x, int n) {
        Comptime.assertStatic(n);
        Comptime.assertStatic(x.size(0));
        Comptime.assertStatic("a string");
        return x.mul(n);
    }

    static Tensor dynamicSize(Tensor x) {
        Comptime.assertStatic(x.size(0));
        return x.mul(2);
    }

    static Tensor doubleInput(Tensor x, double s) {
        Comptime.assertStatic(s);
        return x.mul(s);
    }

    static Tensor tensorValue(Tensor x) {
        Comptime.assertStatic(x);
        return x;
    }

    @Test
    void assertStaticPassesOnConstantsAndStaticSizes() {
        Tensor x = Tensor.randn(3, 2);
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) ComptimeTest::staticSize);
        assertTrue(f.apply(x, 3).sameData(x.mul(3)));
        assertTrue(staticSize(x, 3).sameData(x.mul(3)), "run eagerly, it checks nothing");
    }

    @Test
    void assertStaticFailsTracingOnASymbolicSizeAndSaysWhatMakesItStatic() {
        Tensor x = Tensor.randn(5, 2);
        Ember.markDynamic(x, 0);
        var f = Ember.compile((Fn1<Tensor, Tensor>) ComptimeTest::dynamicSize);
        AssertionError e = assertThrows(AssertionError.class, () -> f.apply(x));
        assertTrue(e.getMessage().startsWith("Comptime.assertStatic failed at " + line("Comptime.assertStatic(x.size(0));", 2)
                + " in ComptimeTest.dynamicSize:  Comptime.assertStatic(x.size(0));\n  the value is symbolic size int s0 (5 in this trace), not a constant while tracing"),
                e.getMessage());
        assertTrue(e.getMessage().contains("Ember.markStatic(x, dim) or Options.dynamic(false) keeps it static"), e.getMessage());
    }

    @Test
    void assertStaticFailsOnADoubleInputAndOnATensor() {
        Tensor x = Tensor.randn(2);
        AssertionError d = assertThrows(AssertionError.class, () -> Ember.compile((Fn2<Tensor, Double, Tensor>) ComptimeTest::doubleInput).apply(x, 0.5));
        assertTrue(d.getMessage().contains("the value is symbolic double (from the input s)"), d.getMessage());
        assertTrue(d.getMessage().contains("Options.specializeFloat(true)"), d.getMessage());
        // with doubles specialized, the same call passes
        assertTrue(Ember.compile((Fn2<Tensor, Double, Tensor>) ComptimeTest::doubleInput, Options.defaults().specializeFloat(true)).apply(x, 0.5).sameData(x.mul(0.5)));
        AssertionError t = assertThrows(AssertionError.class, () -> Ember.compile((Fn1<Tensor, Tensor>) ComptimeTest::tensorValue).apply(x));
        assertTrue(t.getMessage().contains("the value is Tensor f32[2]  graph node l_x_, from L['x'], not a constant while tracing: a graph value"), t.getMessage());
        assertTrue(t.getMessage().contains("Comptime.assertStatic(x.size(0))"), t.getMessage());
    }

    static Tensor breaksHere(Tensor x) {
        Tensor y = x.relu();
        Comptime.printGraph();
        Comptime.graphBreak();
        Tensor z = y.neg();
        Comptime.printLocals();
        return z;
    }

    @Test
    void graphBreakBreaksAsEmberGraphBreakAndTheResumeMethodShowsTheUsersLocals() {
        Tensor x = Tensor.randn(3);
        ExplainOutput e = Ember.explain((Fn1<Tensor, Tensor>) ComptimeTest::breaksHere).with(x);
        assertEquals(1, e.graphBreakCount(), e.toString());
        assertEquals(2, e.graphCount(), e.toString());
        assertTrue(e.toString().contains("Comptime.graphBreak() was called"), e.toString());
        assertEquals("GB0016", e.breakReasons().getFirst().gbId());
        Ember.reset();
        CompileCounter counter = new CompileCounter();
        var f = Ember.compile((Fn1<Tensor, Tensor>) ComptimeTest::breaksHere, Options.backend(counter));
        String out = dev.ember.testing.Stdout.of(() -> assertTrue(f.apply(x).sameData(x.relu().neg())));
        assertEquals(2, counter.frameCount());
        // once: the second trace, which stops at the break to build the resume code, does not show it again
        assertEquals(1, out.split("graph so far", -1).length - 1, out);
        // the resume method's locals are the user's method's, by name, at the user's line; what is used after this point
        String locals = out.substring(out.indexOf("locals of "));
        assertTrue(locals.startsWith("locals of ComptimeTest.breaksHere at " + line("Comptime.printLocals();", 2)), locals);
        assertTrue(locals.contains("  z     Tensor  Tensor f32[3]  graph node neg"), locals);
        assertFalse(locals.contains(" x "), "x is not carried into the resume method: " + locals);
        assertTrue(breaksHere(x).sameData(x.relu().neg()), "run eagerly, graphBreak does nothing");
    }

    static Tensor withInlinedHelper(Tensor x) {
        return helper(x.abs(), 3);
    }

    static Tensor helper(Tensor t, int k) {
        Comptime.printBacktrace();
        Comptime.printDisas();
        return t.add(k);
    }

    @Test
    void inAnInlinedCallItShowsThatCallAndTheFramesAboveIt() {
        String out = dev.ember.testing.Stdout.of(() -> Ember.compile((Fn1<Tensor, Tensor>) ComptimeTest::withInlinedHelper).apply(Tensor.randn(2)));
        assertTrue(out.startsWith("user frames being traced (most recent call last):\n  " + line("return helper(x.abs(), 3);") + " in ComptimeTest.withInlinedHelper:  return helper(x.abs(), 3);\n  "
                + line("Comptime.printBacktrace();") + " in ComptimeTest.helper:  Comptime.printBacktrace();\n"), out);
        assertTrue(out.contains("ComptimeTest.helper(Tensor, int): Tensor  (ComptimeTest.java)\n"), out);
        assertTrue(out.contains("    line " + lineNumber("Comptime.printDisas();") + "  Comptime.printDisas();\n-->"), out);
        assertTrue(out.contains("invokestatic   void Comptime.printDisas()"), out);
        assertTrue(out.contains("// t\n"), "loads name their local: " + out);
    }

    // ------------------------------------------------------------------ helpers

    private static String line(String code, int nth) { return SourceLine.of(ComptimeTest.class, code, nth); }

    private static String line(String code) { return SourceLine.of(ComptimeTest.class, code); }

    private static int lineNumber(String code) { return SourceLine.number(ComptimeTest.class, code); }
}
