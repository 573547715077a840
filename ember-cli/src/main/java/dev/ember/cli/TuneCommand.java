package dev.ember.cli;

import dev.ember.Ember;
import dev.ember.tuning.KernelTuning;
import dev.ember.tuning.KernelTuning.FewRowRule;
import dev.ember.tuning.Machine;
import dev.ember.tuning.TuningRun;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;

/**
 * {@code ember tune}: measures the kernel choices fitted by measurement ({@link KernelTuning}) on
 * this machine and writes them where every later Ember JVM on it looks (docs/tuning.md).
 */
final class TuneCommand {
    private TuneCommand() {}

    static final String USAGE = "ember tune [--dry-run] [--out <file>]";

    static int run(String[] args, PrintStream out) {
        boolean dryRun = false;
        Path file = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-h", "--help" -> {
                    out.println("usage: " + USAGE);
                    out.println("  measures where Ember's few-row GEMM kernels beat the native BLAS (oneMKL or OpenBLAS) and how thin a batched product's bands may be,");
                    out.println("  on this machine, and writes them to " + KernelTuning.file(Machine.current()));
                    out.println("  --dry-run        measure and print, write nothing");
                    out.println("  --out <file>     write there instead (use it with EMBER_TUNING=<file>)");
                    out.println("  See docs/tuning.md.");
                    return 0;
                }
                case "--dry-run" -> dryRun = true;
                case "--out" -> {
                    if (i + 1 >= args.length) throw new IllegalArgumentException("--out needs a file. usage: " + USAGE);
                    file = Path.of(args[++i]);
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + ". usage: " + USAGE);
            }
        }
        Machine machine = Machine.current();
        if (file == null) file = KernelTuning.file(machine);
        out.printf("%-10s %s%n", "cpu", machine.cpu());
        out.printf("%-10s %d (the JVM's; -XX:ActiveProcessorCount=N picks fewer)%n", "threads", machine.threads());
        out.printf("%-10s %d-bit float vectors%n", "vectors", machine.vectorBits());
        out.printf("%-10s %s%n", "caches", machine.describeCaches());
        out.printf("%-10s %s (against %s)%n%n", "in use", Ember.kernelTuning().source(), Ember.kernelTuning().baseline());
        TuningRun result = Ember.tuneKernels(out);
        out.println();
        if (!result.measurements().isEmpty()) out.print(result.table());
        for (String note : result.notes()) out.println("note: " + note);
        out.println();
        KernelTuning found = result.tuning(), d = KernelTuning.defaults(found.baseline());
        choice(out, "GemmDot (A·Bᵀ) instead of the native BLAS where", describe(found.dot()), describe(d.dot()));
        choice(out, "GemmBroadcast (A·B) instead of the native BLAS where", describe(found.broadcast()), describe(d.broadcast()));
        choice(out, "the fewest rows of a batched product's band", bands(found.minBandRows()), bands(d.minBandRows()));
        if (dryRun) {
            out.println("\n--dry-run: nothing written.");
            return 0;
        }
        found.write(file, "ember tune, " + Instant.now() + ", on " + machine.cpu() + ", " + machine.threads() + " threads, "
                + machine.vectorBits() + "-bit vectors, " + machine.describeCaches()
                + "\nread by every Ember JVM on a machine with this key; EMBER_TUNING=defaults ignores it (docs/tuning.md)");
        out.println("\nwritten to " + file);
        out.println("every Ember JVM on this machine (same CPU, threads, vector width, L2) now uses it; EMBER_TUNING=defaults ignores it.");
        return 0;
    }

    private static void choice(PrintStream out, String what, String measured, String fallback) {
        out.println(what);
        out.printf("  %-14s %s%n", "measured here", measured);
        out.printf("  %-14s %s%n", "default", fallback);
    }

    private static String bands(int minBandRows) {
        return minBandRows >= KernelTuning.NO_BANDS ? "none: bands never won, products run one at a time" : String.valueOf(minBandRows);
    }

    /** {@code "m ≤ 16, or m ≤ 256 with k ≥ 512, n ≥ 256"}. */
    static String describe(FewRowRule r) {
        String few = "m ≤ " + r.fewRows() + (r.fewRowsMinColumns() > 0 ? " (n ≥ " + r.fewRowsMinColumns() + ")" : "");
        if (r.maxRows() <= r.fewRows()) return few;
        return few + ", or m ≤ " + r.maxRows() + " with k ≥ " + r.minReduction() + ", n ≥ " + r.minColumns();
    }
}
