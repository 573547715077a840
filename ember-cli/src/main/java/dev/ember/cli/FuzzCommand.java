package dev.ember.cli;

import dev.ember.debug.BuildIdentity;
import dev.ember.debug.fuzz.Config;
import dev.ember.debug.fuzz.Failure;
import dev.ember.debug.fuzz.FuzzStats;
import dev.ember.debug.fuzz.Fuzzer;
import dev.ember.debug.fuzz.Program;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * {@code ember fuzz}: the differential fuzzer (docs/reliability.md). Generates random tensor
 * programs, runs each eagerly and under every backend and mode, and exits 1 when any compiled run
 * disagrees with eager, after writing a minimized repro of each failing program.
 */
final class FuzzCommand {
    private FuzzCommand() {}

    static final String USAGE = "ember fuzz [--graphs N] [--seed S] [--minutes M] [--backends a,b] [--out DIR]";

    static int run(String[] args, PrintStream out) {
        Long graphs = null, seed = null;
        Duration limit = null;
        List<Config> configs = Config.ALL;
        Path outDir = Path.of("ember-fuzz");
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                help(out);
                return 0;
            }
            if (!List.of("--graphs", "--seed", "--minutes", "--backends", "--out").contains(a)) {
                throw new IllegalArgumentException("unknown option " + a + ". usage: " + USAGE);
            }
            if (i + 1 >= args.length) throw new IllegalArgumentException(a + " needs a value. usage: " + USAGE);
            String v = args[++i];
            switch (a) {
                case "--graphs" -> graphs = number(a, v);
                case "--seed" -> seed = number(a, v);
                case "--minutes" -> {
                    double m = decimal(a, v);
                    if (m <= 0) throw new IllegalArgumentException("--minutes must be more than 0, got " + v);
                    limit = Duration.ofMillis((long) (m * 60_000));
                }
                case "--backends" -> configs = Config.parse(v);
                default -> outDir = Path.of(v);
            }
        }
        if (graphs != null && graphs < 0) throw new IllegalArgumentException("--graphs must be 0 or more, got " + graphs);
        long n = graphs != null ? graphs : limit != null ? Long.MAX_VALUE : 100;
        long s = seed != null ? seed : System.currentTimeMillis();
        out.println("ember fuzz: " + (n == Long.MAX_VALUE ? "programs" : n + " programs") + " from seed " + s
                + (limit != null ? " for at most " + limit.toSeconds() + " s" : "") + ", each against eager under "
                + String.join(", ", configs.stream().map(Config::name).toList()));
        out.println("  failing programs are minimized and written to " + outDir.toAbsolutePath());
        out.println("  " + BuildIdentity.line());
        long start = System.nanoTime();
        FuzzStats stats = Fuzzer.run(new Fuzzer.Settings(s, n, limit, configs, outDir), new Fuzzer.Listener() {
            @Override
            public void progress(FuzzStats st, Duration elapsed) {
                out.printf("  %7d programs  %6.2f/s  %d failure(s)  %s%n", st.programs(), rate(st, elapsed), st.failures().size(), clock(elapsed));
            }

            @Override
            public void failure(Failure f, Program minimized, Path repro) {
                out.println("FAILURE seed " + f.program().seed() + "  " + f.config().name());
                out.println("  " + f.what());
                out.println("  minimized from " + f.program().body().size() + " to " + minimized.body().size() + " statement(s): " + repro);
            }
        });
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        out.println();
        out.print(stats.table());
        out.printf("%d programs in %s (%.2f programs/s); eager threw in %d (compiled must throw the same); %d failure(s)%n",
                stats.programs(), clock(elapsed), rate(stats, elapsed), stats.eagerThrew(), stats.failures().size());
        int sensitive = dev.ember.debug.fuzz.DifferentialRunner.sensitiveLoops();
        if (sensitive > 0) {
            out.printf("  %d training loop(s) parted from eager's only through their own sensitivity: each compiled step, started from eager's state, agreed with eager's%n", sensitive);
        }
        for (String e : stats.eagerErrors()) out.println("  eager threw, " + e);
        return stats.failures().isEmpty() ? 0 : 1;
    }

    private static double rate(FuzzStats st, Duration elapsed) { return st.programs() / Math.max(1e-9, elapsed.toNanos() / 1e9); }

    private static String clock(Duration d) { return String.format("%d:%02d", d.toMinutes(), d.toSecondsPart()); }

    private static long number(String option, String v) {
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a whole number, got '" + v + "'");
        }
    }

    private static double decimal(String option, String v) {
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a number, got '" + v + "'");
        }
    }

    private static void help(PrintStream out) {
        out.println("usage: " + USAGE);
        out.println("  Generates random, well-typed tensor programs (Java source, compiled with javac), runs each eagerly and");
        out.println("  compiled, and compares with the float64-referenced accuracy rule. Program i is made from seed S+i.");
        out.println("  --graphs N     how many programs (default 100; unlimited with --minutes alone)");
        out.println("  --seed S       the first program's seed (default: the clock, printed)");
        out.println("  --minutes M    stop after M minutes");
        out.println("  --backends     comma-separated: eager, aot_eager, inductor (all its modes) or one of");
        out.println("                 " + String.join(", ", Config.ALL.stream().map(Config::name).toList()));
        out.println("  --out DIR      where repros are written (default ./ember-fuzz)");
        out.println("  Exit status: 0 no failure, 1 a compiled run disagreed with eager, 2 bad arguments.");
    }
}
