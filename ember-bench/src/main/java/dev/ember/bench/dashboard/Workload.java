package dev.ember.bench.dashboard;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * One row of the dashboard: where each of its columns' figures comes from, and which two columns its ratio
 * compares ({@code reference} time ÷ {@code compared} time, so above 1 means {@code compared} is faster).
 */
public record Workload(String label, Column compared, Column reference, Map<Column, Source> sources) {

    /** Where one figure comes from. */
    public sealed interface Source permits JmhBenchmark, PeerFigure {}

    /** A JMH benchmark without parameters, by its full name ({@code dev.ember.bench.InductorNormBench.softmax_eager}). */
    public record JmhBenchmark(String name) implements Source {}

    /** One figure of the torch peer's JSON: {@code results.<workload>.<field>}, in milliseconds. */
    public record PeerFigure(String workload, String field) implements Source {}

    public Workload {
        Objects.requireNonNull(label);
        sources = Collections.unmodifiableMap(new EnumMap<>(sources));
        if (!sources.containsKey(compared) || !sources.containsKey(reference)) {
            throw new IllegalArgumentException(label + ": the ratio's columns " + compared + " and " + reference + " need a source each");
        }
    }

    /** What this row's ratio compares, e.g. "Ember compiled vs torch.compile". */
    public String ratioMeaning() {
        return compared.heading + " vs " + reference.heading;
    }
}
