package dev.ember.tuning;

import java.util.List;

/**
 * What one {@code ember tune} found ({@code Ember.tuneKernels}): the tuning, every measurement
 * behind it, and notes on what was not measured and why.
 */
public record TuningRun(KernelTuning tuning, List<Measurement> measurements, List<String> notes) {

    public TuningRun {
        measurements = List.copyOf(measurements);
        notes = List.copyOf(notes);
    }

    /** Which choice a measurement informs, and what its two candidates are. */
    public enum Choice {
        DOT("GemmDot", "Java", "native BLAS"),
        BROADCAST("GemmBroadcast", "Java", "native BLAS"),
        BANDS("batched bands", "bands", "one at a time");

        private final String label, candidate, baseline;

        Choice(String label, String candidate, String baseline) {
            this.label = label;
            this.candidate = candidate;
            this.baseline = baseline;
        }

        public String label() { return label; }
    }

    /**
     * One {@code m x n x k} shape timed both ways, best of several calls: {@code candidateMs} is the
     * Java kernel (or the banded batch), {@code baselineMs} OpenBLAS (or one product at a time).
     */
    public record Measurement(Choice choice, String sweep, int m, int n, int k, double candidateMs, double baselineMs) {
        public boolean candidateWins() { return candidateMs < baselineMs; }
    }

    /** One aligned row per measurement, under a header. */
    public String table() {
        StringBuilder s = new StringBuilder(String.format("%-14s %-13s %5s %5s %5s %10s %12s  %s%n",
                "kernel", "sweep", "m", "n", "k", "Java ms", "baseline ms", "faster"));
        for (Measurement r : measurements) {
            Choice c = r.choice();
            s.append(String.format("%-14s %-13s %5d %5d %5d %10.3f %12.3f  %s (%.2fx)%n", c.label, r.sweep(), r.m(), r.n(), r.k(),
                    r.candidateMs(), r.baselineMs(), r.candidateWins() ? c.candidate : c.baseline,
                    r.candidateWins() ? r.baselineMs() / r.candidateMs() : r.candidateMs() / r.baselineMs()));
        }
        return s.toString();
    }
}
