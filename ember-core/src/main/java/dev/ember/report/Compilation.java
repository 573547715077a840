package dev.ember.report;

import dev.ember.logging.CompilationMetrics;
import dev.ember.logging.CompileId;
import dev.ember.logging.JsonReader;
import dev.ember.logging.Trace;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Everything the trace says about one compilation (one compile id of one process). */
final class Compilation {
    final long pid;
    final CompileId id;
    /** The folder of its pages, relative to the report's root. */
    final String folder;
    /** How the report names it: {@code [0/1]}, or {@code [0/1] pid 1234} when the trace holds several processes. */
    final String label;
    List<Frame> stack;
    Map<String, Object> metrics;
    final List<Artifact> artifacts = new ArrayList<>();
    final List<String> breakReasons = new ArrayList<>();
    final List<String> recompileReasons = new ArrayList<>();
    final List<String> guards = new ArrayList<>();
    String outputGraph;
    String originalBytecode;
    String modifiedBytecode;
    /** The graph break's structured metadata ({@code gb_id}, {@code type}, {@code reason}, {@code filename}, {@code lineno}), when the trace has it. */
    Map<?, ?> breakMeta;
    /** At a recompile: the compile id of the cache entry that came closest ({@code 0/0}), and every guard of it that failed; else null. */
    String closestEntry;
    List<String> closestFailures = List.of();
    /** The passes that changed its graph, in the order they ran (pre-grad, decompositions, post-grad). */
    final List<PassDiff> passes = new ArrayList<>();
    /** The file the inductor's cache loaded its compiled class from, or null when it was generated in this run. */
    String cacheFile;
    String outputCode;
    String fusionDecisions;
    /** Its cache entry's run-time costs ({@code ember_runtime_cost}), summed over the trace's events; null when none. */
    RuntimeCost runtimeCost;
    private final Set<String> pages = new HashSet<>();

    Compilation(long pid, CompileId id, String folder, String label) {
        this.pid = pid;
        this.id = id;
        this.folder = folder;
        this.label = label;
    }

    void add(TraceEvent e) {
        switch (e.kind()) {
            case "dynamo_start" -> {
                if (e.metadata() instanceof Map<?, ?> m && m.get("stack") instanceof List<?> frames) {
                    stack = frames.stream().filter(f -> f instanceof Map<?, ?>).map(f -> Frame.of((Map<?, ?>) f)).toList();
                }
            }
            case Trace.RUNTIME_COST -> {
                if (e.metadata() instanceof Map<?, ?> m) runtimeCost = RuntimeCost.of(m).plus(runtimeCost);
            }
            case "compilation_metrics" -> {
                if (e.metadata() instanceof Map<?, ?> m) {
                    @SuppressWarnings("unchecked") Map<String, Object> typed = (Map<String, Object>) m;
                    metrics = typed;
                }
            }
            default -> { }
        }
        if (e.payload() == null) return;
        String name = e.kind().equals("artifact") && e.metaString("name") != null ? e.metaString("name") : e.kind();
        String encoding = e.kind().equals("dynamo_guards") ? "json" : e.metaString("encoding") != null ? e.metaString("encoding") : "string";
        artifacts.add(new Artifact(name, pageName(name), encoding, e.payload(), e));
        switch (name) {
            case Trace.GRAPH_BREAK_REASON -> {
                breakReasons.add(e.payload());
                if (e.metadata() instanceof Map<?, ?> m && m.get("gb_id") != null) breakMeta = m;
            }
            case Trace.RECOMPILE_REASONS -> recompileReasons.addAll(strings(e.payload(), null));
            case Trace.RECOMPILE_GUARD_FAILURES -> closest(e.payload());
            case "dynamo_guards" -> guards.addAll(strings(e.payload(), "code"));
            case "dynamo_output_graph" -> outputGraph = e.payload();
            case Trace.GRAPH_PASS -> {
                PassDiff d = PassDiff.of(e);
                if (d != null) passes.add(d);
            }
            case Trace.CACHE_HIT -> {
                try {
                    if (JsonReader.parse(e.payload()) instanceof Map<?, ?> m) cacheFile = String.valueOf(m.get("file"));
                } catch (IllegalArgumentException notJson) {
                    cacheFile = "(unreadable: see the artifact page)";
                }
            }
            case Trace.FUSION_DECISIONS -> fusionDecisions = e.payload();
            case "inductor_output_code" -> outputCode = e.payload();
            case Trace.ORIGINAL_BYTECODE -> originalBytecode = e.payload();
            case Trace.MODIFIED_BYTECODE -> modifiedBytecode = e.payload();
            default -> { }
        }
    }

