package dev.ember.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code ember} command: one subcommand per job, each with its own help line. */
public final class Main {

    interface Command { int run(String[] args, PrintStream out) throws Exception; }

    private record Entry(String usage, String summary, Command command) {}

    private static final Map<String, Entry> COMMANDS = new LinkedHashMap<>();

    static {
        COMMANDS.put("demo", new Entry("ember demo", "a tour: tensors, a CNN, Ember.compile, a recompile, a graph break, explain, a trace report, inductor vs eager", Demo::run));
        COMMANDS.put("example", new Entry("ember example [name]", "list the example programs, or run one", ExampleCommand::run));
        COMMANDS.put("report", new Entry(ReportCommand.USAGE, "HTML report of a structured trace (EMBER_TRACE=<dir>)", ReportCommand::run));
        COMMANDS.put("bisect", new Entry(BisectCommand.USAGE, "which backend, then which decomposition, lowering or fusion first makes a failing program fail", BisectCommand::run));
        COMMANDS.put("minify", new Entry(MinifyCommand.USAGE, "shrink a failing graph a repro level saved (EMBER_REPRO_LEVEL=2) to the smallest that fails; run: replay it", MinifyCommand::run));
        COMMANDS.put("fuzz", new Entry(FuzzCommand.USAGE, "differential fuzzer: random programs, compiled vs eager in every backend and mode", FuzzCommand::run));
        COMMANDS.put("tune", new Entry(TuneCommand.USAGE, "measure where Ember's own GEMM kernels beat the native BLAS on this machine, and keep it for every later run", TuneCommand::run));
        COMMANDS.put("doctor", new Entry("ember doctor [-- <command…>]", "what Ember runs on here; with a command: run it traced, rank every graph break and recompile by measured cost, with the fix", Doctor::run));
    }

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h") || args[0].equals("help")) {
            help(out);
            return args.length == 0 ? 2 : 0;
        }
        Entry e = COMMANDS.get(args[0]);
        if (e == null) {
            err.println("ember: unknown command '" + args[0] + "'. Commands: " + String.join(", ", COMMANDS.keySet()) + " (ember --help)");
            return 2;
        }
        try {
            return e.command.run(Arrays.copyOfRange(args, 1, args.length), out);
        } catch (IllegalArgumentException ex) {
            err.println("ember " + args[0] + ": " + ex.getMessage());
            return 2;
        } catch (Exception ex) {
            err.println("ember " + args[0] + " failed: " + ex);
            ex.printStackTrace(err);
            return 1;
        }
    }

    static void help(PrintStream out) {
        out.println("ember — torch.compile for the JVM");
        out.println();
        out.println("usage: ./ember <command> [options]");
        out.println();
        int w = COMMANDS.values().stream().mapToInt(e -> e.usage.length()).max().orElse(10);
        for (Entry e : COMMANDS.values()) out.printf("  %-" + w + "s   %s%n", e.usage, e.summary);
        out.printf("  %-" + w + "s   %s%n", "ember test", "run the whole test suite (what CI runs)");
        out.printf("  %-" + w + "s   %s%n", "ember build", "build (done automatically on first use)");
        out.printf("  %-" + w + "s   %s%n", "ember bench [JMH args]", "JMH benchmarks on JDK 25 (docs/benchmarks.md), e.g. ember bench InductorNormBench -wi 3 -i 5");
        out.printf("  %-" + w + "s   %s%n", "ember bench --threads N [JMH args]", "the same on N threads (the JVM, the native BLAS and libtorch told N): the scaling table, docs/tuning.md");
        out.printf("  %-" + w + "s   %s%n", "ember bench compile-time", "the MLP's compile time in this fresh JVM (EMBER_CACHE_DIR picks the cache)");
        out.printf("  %-" + w + "s   %s%n", "ember bench --report [regex] [JMH args]",
                "JMH and the torch peer into one HTML dashboard, ember-bench/target/bench-report/index.html");
    }
}
