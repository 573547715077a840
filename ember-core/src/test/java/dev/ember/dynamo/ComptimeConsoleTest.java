package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.comptime.ComptimePrograms;
import dev.ember.dynamo.comptime.SourceLine;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The breakpoint's console, typed into through a reader: each command's answer, then tracing goes on. */
class ComptimeConsoleTest {
    @AfterEach
    void reset() { Ember.reset(); }

    private static final String AT = SourceLine.of(ComptimePrograms.class, "Comptime.breakpoint();") + " in ComptimePrograms.scaled";

    /** The screen after typing {@code commands}, and the compiled call's result checked against eager. */
    private static String session(String... commands) {
        StringWriter screen = new StringWriter();
        CompileCounter counter = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) ComptimePrograms::scaled, Options.backend(counter));
        Tensor x = Tensor.randn(3, 4);
        Tensor y = ComptimeCalls.withConsole(new StringReader(String.join("\n", commands) + "\n"), new PrintWriter(screen), () -> f.apply(x, 2));
        assertTrue(y.sameData(x.relu().mul(2).sum()), "tracing went on after the console");
        assertEquals(1, counter.frameCount(), "the breakpoint is no graph break");
        assertEquals(3, counter.opCount(), "and adds nothing to the graph");
        return screen.toString();
    }

    @Test
    void answersEachCommandUntilContinue() {
        String screen = session("locals", "local y", "local 1", "local n.asConstant()", "local y.type()", "local n.type()", "local y.asConstant()",
                "stack", "graph", "guards", "bt", "continue", "locals");
        assertTrue(screen.startsWith("Comptime.breakpoint() at " + AT + ": tracing is paused\n  "
                + SourceLine.number(ComptimePrograms.class, "Comptime.breakpoint();") + "  Comptime.breakpoint();\n"
                + "type help for the commands, continue to resume tracing\n(comptime) locals of ComptimePrograms.scaled at "), screen);
        assertTrue(screen.contains("\n  0     x     Tensor  Tensor f32[3, 4]  graph node l_x_, from L['x']\n"), screen);
        assertTrue(screen.contains("\n(comptime) y (slot 2): Tensor f32[3, 4]  graph node mul\n"), screen);
        assertTrue(screen.contains("\n(comptime) n (slot 1): int 2  constant, from L['n']\n"), screen);
        assertTrue(screen.contains("\n(comptime) 2\n"), screen);
        assertTrue(screen.contains("\n(comptime) dev.ember.tensor.Tensor\n(comptime) int\n"), screen);
        assertTrue(screen.contains("\n(comptime) y is not a constant while tracing: it is Tensor f32[3, 4]  graph node mul — a graph value, "
                + "whose data exists only when the graph runs\n"), screen);
        assertTrue(screen.contains("\n(comptime) operand stack of ComptimePrograms.scaled (bottom first):\n  empty\n"), screen);
        assertTrue(screen.contains("\n(comptime) graph so far (2 ops, no output yet):\n"), screen);
        assertTrue(screen.contains("Tensor mul = aten.mul.Tensor(relu, 2);") || screen.contains("aten.mul"), screen);
        assertTrue(screen.contains("\n(comptime) guards installed so far ("), screen);
        assertTrue(screen.contains("\n(comptime) user frames being traced (most recent call last):\n  " + AT + ":  Comptime.breakpoint();\n"), screen);
        assertTrue(screen.endsWith("\n(comptime) "), "nothing read after continue: " + screen);
        assertEquals(1, screen.split("locals of ", -1).length - 1, screen);
    }

    @Test
    void disasListsTheBytecodeWithAnArrowAtTheBreakpoint() {
        String screen = session("disas", "c");
        assertTrue(screen.contains("(comptime) ComptimePrograms.scaled(Tensor, int): Tensor  (ComptimePrograms.java)\n"), screen);
        assertTrue(screen.contains("    line " + SourceLine.number(ComptimePrograms.class, "Tensor y = x.relu().mul(n);") + "  Tensor y = x.relu().mul(n);\n"), screen);
        String arrow = screen.lines().filter(l -> l.startsWith("-->")).findFirst().orElseThrow(() -> new AssertionError(screen));
        assertTrue(arrow.matches("-->\\s+\\d+   invokestatic   void Comptime\\.breakpoint\\(\\)"), arrow);
        assertTrue(screen.contains("invokevirtual  Tensor Tensor.relu()"), screen);
        assertTrue(screen.contains("// y\n"), "the store names its local: " + screen);
    }

    @Test
    void badCommandsGetOneLineAndThePromptAgain() {
        String screen = session("frobnicate", "local nope", "local y.shape()", "", "help", "continue");
        assertTrue(screen.contains("\n(comptime) unknown command 'frobnicate': type help for the commands, continue to resume tracing\n(comptime) no local 'nope' at "
                + AT + "; the locals are x, n, y\n(comptime) usage: local NAME, local NAME.type(), local NAME.asConstant() (NAME is a name or a slot number)\n"
                + "(comptime) (comptime) commands (tracing is paused until continue):\n"), screen);
        assertTrue(screen.contains("  local NAME.asConstant()  its value, when the tracer knows it (a constant)\n"), screen);
    }

    @Test
    void theEndOfTheInputContinuesTracing() {
        String screen = session("stack");
        assertTrue(screen.endsWith("(comptime) \n"), screen);
    }
}
