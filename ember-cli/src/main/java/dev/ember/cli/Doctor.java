package dev.ember.cli;

import dev.ember.Ember;
import dev.ember.debug.BuildIdentity;

import dev.ember.report.Diagnosis;
import dev.ember.report.Diagnosis.Finding;
import dev.ember.report.Diagnosis.Kind;
import dev.ember.report.Diagnosis.Totals;
import dev.ember.tuning.KernelTuning;
import dev.ember.tuning.Machine;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * {@code ember doctor}: what Ember runs on here; and, given a command, runs it traced and ranks
 * every graph break and recompile by what it cost, with where, why, the fix and the gain to expect;
 * {@code --verify} compares a run with one saved before.
 */
final class Doctor {
    private Doctor() {}

    static final String USAGE = "ember doctor [--trace <dir> | --verify <saved dir>] [-- <command…>]";

    static int run(String[] args, PrintStream out) throws IOException, InterruptedException {
        int dashes = Arrays.asList(args).indexOf("--");
        List<String> options = Arrays.asList(args).subList(0, dashes < 0 ? args.length : dashes);
        List<String> command = dashes < 0 ? List.of() : Arrays.asList(args).subList(dashes + 1, args.length);
        Path trace = null, verify = null;
        for (int i = 0; i < options.size(); i++) {
            String o = options.get(i);
            switch (o) {
                case "-h", "--help" -> {
                    help(out);
                    return 0;
                }
                case "--trace", "--verify" -> {
                    if (i + 1 >= options.size()) throw new IllegalArgumentException(o + " needs a directory. usage: " + USAGE);
                    Path p = ReportCommand.path(options.get(++i));
                    if (o.equals("--trace")) trace = p;
                    else verify = p;
                }
                default -> throw new IllegalArgumentException((o.startsWith("-") ? "unknown option " : "unexpected argument ") + o
                        + " (the program's command goes after --). usage: " + USAGE);
            }
        }
        if (command.isEmpty()) {
            if (trace != null || verify != null) throw new IllegalArgumentException("which program? put its command after --. usage: " + USAGE);
            if (dashes >= 0) throw new IllegalArgumentException("no command after --. usage: " + USAGE);
            environment(out);
            return 0;
        }
        if (trace != null && verify != null) throw new IllegalArgumentException("--trace and --verify: one or the other. usage: " + USAGE);
        Diagnosis before = null;
        TracedRun savedRun = null;
        if (verify != null) {
            if (!Files.isDirectory(verify)) {
                throw new IllegalArgumentException("--verify " + verify + ": no such folder; give the trace folder an earlier ember doctor run printed");
            }
            before = Diagnosis.read(verify);
            savedRun = TracedRun.saved(verify);
        }
        if (trace == null) trace = Files.createTempDirectory("ember-doctor-");
        TracedRun run = TracedRun.run(command, trace, out);
        out.println();
        if (run.exitCode() != 0) out.println("ember doctor: the program exited with code " + run.exitCode() + "; what it traced before that follows");
        Diagnosis after = traced(trace);
        if (after == null) {
            out.println("ember doctor: the program wrote no trace: it compiled nothing (did an Ember.compile'd function run?)");
            return run.exitCode();
        }
        if (before != null) printComparison(before, savedRun, after, run, out);
        printDiagnosis(after, run, out);
        out.println();
        out.println("trace: " + trace.toAbsolutePath() + "  (HTML: ember report " + trace.toAbsolutePath() + ")");
        out.println("after your change: ember doctor --verify " + trace.toAbsolutePath() + " -- " + run.command());
        return run.exitCode();
    }

    /** What the run traced, or null when it wrote no trace file or compiled nothing. */
    private static Diagnosis traced(Path trace) throws IOException {
        boolean written;
        try (var files = Files.list(trace)) {
            written = files.anyMatch(f -> f.getFileName().toString().endsWith(".log"));
        }
        if (!written) return null;
        Diagnosis d = Diagnosis.read(trace);
        return d.totals().compilations() == 0 ? null : d;
    }

    static void printDiagnosis(Diagnosis d, TracedRun run, PrintStream out) {
        Totals t = d.totals();
        out.printf("ember doctor: %s ran %s and exited with %d; %d compilation(s): %d graph(s), %d graph break(s), %d recompile(s)%n",
                shortCommand(run.command()), seconds(run.wallTime()), run.exitCode(), t.compilations(), t.graphs(), t.graphBreaks(), t.recompiles());
        out.printf("  measured: compiling %s, eager at graph breaks %s, checking guards %s%n", time(t.compileTime()), time(t.eagerTime()),
                time(t.guardTime()));
        for (var p : d.problems()) out.println("  warning: " + p);
        if (d.findings().isEmpty()) {
            out.println("  no graph break and no recompile: every compiled function is one graph per input kind");
            return;
        }
        out.println();
        List<Finding> fs = d.findings();
        String[][] rows = new String[fs.size()][];
        for (int i = 0; i < fs.size(); i++) {
            Finding f = fs.get(i);
            rows[i] = new String[] {Integer.toString(i + 1), kind(f), f.where(), time(f.cost()), time(f.perCount()), Long.toString(f.count()),
                    Fixes.gain(f)};
        }
        table(out, new String[] {"rank", "kind", "where", "cost", "per call", "calls", "gain"}, rows, new boolean[] {true, false, false, true, true, true, false});
        for (int i = 0; i < fs.size(); i++) {
            Finding f = fs.get(i);
            out.println();
            out.println((i + 1) + ". " + kind(f) + " in " + f.function() + " at " + f.where() + "  [" + String.join(", ", f.compileIds()) + "]");
            out.println("   why:  " + f.why());
            List<String> fix = Fixes.of(f);
            out.println("   fix:  " + fix.getFirst());
            for (String more : fix.subList(1, fix.size())) out.println("         " + more);
            out.println("   gain: " + Fixes.gain(f) + ": " + Fixes.gainBasis(f));
        }
    }

