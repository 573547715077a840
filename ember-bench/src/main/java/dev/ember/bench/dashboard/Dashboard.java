package dev.ember.bench.dashboard;

import dev.ember.bench.dashboard.Workload.JmhBenchmark;
import dev.ember.bench.dashboard.Workload.PeerFigure;
import dev.ember.bench.dashboard.Workload.Source;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The dashboard's content: JMH results and the torch peer's figures placed into the {@link Workloads} table,
 * and every result the table does not name, listed so nothing measured disappears.
 *
 * @param rows      the table's rows that got at least one figure, in table order
 * @param unmatched results no row takes, in input order (JMH first, then the peer)
 * @param noResult  the table's benchmarks the run selected that gave no result (JMH goes on past a benchmark
 *                  that throws, so its cell would otherwise just be empty), in table order
 * @param peer      the peer's figures, or null when the peer did not run
 */
public record Dashboard(List<Row> rows, List<Unmatched> unmatched, List<String> noResult, List<JmhResult> jmh, PeerResults peer) {

    /** One table row: milliseconds per column (absent where not measured) and the row's ratio, if both its columns were. */
    public record Row(Workload workload, Map<Column, Double> millis) {
        public Row {
            millis = Collections.unmodifiableMap(new EnumMap<>(millis));
        }

        /** The reference column's time ÷ the compared column's: above 1, the compared configuration is faster. Null when either is missing. */
        public Double ratio() {
            return ratioTo(workload.compared());
        }

        /** The reference column's time ÷ {@code column}'s time (the column's speed relative to the reference), or null. */
        public Double ratioTo(Column column) {
            Double reference = millis.get(workload.reference());
            Double figure = millis.get(column);
            return reference == null || figure == null ? null : reference / figure;
        }
    }

    /** A result no table row names: where it came from, its name, its figure with unit, and why it is not in the table. */
    public record Unmatched(String source, String name, String figure, String reason) {}

    /** The peer's field for the first call of torch.compile (compile included), in seconds. */
    public static final String FIRST_CALL_FIELD = "first_compiled_call_s";

    static String ms(double millis) {
        return Format.millis(millis) + " ms";
    }

    private static String peerFigure(String field, double value) {
        if (field.endsWith("_ms")) return ms(value);
        if (field.endsWith("_s")) return Format.millis(value) + " s";
        return Format.millis(value);
    }

    /**
     * Places {@code jmh} and {@code peer} (null: the peer did not run) into {@code table}. {@code selected} is the
     * JMH selection the run used (null when not known): the table's benchmarks it matches but {@code jmh} lacks are
     * listed as giving no result.
     */
    public static Dashboard build(List<Workload> table, List<JmhResult> jmh, PeerResults peer, Pattern selected) {
        Map<String, JmhResult> byName = new HashMap<>();
        List<Unmatched> unmatched = new ArrayList<>();
        Set<String> tableNames = Workloads.jmhBenchmarks(table);
        for (JmhResult r : jmh) {
            if (!tableNames.contains(r.benchmark())) {
                unmatched.add(new Unmatched("JMH", r.displayName(), ms(r.medianMs()), "no table row names this benchmark"));
            } else if (!r.params().isEmpty()) {
                unmatched.add(new Unmatched("JMH", r.displayName(), ms(r.medianMs()), "the table names this benchmark without parameters"));
            } else if (byName.putIfAbsent(r.benchmark(), r) != null) {
                unmatched.add(new Unmatched("JMH", r.displayName(), ms(r.medianMs()), "a second result for this benchmark; the first is in the table"));
            }
        }
        Set<String> usedPeerFigures = new HashSet<>();
        List<Row> rows = new ArrayList<>();
        for (Workload w : table) {
            Map<Column, Double> millis = new EnumMap<>(Column.class);
            for (Map.Entry<Column, Source> e : w.sources().entrySet()) {
                Double ms = switch (e.getValue()) {
                    case JmhBenchmark b -> byName.containsKey(b.name()) ? byName.get(b.name()).medianMs() : null;
                    case PeerFigure f -> {
                        usedPeerFigures.add(f.workload() + "." + f.field());
                        yield peer == null ? null : peer.figure(f.workload(), f.field());
                    }
                };
                if (ms != null) millis.put(e.getKey(), ms);
            }
            if (!millis.isEmpty()) rows.add(new Row(w, millis));
        }
        if (peer != null) {
            peer.results().forEach((workload, figures) -> figures.forEach((field, value) -> {
                // the first compiled call is not a table column: the page has a section of its own for it
                if (field.equals(FIRST_CALL_FIELD) || usedPeerFigures.contains(workload + "." + field)) return;
                unmatched.add(new Unmatched("torch peer", workload + "." + field, peerFigure(field, value), "no table row names this peer figure"));
            }));
        }
        List<String> noResult = new ArrayList<>();
        if (selected != null) {
            Set<String> measured = new HashSet<>();
            for (JmhResult r : jmh) measured.add(r.benchmark());
            // JMH selects with find(), as here
            for (String name : tableNames) if (selected.matcher(name).find() && !measured.contains(name)) noResult.add(name);
        }
        return new Dashboard(List.copyOf(rows), List.copyOf(unmatched), List.copyOf(noResult), List.copyOf(jmh), peer);
    }
}
