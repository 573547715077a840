package dev.ember.bench.dashboard;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The torch peer's figures, as {@code ember-bench/peer/torch_peer.py --json FILE} writes them: per workload
 * name, its figures by field ({@code eager_ms}, {@code compiled_ms}, {@code first_compiled_call_s}), and how
 * the peer ran (torch version, threads, glibc malloc settings).
 */
public record PeerResults(String torchVersion, int threads, boolean quick, Map<String, String> malloc,
                          Map<String, Map<String, Double>> results) {

    private static final String HOW_TO_MAKE = "ember-bench/peer/torch_peer.py --json FILE writes it";

    /** The figure {@code results.<workload>.<field>}, or null when the peer did not measure it. */
    public Double figure(String workload, String field) {
        Map<String, Double> w = results.get(workload);
        return w == null ? null : w.get(field);
    }

    public static PeerResults read(Path file) {
        String where = "torch peer results " + file;
        Json doc = Json.object(InputFiles.readJson(file, "torch peer results", HOW_TO_MAKE), where);
        Map<String, String> malloc = new LinkedHashMap<>();
        if (doc.has("malloc")) doc.object("malloc").fields().forEach((k, v) -> malloc.put(k, v == null ? "(unset)" : String.valueOf(v)));
        Map<String, Map<String, Double>> results = new LinkedHashMap<>();
        doc.object("results").fields().forEach((workload, figures) -> {
            Map<String, Double> byField = new LinkedHashMap<>();
            Json f = Json.object(figures, where + ", results." + workload);
            for (String field : f.fields().keySet()) byField.put(field, f.number(field));
            results.put(workload, byField);
        });
        return new PeerResults(doc.string("torch"), (int) doc.number("threads"), doc.has("quick") && Boolean.TRUE.equals(doc.get("quick")),
                malloc, results);
    }
}
