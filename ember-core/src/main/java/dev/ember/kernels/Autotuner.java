package dev.ember.kernels;

import dev.ember.tuning.KernelTuning;
import dev.ember.tuning.Machine;
import dev.ember.tuning.TuningRun;
import dev.ember.tuning.TuningRun.Choice;
import dev.ember.tuning.TuningRun.Measurement;
import jdk.incubator.vector.FloatVector;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * {@code ember tune}: measures, on the machine it runs on, the choices {@link KernelTuning} holds,
 * by timing both candidates on a fixed grid of shapes (best of several calls each, the two
 * candidates alternating so that a noisy neighbour hurts both alike):
 *
 * <ul>
 *   <li>For each few-row GEMM kernel ({@link GemmDot}: A times a transposed B, as a linear layer;
 *       {@link GemmBroadcast}: A times a row-major B) against OpenBLAS:
 *       <ul>
 *         <li>{@code fewRows}: rows {@value #ROWS_TEXT} at {@code n = 2048}, a short reduction
 *             {@code k = 256}: the row count up to which the Java kernel should run;</li>
 *         <li>{@code maxRows}: the same rows with a long reduction {@code k = 2048};</li>
 *         <li>{@code minReduction}: reductions 128…2048 at the largest row count above
 *             {@code fewRows} the Java kernel won: the shortest from which it should run;</li>
 *         <li>{@code minColumns}: columns 128…2048 at that row count and {@code k = 2048}, likewise.</li>
 *       </ul></li>
 *   <li>{@code minBandRows}: 8 products of 256 rows whose bands would have 8, 16, 32 or 64 rows,
 *       cut into bands across cores against one product at a time with OpenBLAS threading each:
 *       the fewest rows from which bands should be cut (with one thread there is nothing to
 *       spread, and the default stays).</li>
 * </ul>
 *
 * Each bound is the one that costs least over its sweep: the sum, over the shapes it puts on the
 * wrong side, of how much slower the other choice was there ({@link #prefix}, {@link #fromOnward}),
 * so that one noisy shape or a tie does not decide it.
 *
 * Without 512-bit vectors the Java kernels never run ({@link GemmDot#suits}), and without OpenBLAS
 * there is nothing to compare: their rules keep the defaults and the result says why.
 */
public final class Autotuner {
    // reached through Ember.tuneKernels, the public entry
    private Autotuner() {}

    static final int[] ROWS = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
    static final String ROWS_TEXT = "1, 2, 4 … 512";
    static final int[] REDUCTIONS = {128, 256, 512, 1024, 2048};
    static final int[] COLUMNS = {128, 256, 512, 1024, 2048};
    static final int[] BANDS = {8, 16, 32, 64};
    static final int WIDE = 2048, SHORT_REDUCTION = 256, LONG_REDUCTION = 2048;
    /** Passes over each sweep (see {@link #sweep}). */
    static final int ROUNDS = 3;

    /** Times one shape both ways; the real one runs the kernels, tests give fixed timings to check the derivation. */
    @FunctionalInterface
    interface Timing { Measurement time(Choice kernel, String sweep, int m, int n, int k); }

    /** Measures this machine (a minute or less) and returns the tuning; {@code progress} gets a line per sweep. */
    public static TuningRun run(PrintStream progress) {
        Machine machine = Machine.current();
        List<String> notes = new ArrayList<>();
        boolean wide = FloatVector.SPECIES_PREFERRED.vectorBitSize() >= 512;
        boolean blas = Blas.nativeAvailable();
        if (!wide) notes.add("the few-row kernels need 512-bit vectors and this machine has " + machine.vectorBits() + "-bit ones: they never run, their rules are not measured");
        if (!blas) notes.add("no native BLAS is available (" + Blas.backendDescription() + "): nothing to compare the kernels with");
        if (machine.threads() < 2) notes.add("one thread: bands of a batched product have no cores to spread over; minBandRows keeps its default");
        Bench bench = new Bench();
        if (wide && blas) {
            progress.println("warming the kernels up (the JIT compiles them) ...");
            bench.warmUp();
        }
        return derive(bench::time, wide && blas, blas && machine.threads() >= 2, progress, notes);
    }

    /**
     * The tuning the measurements of {@code timing} imply. {@code gemm}: whether to measure the
     * few-row kernels; {@code bands}: whether to measure the band planner.
     */
    static TuningRun derive(Timing timing, boolean gemm, boolean bands, PrintStream progress, List<String> notes) {
        List<Measurement> all = new ArrayList<>();
        KernelTuning d = KernelTuning.defaults(Blas.baseline());
        KernelTuning.FewRowRule dot = gemm ? rule(timing, Choice.DOT, d.dot(), all, progress) : d.dot();
        KernelTuning.FewRowRule broadcast = gemm ? rule(timing, Choice.BROADCAST, d.broadcast(), all, progress) : d.broadcast();
        int minBand = d.minBandRows();
        if (bands) {
            progress.println("sweeping batched bands ...");
            List<Measurement> sweep = sweep(timing, Choice.BANDS, "minBandRows", shapes(BANDS, band -> new int[] {256, 128, (int) (Gemm.SINGLE_THREADED_WORK / (128L * band))}));
            all.addAll(sweep);
            int from = fromOnward(sweep);
            minBand = from < 0 ? KernelTuning.NO_BANDS : BANDS[from];
        }
        return new TuningRun(new KernelTuning(dot, broadcast, minBand, "measured", Blas.baseline()), all, notes);
    }

    private static KernelTuning.FewRowRule rule(Timing timing, Choice kernel, KernelTuning.FewRowRule d, List<Measurement> all, PrintStream progress) {
        progress.println("sweeping " + kernel.label() + " against " + Blas.backendDescription() + " ...");
        List<Measurement> shortRows = sweep(timing, kernel, "fewRows", shapes(ROWS, m -> new int[] {m, WIDE, SHORT_REDUCTION}));
        List<Measurement> longRows = sweep(timing, kernel, "maxRows", shapes(ROWS, m -> new int[] {m, WIDE, LONG_REDUCTION}));
        all.addAll(shortRows);
        all.addAll(longRows);
        int few = prefix(shortRows), max = prefix(longRows);
        int fewRows = few < 0 ? 0 : ROWS[few];
        if (max < 0 || ROWS[max] <= fewRows) {
            // long reductions win no more rows than short ones: the second branch adds nothing
            return new KernelTuning.FewRowRule(fewRows, d.fewRowsMinColumns(), fewRows, d.minReduction(), d.minColumns());
        }
        int probe = ROWS[max];
        List<Measurement> reductions = sweep(timing, kernel, "minReduction", shapes(REDUCTIONS, k -> new int[] {probe, WIDE, k}));
        List<Measurement> columns = sweep(timing, kernel, "minColumns", shapes(COLUMNS, n -> new int[] {probe, n, LONG_REDUCTION}));
        all.addAll(reductions);
        all.addAll(columns);
        int fromK = fromOnward(reductions), fromN = fromOnward(columns);
        return new KernelTuning.FewRowRule(fewRows, d.fewRowsMinColumns(), probe,
                fromK < 0 ? LONG_REDUCTION : REDUCTIONS[fromK], fromN < 0 ? WIDE : COLUMNS[fromN]);
    }

    /** One {@code {m, n, k}} shape per value. */
    private static List<int[]> shapes(int[] values, java.util.function.IntFunction<int[]> shape) {
        List<int[]> shapes = new ArrayList<>();
        for (int v : values) shapes.add(shape.apply(v));
        return shapes;
    }

    /**
     * Every shape ({@code m, n, k}) timed in {@value #ROUNDS} rounds, each round a pass over the
     * whole sweep, keeping each candidate's best: a burst of other work on the machine slows one
     * round's shape, rarely the same shape in every round.
     */
    static List<Measurement> sweep(Timing timing, Choice kernel, String name, List<int[]> shapes) {
        List<Measurement> best = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            for (int i = 0; i < shapes.size(); i++) {
                int[] s = shapes.get(i);
                Measurement m = timing.time(kernel, name, s[0], s[1], s[2]);
                if (round == 0) best.add(m);
                else best.set(i, new Measurement(kernel, name, s[0], s[1], s[2],
                        Math.min(best.get(i).candidateMs(), m.candidateMs()), Math.min(best.get(i).baselineMs(), m.baselineMs())));
            }
        }
        return best;
    }

    /**
     * How much a wrong choice at {@code m} costs, relative: {@code |ln(candidate / baseline)|}, so
     * that a 1% tie weighs little and a shape of any size counts alike.
     */
    private static double regret(Measurement m) { return Math.abs(Math.log(m.candidateMs() / m.baselineMs())); }

    /**
     * The boundary of "the candidate for the first {@code i + 1} measurements, the baseline for the
     * rest" that costs the least over the sweep (the sum of {@link #regret} of every measurement
     * on the wrong side), as an index from -1 (never the candidate); ties go to fewer. One noisy
     * measurement cannot move the boundary past a run of clear ones: a first loss by 14% at one
     * row among wins by 2-4x at 2 to 32 rows (GemmBroadcast, session 18) no longer ends the run.
     */
    static int prefix(List<Measurement> sweep) {
        int best = -1;
        double bestCost = Double.MAX_VALUE;
        for (int i = -1; i < sweep.size(); i++) {
            double cost = 0;
            for (int j = 0; j < sweep.size(); j++) {
                boolean candidate = j <= i;
                if (candidate != sweep.get(j).candidateWins()) cost += regret(sweep.get(j));
            }
            if (cost < bestCost) {
                bestCost = cost;
                best = i;
            }
        }
        return best;
    }

    /**
     * The boundary of "the baseline before index {@code i}, the candidate from it on" that costs
     * the least over the sweep, or -1 for never the candidate; ties go to later (fewer shapes for
     * the candidate). A tie at the longest reduction (2.126 against 2.124 ms) no longer rules the
     * candidate out everywhere.
     */
    static int fromOnward(List<Measurement> sweep) {
        int best = -1;
        double bestCost = Double.MAX_VALUE;
        for (int i = sweep.size(); i >= 0; i--) {
            double cost = 0;
            for (int j = 0; j < sweep.size(); j++) {
                boolean candidate = j >= i;
                if (candidate != sweep.get(j).candidateWins()) cost += regret(sweep.get(j));
            }
            if (cost < bestCost) {
                bestCost = cost;
                best = i == sweep.size() ? -1 : i;
            }
        }
        return best;
    }

    /** The real timing: both candidates on random operands, alternating, best of several calls. */
    private static final class Bench {
        final float[] a, b, c;

        Bench() {
            Random r = new Random(7);
            a = new float[ROWS[ROWS.length - 1] * WIDE];
            b = new float[WIDE * Math.max(WIDE, LONG_REDUCTION)];
            c = new float[ROWS[ROWS.length - 1] * WIDE];
            for (int i = 0; i < a.length; i++) a[i] = (float) r.nextGaussian();
            for (int i = 0; i < b.length; i++) b[i] = (float) r.nextGaussian();
        }

        /** Until the JIT has compiled every path the sweeps take: whole 4-row tiles, leftover rows, both kernels, the bands. */
        void warmUp() {
            long end = System.nanoTime() + 3_000_000_000L;
            while (System.nanoTime() < end) {
                for (int m : new int[] {1, 2, 3, 5, 64}) {
                    java(Choice.DOT, m, 512, 512);
                    java(Choice.BROADCAST, m, 512, 512);
                }
                batched(1, 256, 128, 32);
            }
        }

        Measurement time(Choice kernel, String sweep, int m, int n, int k) {
            double best0 = Double.MAX_VALUE, best1 = Double.MAX_VALUE;
            candidate(kernel, m, n, k);
            baseline(kernel, m, n, k);
            long budget = 100_000_000L, start = System.nanoTime();
            for (int rep = 0; rep < 5 || (rep < 100 && System.nanoTime() - start < budget); rep++) {
                best0 = Math.min(best0, timeOnce(() -> candidate(kernel, m, n, k)));
                best1 = Math.min(best1, timeOnce(() -> baseline(kernel, m, n, k)));
            }
            return new Measurement(kernel, sweep, m, n, k, best0, best1);
        }

        private static double timeOnce(Runnable r) {
            long t0 = System.nanoTime();
            r.run();
            return (System.nanoTime() - t0) / 1e6;
        }

        void candidate(Choice kernel, int m, int n, int k) {
            if (kernel == Choice.BANDS) batched(1, m, n, k);
            else java(kernel, m, n, k);
        }

        void baseline(Choice kernel, int m, int n, int k) {
            if (kernel == Choice.BANDS) batched(Integer.MAX_VALUE, m, n, k);
            else Blas.sgemm(false, kernel == Choice.DOT, m, n, k, 1f, a, 0, k, b, 0, kernel == Choice.DOT ? k : n, 0f, c, 0, n);
        }

        void java(Choice kernel, int m, int n, int k) {
            if (kernel == Choice.DOT) GemmDot.multiply(m, n, k, 1f, a, 0, k, b, 0, k, 0f, c, 0, n);
            else GemmBroadcast.multiply(m, n, k, 1f, a, 0, k, b, 0, n, 0f, c, 0, n);
        }

        /** 8 products {@code m x n x k}, planned with {@code minBandRows} (1: always bands; MAX: never). */
        void batched(int minBandRows, int m, int n, int k) {
            int batches = 8;
            Gemm.Operand aOp = new Gemm.Operand(a, 0, k, false), bOp = new Gemm.Operand(b, 0, n, false);
            // a and c hold 512 x 2048 floats: 8 products of 256 x 128 (c) and 256 x k (a, k <= 256) fit
            Gemm.multiplyBatched(minBandRows, batches, m, n, k, 1, aOp, i -> i * m * k, bOp, i -> 0, 0, c, 0, n);
        }
    }
}
