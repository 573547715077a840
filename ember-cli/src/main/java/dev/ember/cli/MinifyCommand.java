package dev.ember.cli;

import dev.ember.debug.BuildIdentity;
import dev.ember.debug.minifier.FailureCheck;
import dev.ember.debug.minifier.Launcher;
import dev.ember.debug.minifier.Minifier;
import dev.ember.debug.minifier.Outcome;

import java.io.PrintStream;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * {@code ember minify <launcher dir> [minify|run]}: PyTorch's {@code minifier_launcher.py minify|run}
 * for a launcher a repro level wrote. {@code minify} (the default) reduces the graph to the smallest
 * that still fails the same way; {@code run} compiles and runs it once and says whether it still
 * fails (exit 1 when it does, 0 when it does not). A missing folder, a folder that is not a
 * launcher, or a launcher file that cannot be read is exit 2 with the file named.
 */
final class MinifyCommand {
    private MinifyCommand() {}

    static final String USAGE = "ember minify <launcher dir> [minify|run]";

    static int run(String[] args, PrintStream out) {
        if (args.length == 1 && (args[0].equals("-h") || args[0].equals("--help"))) {
            out.println("usage: " + USAGE);
            out.println("  <launcher dir>  a folder written with EMBER_REPRO_AFTER=dynamo|aot and EMBER_REPRO_LEVEL=2|3|4");
            out.println("  minify          reduce the graph to the smallest that still fails the same way (default);");
            out.println("                  checkpoints go to <dir>/checkpoints/, the result to <dir>/minified/");
            out.println("  run             compile and run the graph once against eager: exit 1 if it still fails");
            return 0;
        }
        if (args.length == 0 || args.length > 2) throw new IllegalArgumentException("which launcher? usage: " + USAGE);
        Path dir;
        try {
            dir = Path.of(args[0]);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("'" + args[0] + "' is not a path: " + e.getReason());
        }
        String action = args.length == 2 ? args[1] : "minify";
        return switch (action) {
            case "minify" -> minify(dir, out);
            case "run" -> replay(dir, out);
            default -> throw new IllegalArgumentException("unknown action '" + action + "'; expected minify (the default) or run. usage: " + USAGE);
        };
    }

    private static int minify(Path dir, PrintStream out) {
        Minifier.Result r = Minifier.minify(dir, out);
        Launcher m = r.minified();
        out.println();
        out.println("The smallest graph that still fails (" + r.ops() + " of " + r.originalOps() + " ops), " + m.failure().describe() + ":");
        out.println(m.graph().code());
        out.println("replay it: ./ember minify " + r.folder() + " run");
        return 0;
    }

    private static int replay(Path dir, PrintStream out) {
        Launcher l = Launcher.read(dir);
        Outcome now = FailureCheck.check(l.graph(), l.inputs(), Minifier.backend(l.backend()), l.mode(), l.tolerance());
        if (now instanceof Outcome.Invalid(String why)) throw new IllegalArgumentException(dir + " holds a graph eager cannot run (" + why + "): it is not a repro");
        String[][] rows = {
                {"launcher", dir.toAbsolutePath().toString()},
                {"graph", l.graphName() + (l.sourceLines().isEmpty() ? "" : "  (" + l.sourceLines() + ")")},
                {"backend", "'" + l.backend() + "', mode " + l.mode() + ", graph after " + l.after().text() + ", tolerance " + l.tolerance()},
                {"recorded", l.failure().describe()},
                {"now", now.describe()},
                {"built", sameBuild(dir)}};
        for (String[] row : rows) out.printf("%-9s %s%n", row[0], row[1]);
        if (now.failed()) {
            out.println(l.failure().failed() && !l.failure().sameFailureAs(now) ? "FAIL: it fails, differently from when it was written" : "FAIL: it still fails");
            return 1;
        }
        out.println("PASS: the backend now agrees with eager");
        return 0;
    }

    /** Which build wrote the launcher and which replays it: a verdict from other code than the failure's is flagged. */
    private static String sameBuild(Path dir) {
        String then = Launcher.writtenBy(dir), now = BuildIdentity.describe();
        if (then.equals(now)) return "written and replayed by " + now + (BuildIdentity.uncertain() ? " (uncommitted changes may differ)" : "");
        return "written by " + then + ", replayed by " + now + ": other code than the one that failed";
    }
}
