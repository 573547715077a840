package dev.ember.debug.bytecode;

import java.util.List;

/** A debugger command, parsed from one line; a line that is none is a {@link BadCommand} that says why and what is meant. */
sealed interface Command {
    /** {@code l}, {@code l from}, {@code l from, to}: bcis; null where not given. */
    record ListCode(Integer from, Integer to) implements Command {}

    /** {@code s [n]} */
    record Step(int count) implements Command {}

    /** {@code b [bci]}: null lists the breakpoints. */
    record Break(Integer bci) implements Command {}

    record Continue() implements Command {}

    record Locals() implements Command {}

    record Stack() implements Command {}

    record Help() implements Command {}

    record Quit() implements Command {}

    /** A line that is not a command. */
    final class BadCommand extends IllegalArgumentException {
        BadCommand(String message) { super(message); }
    }

    String HELP = """
            commands:
              l [from[, to]]  list the current method: around the current instruction, or from bci `from` (to bci `to`)
              s [n]           step n instructions (default 1), into generated code and resume methods
              b [bci]         set a breakpoint at bci of the current method; without bci, list the breakpoints
              c               continue to the next breakpoint, or to the end of the call
              locals          the current method's locals, typed
              stack           the operand stack, bottom first, typed
              help            this text
              q               quit: the call runs to its end without stopping""";

    static Command parse(String line) {
        List<String> words = List.of(line.strip().split("[\\s,]+"));
        String name = words.getFirst();
        List<String> args = words.subList(1, words.size());
        return switch (name) {
            case "l", "list" -> {
                atMost(name, args, 2);
                yield new ListCode(args.isEmpty() ? null : number(name, args.get(0), "a bci"), args.size() < 2 ? null : number(name, args.get(1), "a bci"));
            }
            case "s", "step" -> {
                atMost(name, args, 1);
                int n = args.isEmpty() ? 1 : number(name, args.getFirst(), "a count of instructions");
                if (n < 1) throw new BadCommand(name + " " + n + ": the count of instructions to step must be 1 or more");
                yield new Step(n);
            }
            case "b", "break" -> {
                atMost(name, args, 1);
                yield new Break(args.isEmpty() ? null : number(name, args.getFirst(), "a bci"));
            }
            case "c", "cont", "continue" -> none(name, args, new Continue());
            case "locals" -> none(name, args, new Locals());
            case "stack" -> none(name, args, new Stack());
            case "help", "h", "?" -> none(name, args, new Help());
            case "q", "quit" -> none(name, args, new Quit());
            default -> throw new BadCommand("unknown command '" + line.strip() + "': the commands are l, s, b, c, locals, stack, help and q (help says what each does)");
        };
    }

    private static void atMost(String name, List<String> args, int n) {
        if (args.size() > n) throw new BadCommand(name + ": too many arguments (" + String.join(" ", args) + "); type help for its form");
    }

    private static Command none(String name, List<String> args, Command c) {
        atMost(name, args, 0);
        return c;
    }

    private static int number(String command, String word, String what) {
        try {
            int n = Integer.parseInt(word);
            if (n < 0) throw new NumberFormatException();
            return n;
        } catch (NumberFormatException e) {
            throw new BadCommand(command + ": '" + word + "' is not " + what + " (a whole number, 0 or more)");
        }
    }
}
