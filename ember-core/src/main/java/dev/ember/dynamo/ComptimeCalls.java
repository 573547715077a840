package dev.ember.dynamo;

import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.SymScalarVariable;
import dev.ember.dynamo.variables.SymSizeVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.events.UserFrame;

import java.io.BufferedReader;
import java.io.Console;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.Reader;
import java.util.List;
import java.util.function.Supplier;

/**
 * Calls of {@link Comptime} met while tracing: the tracer evaluates them on the spot and puts
 * nothing in the graph. The second trace that stops at a graph break to build the resume code
 * replays what the first trace already showed, so it shows nothing.
 */
final class ComptimeCalls {
    private ComptimeCalls() {}

    /** Where a breakpoint's console reads commands and writes answers. */
    private record Terminal(BufferedReader in, PrintWriter out) {}

    /** Console input a test types in advance, for the breakpoints traced on its thread. */
    private static final ThreadLocal<Terminal> SCRIPTED = new ThreadLocal<>();

    /** Runs {@code body} with breakpoints reading their commands from {@code in} and answering on {@code out}, as from a terminal. */
    static <T> T withConsole(Reader in, PrintWriter out, Supplier<T> body) {
        Terminal before = SCRIPTED.get();
        SCRIPTED.set(new Terminal(new BufferedReader(in), out));
        try {
            return body.get();
        } finally {
            SCRIPTED.set(before);
        }
    }

    /** The value of the call (always void: null). */
    static VariableTracker call(TraceContext ctx, String name, List<VariableTracker> args) {
        switch (name) {
            case "graphBreak" -> throw ctx.unsupported(GraphBreakType.EXPLICIT_GRAPH_BREAK, "Comptime.graphBreak() was called");
            case "assertStatic" -> assertStatic(ctx, args.getFirst());
            default -> {
                if (ctx.haltAtStep < 0) show(new ComptimeContext(ctx), name);
            }
        }
        return null;
    }

    private static void show(ComptimeContext c, String name) {
        PrintStream out = System.out;
        switch (name) {
            case "breakpoint" -> breakpoint(c);
            case "printGraph" -> out.print(c.graphText());
            case "printLocals" -> out.print(c.localsText());
            case "printGuards" -> out.print(c.guardsText());
            case "printStack" -> out.print(c.stackText());
            case "printDisas" -> out.print(c.disasText());
            case "printBacktrace" -> out.print(c.backtraceText());
            default -> throw new IllegalStateException("the tracer does not know Comptime." + name + "()");
        }
        out.flush();
    }

    /** Opens the console on the terminal; without one, prints what it would show first and goes on. */
    private static void breakpoint(ComptimeContext c) {
        Terminal t = SCRIPTED.get();
        if (t == null) t = TerminalHolder.TERMINAL;
        if (t == null) {
            System.out.print(summary(c));
            return;
        }
        new ComptimeConsole(c, t.in(), t.out()).run();
    }

    /** The process's terminal, read through one reader for every breakpoint (a reader per breakpoint could lose typed-ahead lines); null without one. */
    private static final class TerminalHolder {
        static final Terminal TERMINAL = terminal();

        private static Terminal terminal() {
            Console console = System.console();
            if (console == null || !console.isTerminal()) return null;
            return new Terminal(new BufferedReader(console.reader()), console.writer());
        }
    }

    /** What a breakpoint prints when there is no terminal to read commands from. */
    static String summary(ComptimeContext c) {
        return "Comptime.breakpoint() at " + c.where() + ": no terminal to read commands from, so it shows the locals, the graph and the operand stack,"
                + " and tracing continues\n" + c.localsText() + c.graphText() + c.stackText();
    }

    private static void assertStatic(TraceContext ctx, VariableTracker v) {
        if (v instanceof ConstantVariable) return;
        UserFrame at = ctx.currentLocation();
        throw new AssertionError("Comptime.assertStatic failed at " + at + (at == null || at.sourceText() == null ? "" : ":  " + at.sourceText())
                + "\n  the value is " + ComptimeContext.describe(v, null) + ", not a constant while tracing: " + ComptimeContext.whyNotConstant(v)
                + "\n  " + howToMakeStatic(v));
    }

    private static String howToMakeStatic(VariableTracker v) {
        return switch (v) {
            case SymSizeVariable s -> "A size becomes a symbol when it changed between calls (automatic dynamic), under Options.dynamic(true) or by Ember.markDynamic; "
                    + "Ember.markStatic(x, dim) or Options.dynamic(false) keeps it static. EMBER_LOGS=dynamic says which.";
            case SymScalarVariable s when s.dataDependent() -> "It is read from tensor data (item() with captureScalarOutputs): keep it a tensor, "
                    + "or read it outside the compiled function.";
            case SymScalarVariable s -> "A double argument is a graph input unless Options.specializeFloat(true); an int or long becomes one when it changed "
                    + "between calls, unless Options.dynamic(false). EMBER_LOGS=dynamic says which.";
            case TensorVariable t -> "A tensor's data is never static; assert on what the trace knows instead, e.g. Comptime.assertStatic(x.size(0)).";
            default -> "Only numbers, booleans, strings, enums and other values the trace knows are static.";
        };
    }
}