    private void closest(String json) {
        try {
            if (!(JsonReader.parse(json) instanceof List<?> entries)) return;
            for (Object o : entries) {
                if (o instanceof Map<?, ?> m && Boolean.TRUE.equals(m.get("closest")) && m.get("failures") instanceof List<?> failures) {
                    closestEntry = String.valueOf(m.get("entry"));
                    closestFailures = failures.stream().map(String::valueOf).toList();
                }
            }
        } catch (IllegalArgumentException notJson) {
            // its artifact page shows it as written
        }
    }

    /** A JSON list's items (or each item's {@code field}) as text; the raw payload if it is not such a list. */
    private static List<String> strings(String json, String field) {
        try {
            if (JsonReader.parse(json) instanceof List<?> items) {
                List<String> out = new ArrayList<>();
                for (Object o : items) {
                    Object v = field != null && o instanceof Map<?, ?> m ? m.get(field) : o;
                    out.add(String.valueOf(v));
                }
                return out;
            }
        } catch (IllegalArgumentException notJson) {
            // shown as written below
        }
        return List.of(json);
    }

    private String pageName(String name) {
        String base = name.replaceAll("[^A-Za-z0-9_.-]", "_");
        String page = base + ".html";
        for (int n = 2; !pages.add(page); n++) page = base + "_" + n + ".html";
        return page;
    }

    Status status() {
        if (metrics != null && metrics.get(CompilationMetrics.FAIL_TYPE) != null) return Status.FAILED;
        if (!breakReasons.isEmpty() || !restartReasons().isEmpty()) return Status.GRAPH_BREAK;
        if (metrics == null) return Status.NO_METRICS;
        if (metrics.get(CompilationMetrics.GRAPH_OP_COUNT) instanceof Long ops && ops == 0) return Status.EMPTY;
        return Status.COMPILED;
    }

    List<String> restartReasons() {
        if (metrics != null && metrics.get(CompilationMetrics.RESTART_REASONS) instanceof List<?> l) {
            return l.stream().map(String::valueOf).toList();
        }
        return List.of();
    }

    /** The compiled method: the innermost stack frame's (with its class, {@code MyApp.fn}), else the metrics' name. */
    String method() {
        if (stack != null && !stack.isEmpty()) return stack.getLast().name();
        if (metrics != null && metrics.get(CompilationMetrics.CO_NAME) instanceof String n) return n;
        return "(unknown method)";
    }

    /** Where the compiled method is: {@code file:line}, or null. */
    String location() {
        if (metrics != null && metrics.get(CompilationMetrics.CO_FILENAME) instanceof String f) {
            return f + (metrics.get(CompilationMetrics.CO_FIRSTLINENO) instanceof Long l ? ":" + l : "");
        }
        if (stack != null && !stack.isEmpty()) return stack.getLast().file() + ":" + stack.getLast().line();
        return null;
    }

    /** Whether it compiled a method again, after an earlier compile of it ({@code [0/1]}, not a restart {@code [0/1_1]}). */
    boolean isRecompile() {
        return id.frameCompileId() > 0 && id.attempt() == 0;
    }

    /** A metrics number, or null. */
    Number metric(String key) {
        return metrics != null && metrics.get(key) instanceof Number n ? n : null;
    }
}
