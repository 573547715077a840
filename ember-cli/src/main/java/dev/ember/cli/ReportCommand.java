package dev.ember.cli;

import dev.ember.report.Report;
import dev.ember.report.TraceProblem;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/** {@code ember report <trace dir> [-o <out dir>]}: the HTML report of a structured trace written with EMBER_TRACE. */
final class ReportCommand {
    private ReportCommand() {}

    static final String USAGE = "ember report <trace dir> [-o <out dir>]";

    static int run(String[] args, PrintStream out) {
        Path trace = null, outDir = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-h", "--help" -> {
                    out.println("usage: " + USAGE);
                    out.println("  Reads the trace files (*.log) a program wrote with EMBER_TRACE=<trace dir> and writes a static");
                    out.println("  HTML report: index.html with the stack trie of all compilations, failures_and_restarts.html,");
                    out.println("  and a folder per compile id. Opens from disk in any browser; no server, no network.");
                    out.println("  -o <out dir>   where to write it (default: <trace dir>/report)");
                    return 0;
                }
                case "-o", "--out" -> {
                    if (i + 1 >= args.length) throw new IllegalArgumentException(args[i] + " needs a directory. usage: " + USAGE);
                    outDir = path(args[++i]);
                }
                default -> {
                    if (args[i].startsWith("-")) throw new IllegalArgumentException("unknown option " + args[i] + ". usage: " + USAGE);
                    if (trace != null) throw new IllegalArgumentException("one trace directory, got " + trace + " and " + args[i] + ". usage: " + USAGE);
                    trace = path(args[i]);
                }
            }
        }
        if (trace == null) throw new IllegalArgumentException("which trace? usage: " + USAGE);
        if (outDir == null) outDir = (Files.isRegularFile(trace) ? trace.toAbsolutePath().getParent() : trace).resolve("report");

        Report.Result r;
        try {
            r = Report.generate(trace, outDir);
        } catch (IOException | UncheckedIOException e) {
            throw new IllegalArgumentException("cannot make the report of " + trace + " in " + outDir + ": " + e.getMessage(), e);
        }
        out.println("ember report: " + r.compilations() + " compilation(s), " + r.graphBreaks() + " graph break(s)");
        if (!r.problems().isEmpty()) {
            out.println("warning: " + r.problems().size() + " problem(s) reading the trace (also listed at the top of the report):");
            for (TraceProblem p : r.problems().subList(0, Math.min(5, r.problems().size()))) out.println("  " + p);
            if (r.problems().size() > 5) out.println("  ...");
        }
        out.println("open " + r.index().toAbsolutePath().toUri() + " in a browser (no server needed)");
        return 0;
    }

    /** {@code s} as a path, or an error saying it is not one. */
    static Path path(String s) {
        try {
            return Path.of(s);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("not a valid path: " + s);
        }
    }
}
