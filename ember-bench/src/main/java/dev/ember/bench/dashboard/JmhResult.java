package dev.ember.bench.dashboard;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One entry of JMH's JSON results ({@code -rf json}): a benchmark (with its {@code @Param} values, if any) and
 * its time per operation in milliseconds, the median of every measured iteration of every fork (as
 * docs/benchmarks.md reads them: this machine's forks are bimodal, and a mean would mix the modes).
 */
public record JmhResult(String benchmark, Map<String, String> params, String mode, double medianMs, int iterations,
                        int forks, String jdkVersion) {

    /** The benchmark with its parameters, as JMH prints it: {@code name} or {@code name:a=1,b=2}. */
    public String displayName() {
        if (params.isEmpty()) return benchmark;
        StringBuilder b = new StringBuilder(benchmark).append(':');
        params.forEach((k, v) -> b.append(k).append('=').append(v).append(','));
        return b.substring(0, b.length() - 1);
    }

    private static final String HOW_TO_MAKE = "JMH writes it with -rf json -rff FILE; ./ember bench --report does so";

    /** The entries of the JMH JSON file {@code file}, in file order. */
    public static List<JmhResult> read(Path file) {
        Object json = InputFiles.readJson(file, "JMH results", HOW_TO_MAKE);
        if (!(json instanceof List<?> entries)) {
            throw new DashboardInputException("JMH results " + file + ": expected a JSON array of benchmark results (" + HOW_TO_MAKE + ")");
        }
        List<JmhResult> results = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            results.add(entry(entries.get(i), "JMH results " + file + ", entry " + (i + 1)));
        }
        return results;
    }

    private static JmhResult entry(Object json, String where) {
        Json e = Json.object(json, where);
        String benchmark = e.string("benchmark");
        where += " (" + benchmark + ")";
        e = new Json(e.fields(), where);
        Map<String, String> params = new LinkedHashMap<>();
        if (e.has("params")) {
            Json.object(e.get("params"), where + ", params").fields().forEach((k, v) -> params.put(k, String.valueOf(v)));
        }
        Json metric = e.object("primaryMetric");
        String unit = metric.string("scoreUnit");
        List<Double> samples = new ArrayList<>();
        int forks = 0;
        if (metric.has("rawData")) {
            for (Object fork : metric.list("rawData")) {
                forks++;
                if (!(fork instanceof List<?> iterations)) throw new DashboardInputException(where + ": primaryMetric.rawData holds a non-array");
                for (Object it : iterations) {
                    if (!(it instanceof Number n)) throw new DashboardInputException(where + ": primaryMetric.rawData holds " + it + ", not a number");
                    samples.add(n.doubleValue());
                }
            }
        }
        double median = samples.isEmpty() ? metric.number("score") : median(samples);
        double ms = toMillisPerOp(median, unit, where);
        return new JmhResult(benchmark, params, e.has("mode") ? e.string("mode") : "?", ms, samples.size(), forks,
                e.has("jdkVersion") ? e.string("jdkVersion") : null);
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** Milliseconds per operation from a JMH score in {@code unit}: "ms/op", "us/op", … or a throughput "ops/ms", …. */
    static double toMillisPerOp(double value, String unit, String where) {
        String[] parts = unit.split("/");
        if (parts.length == 2 && parts[1].equals("op")) return value * millisPer(parts[0], unit, where);
        if (parts.length == 2 && parts[0].equals("ops")) return millisPer(parts[1], unit, where) / value;
        throw new DashboardInputException(where + ": score unit '" + unit + "' is neither a time per operation nor operations per time");
    }

    private static double millisPer(String timeUnit, String unit, String where) {
        return switch (timeUnit) {
            case "ns" -> 1e-6;
            case "us" -> 1e-3;
            case "ms" -> 1;
            case "s" -> 1e3;
            case "min" -> 60e3;
            case "hr" -> 3600e3;
            case "day" -> 86400e3;
            default -> throw new DashboardInputException(where + ": score unit '" + unit + "' has an unknown time unit '" + timeUnit + "'");
        };
    }
}
