package dev.ember.dynamo;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The console {@link Comptime#breakpoint()} opens: reads commands until {@code continue} (or the end
 * of the input) and answers each from the paused trace. It takes any reader and writer, so that a
 * test can type into it; the breakpoint gives it the terminal.
 */
final class ComptimeConsole {
    static final String PROMPT = "(comptime) ";

    static final String HELP = """
            commands (tracing is paused until continue):
              locals                   every local: slot, name, declared type, what the tracer holds
              local NAME               one local, by name or slot number (local x, local 2)
              local NAME.type()        the class of its value
              local NAME.asConstant()  its value, when the tracer knows it (a constant)
              graph                    the graph built so far, with source lines
              guards                   the guards installed so far
              stack                    the operand stack, bottom first
              disas                    the method's bytecode, --> at this call
              bt                       the user frames being traced, outermost first
              help                     this list
              continue                 resume tracing (also c, or end of input)
            """;

    /** {@code local NAME}, {@code local NAME.type()}, {@code local NAME.asConstant()}. */
    private static final Pattern LOCAL = Pattern.compile("local\\s+([\\w$]+)(\\.(type|asConstant)\\(\\))?");

    private final ComptimeContext context;
    private final BufferedReader in;
    private final PrintWriter out;

    ComptimeConsole(ComptimeContext context, Reader in, PrintWriter out) {
        this.context = context;
        this.in = in instanceof BufferedReader b ? b : new BufferedReader(in);
        this.out = out;
    }

    /** Where the breakpoint is and how to use the console. */
    static String banner(ComptimeContext context) {
        var at = context.where();
        return "Comptime.breakpoint() at " + at + ": tracing is paused"
                + (at.sourceText() == null ? "" : "\n  " + at.line() + "  " + at.sourceText())
                + "\ntype help for the commands, continue to resume tracing\n";
    }

    /** Answers commands until {@code continue} or the end of the input. */
    void run() {
        out.print(banner(context));
        while (true) {
            out.print(PROMPT);
            out.flush();
            String line;
            try {
                line = in.readLine();
            } catch (IOException e) {
                out.println("cannot read the console (" + e.getMessage() + "): tracing continues");
                out.flush();
                return;
            }
            if (line == null) {
                out.println();
                out.flush();
                return;
            }
            String command = line.strip();
            if (command.equals("continue") || command.equals("c")) {
                out.flush();
                return;
            }
            if (!command.isEmpty()) out.print(safeAnswer(command));
            out.flush();
        }
    }

    /** The answer, or what kept it from being made: a command that fails must not end the trace it looks at. */
    private String safeAnswer(String command) {
        try {
            return answer(command);
        } catch (RuntimeException e) {
            return "cannot answer '" + command + "': " + e + " (an Ember bug: please report it)\n";
        }
    }

    /** The answer to one command other than {@code continue}; an unknown command gets one line that says so. */
    String answer(String command) {
        Matcher local = LOCAL.matcher(command);
        try {
            if (local.matches()) {
                ComptimeContext.Local l = context.local(local.group(1));
                if (local.group(3) == null) return ComptimeContext.localText(l) + "\n";
                return local.group(3).equals("type") ? context.typeText(l) + "\n" : constant(context.asConstant(l)) + "\n";
            }
        } catch (IllegalArgumentException e) {
            return e.getMessage() + "\n";
        }
        if (command.startsWith("local ")) return "usage: local NAME, local NAME.type(), local NAME.asConstant() (NAME is a name or a slot number)\n";
        return switch (command) {
            case "locals" -> context.localsText();
            case "graph" -> context.graphText();
            case "guards" -> context.guardsText();
            case "stack" -> context.stackText();
            case "disas" -> context.disasText();
            case "bt" -> context.backtraceText();
            case "help" -> HELP;
            default -> "unknown command '" + command + "': type help for the commands, continue to resume tracing\n";
        };
    }

    /** A constant as Java source writes it. */
    private static String constant(Object value) {
        return switch (value) {
            case null -> "null";
            case String s -> '"' + s + '"';
            case Character c -> "'" + c + "'";
            case Long l -> l + "L";
            case Float f -> f + "f";
            default -> String.valueOf(value);
        };
    }
}