    private static void printComparison(Diagnosis before, TracedRun beforeRun, Diagnosis after, TracedRun afterRun, PrintStream out) {
        Totals b = before.totals(), a = after.totals();
        out.println("ember doctor --verify: the saved run (before) and this one (after)");
        String[][] rows = {
                count("graphs", b.graphs(), a.graphs()),
                count("graph breaks", b.graphBreaks(), a.graphBreaks()),
                count("recompiles", b.recompiles(), a.recompiles()),
                times("compile time", b.compileTime(), a.compileTime()),
                times("eager at breaks", b.eagerTime(), a.eagerTime()),
                times("guard checks", b.guardTime(), a.guardTime()),
                beforeRun == null ? new String[] {"run time", "(not saved)", seconds(afterRun.wallTime()), ""}
                        : new String[] {"run time", seconds(beforeRun.wallTime()), seconds(afterRun.wallTime()),
                                signed(afterRun.wallTime() - beforeRun.wallTime(), Doctor::seconds)},
        };
        table(out, new String[] {"", "before", "after", "change"}, rows, new boolean[] {false, true, true, true});
        out.println();
    }

    private static String[] count(String what, int before, int after) {
        return new String[] {what, Integer.toString(before), Integer.toString(after), after == before ? "same" : String.format("%+d", after - before)};
    }

    private static String[] times(String what, double before, double after) {
        return new String[] {what, time(before), time(after), signed(after - before, Doctor::time)};
    }

    private static String signed(double delta, java.util.function.DoubleFunction<String> format) {
        return (delta >= 0 ? "+" : "-") + format.apply(Math.abs(delta));
    }

    /** {@code java … Slow.java}: the program and its last argument, when the whole command (a class path…) is too long to read. */
    private static String shortCommand(String command) {
        if (command.length() <= 60) return command;
        String[] words = command.split(" ");
        return Path.of(words[0]).getFileName() + " … " + words[words.length - 1].replaceAll(".*/", "");
    }

    private static String kind(Finding f) {
        return f.kind() == Kind.GRAPH_BREAK ? "graph break " + f.gbId() : f.kind().text();
    }

    /** An aligned table: a header, a rule, the rows; {@code right} marks the columns of numbers. */
    static void table(PrintStream out, String[] header, String[][] rows, boolean[] right) {
        int[] w = new int[header.length];
        for (int c = 0; c < w.length; c++) {
            w[c] = header[c].length();
            for (String[] r : rows) w[c] = Math.max(w[c], r[c].length());
        }
        line(out, header, w, right);
        String[] rule = new String[w.length];
        for (int c = 0; c < w.length; c++) rule[c] = "-".repeat(w[c]);
        line(out, rule, w, right);
        for (String[] r : rows) line(out, r, w, right);
    }

    private static void line(PrintStream out, String[] cells, int[] w, boolean[] right) {
        StringBuilder sb = new StringBuilder("  ");
        for (int c = 0; c < cells.length; c++) {
            String pad = " ".repeat(w[c] - cells[c].length());
            sb.append(right[c] ? pad + cells[c] : cells[c] + pad).append(c + 1 < cells.length ? "  " : "");
        }
        out.println(sb.toString().stripTrailing());
    }

    /** {@code 41.2 ms}, {@code 0.052 ms}: milliseconds, three decimals below one. */
    static String time(double seconds) {
        double ms = seconds * 1000;
        return String.format(ms >= 1 ? "%.1f ms" : "%.3f ms", ms);
    }

    private static String seconds(double s) {
        return Double.isNaN(s) ? "?" : String.format("%.2f s", s);
    }

    private static void help(PrintStream out) {
        out.println("usage: " + USAGE);
        out.println("  ember doctor                      what Ember runs on here: JDK, OS, cores, memory, BLAS backend");
        out.println("  ember doctor -- <command…>        runs the command with the trace on (EMBER_TRACE), then ranks every graph");
        out.println("                                    break and recompile by measured cost, with where, why, the fix and the gain");
        out.println("  --trace <dir>                     where to keep the trace (an empty folder; default: a new temporary one)");
        out.println("  --verify <dir>                    runs the command again and prints before/after against the run traced in <dir>");
        out.println("  See docs/doctor.md.");
    }

    private static void environment(PrintStream out) {
        Runtime rt = Runtime.getRuntime();
        out.printf("%-10s %s%n", "ember", BuildIdentity.describe());
        out.printf("%-10s %s (%s)%n", "java", System.getProperty("java.version"), System.getProperty("java.home"));
        out.printf("%-10s %s %s%n", "os", System.getProperty("os.name"), System.getProperty("os.arch"));
        Machine machine = Machine.current();
        out.printf("%-10s %s%n", "cpu", machine.cpu());
        out.printf("%-10s %d threads (-XX:ActiveProcessorCount=N picks fewer), %d-bit float vectors%n", "cores", machine.threads(), machine.vectorBits());
        out.printf("%-10s %s%n", "caches", machine.describeCaches());
        out.printf("%-10s %d MiB max heap%n", "memory", rt.maxMemory() >> 20);
        out.printf("%-10s %s%n", "gemm", Ember.gemmBackend());
        KernelTuning tuning = Ember.kernelTuning();
        out.printf("%-10s %s%n", "tuning", tuning.source().equals("defaults")
                ? "defaults for " + tuning.baseline() + " (`ember tune` measures this machine: docs/tuning.md)"
                : tuning.source() + " (measured against " + tuning.baseline() + ")");
        out.printf("%-10s %s%n", "warm-up", Ember.compiledKernelWarmUp());
    }
}
