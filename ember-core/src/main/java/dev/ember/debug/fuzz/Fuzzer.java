package dev.ember.debug.fuzz;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The differential fuzzer's loop: program {@code i} of a run is generated from seed
 * {@code seed + i}, so any failing program is regenerated alone by its own seed. Programs are
 * compiled by javac in batches, each run eagerly, as its float64 reference and under every
 * configuration; a failing program is shrunk and written as a runnable repro.
 */
public final class Fuzzer {
    /** Programs per javac task: javac's fixed cost per task dominates a single small class. */
    private static final int BATCH = 32;

    /**
     * {@code graphs} programs from {@code seed} (at most, when {@code limit} runs out first; null
     * for no time limit), under {@code configs}; repros go to {@code outDir}.
     */
    public record Settings(long seed, long graphs, Duration limit, List<Config> configs, Path outDir) {
        public Settings {
            if (graphs < 0) throw new IllegalArgumentException("the number of programs must be 0 or more, got " + graphs);
            if (limit != null && limit.isNegative()) throw new IllegalArgumentException("the time limit must be positive, got " + limit);
            if (configs.isEmpty()) throw new IllegalArgumentException("no configuration to compare with eager");
            configs = List.copyOf(configs);
        }
    }

    /** Hears about progress (after each batch) and about each failure, once its repro is written. */
    public interface Listener {
        void progress(FuzzStats stats, Duration elapsed);

        void failure(Failure failure, Program minimized, Path repro);
    }

    private Fuzzer() {}

    public static FuzzStats run(Settings s, Listener listener) {
        FuzzStats stats = new FuzzStats(s.configs());
        long start = System.nanoTime();
        for (long next = 0; next < s.graphs(); next += BATCH) {
            if (s.limit() != null && System.nanoTime() - start > s.limit().toNanos()) break;
            List<Program> batch = new ArrayList<>();
            for (long i = next; i < Math.min(s.graphs(), next + BATCH); i++) batch.add(ProgramGenerator.generate(s.seed() + i));
            for (LoadedProgram p : LoadedProgram.load(batch)) {
                if (s.limit() != null && System.nanoTime() - start > s.limit().toNanos()) break;
                // generated programs break the graph by design: their "runs eagerly" warnings, thousands a minute, would bury
                // the progress lines; logs the user switched on (EMBER_LOGS) still print
                DifferentialRunner.Result r = System.getenv("EMBER_LOGS") == null
                        ? dev.ember.logging.Log.quietly(() -> DifferentialRunner.run(p, s.configs()))
                        : DifferentialRunner.run(p, s.configs());
                stats.add(p.program(), r);
                report(p.program(), r, s.outDir(), listener);
            }
            listener.progress(stats, Duration.ofNanos(System.nanoTime() - start));
        }
        return stats;
    }

    /** Shrinks a failing program under its first failing configuration and writes the repro. */
    private static void report(Program program, DifferentialRunner.Result r, Path outDir, Listener listener) {
        Map<Config, DifferentialRunner.Disagreement> failed = new LinkedHashMap<>(r.outcomes());
        failed.values().removeIf(java.util.Objects::isNull);
        if (failed.isEmpty()) return;
        var first = failed.entrySet().iterator().next();
        Failure failure = new Failure(program, first.getKey(), first.getValue());
        Program minimized = Shrinker.shrink(program, candidate -> failsSameWay(candidate, failure));
        Path repro = ReproWriter.write(outDir, failure, minimized);
        for (var e : failed.entrySet()) {
            Failure f = new Failure(program, e.getKey(), e.getValue());
            listener.failure(f, minimized, repro);
        }
    }

    /** Whether {@code candidate} fails under the failure's configuration with the same kind of disagreement. */
    static boolean failsSameWay(Program candidate, Failure failure) {
        LoadedProgram p;
        try {
            p = LoadedProgram.load(List.of(candidate)).getFirst();
        } catch (ProgramCompiler.CompileError e) {
            return false;
        }
        DifferentialRunner.Disagreement d = DifferentialRunner.run(p, List.of(failure.config())).outcomes().get(failure.config());
        return d != null && d.kind() == failure.what().kind();
    }
}
