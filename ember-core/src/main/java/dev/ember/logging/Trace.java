package dev.ember.logging;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The structured trace (TORCH_TRACE's format), for {@code ember report}. On when {@code EMBER_TRACE=<dir>} is set
 * or after {@link #start(Path)}; every call is a cheap no-op otherwise, and suppliers are not called.
 * Events carry the thread's {@link CompileContext#current() compile id}.
 * <pre>{@code
 * Trace.dynamoStart(userStack);                       // a compilation begins
 * Trace.artifact(Trace.GRAPH_BREAK_REASON, () -> r);  // any named text
 * Trace.outputGraph(sizes, () -> gm.printReadable());
 * Trace.guards(guardLines);
 * Trace.compilationMetrics(metrics);                  // it ends
 * }</pre>
 * The format is documented in {@code docs/trace-format.md}.
 */
public final class Trace {
    private Trace() {}

    /** The environment variable naming the trace directory. */
    public static final String ENV = "EMBER_TRACE";

    /** Artifact names the report knows. */
    public static final String GRAPH_BREAK_REASON = "dynamo_graph_break_reason";
    public static final String RECOMPILE_REASONS = "recompile_reasons";
    /** Per cache entry at a recompile, newest first: {@code {"entry": "0/0", "failures": [...], "closest": true}}. */
    public static final String RECOMPILE_GUARD_FAILURES = "recompile_guard_failures";
    public static final String ORIGINAL_BYTECODE = "original_bytecode";
    public static final String MODIFIED_BYTECODE = "modified_bytecode";
    /** The event with what one cache entry's calls cost at run time ({@link #runtimeCost}). */
    public static final String RUNTIME_COST = "ember_runtime_cost";

    private record State(TraceWriter writer, IllegalArgumentException error) {}

    // before the state: opening the trace from the environment installs the exit hook
    /** Writers of totals (the run-time costs of compiled code), run before the file closes; see {@link #beforeClose}. */
    private static final List<Runnable> BEFORE_CLOSE = new CopyOnWriteArrayList<>();
    private static final AtomicBoolean EXIT_HOOK = new AtomicBoolean();

    private static volatile State state = fromEnvironment(System.getenv(ENV));

    static State fromEnvironment(String value) {
        if (value == null || value.isBlank()) return new State(null, null);
        try {
            return new State(open(Path.of(value), ENV + "=" + value), null);
        } catch (java.nio.file.InvalidPathException e) {
            return new State(null, new IllegalArgumentException(ENV + "=" + value + ": not a valid path: " + e.getMessage()));
        } catch (IllegalArgumentException e) {
            return new State(null, e);
        }
    }

    private static TraceWriter open(Path dir, String origin) {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new IllegalArgumentException(origin + ": " + dir + " is a file, not a directory; name a directory for the trace");
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new IllegalArgumentException(origin + ": cannot create the trace directory " + dir + " (" + e + ")");
        }
        if (!Files.isWritable(dir)) {
            throw new IllegalArgumentException(origin + ": the trace directory " + dir + " is not writable");
        }
        try {
            TraceWriter w = TraceWriter.create(dir);
            if (!EXIT_HOOK.getAndSet(true)) Runtime.getRuntime().addShutdownHook(new Thread(Trace::writeTotalsAtExit, "ember-trace-totals"));
            return w;
        } catch (IOException e) {
            throw new IllegalArgumentException(origin + ": cannot create a trace file in " + dir + " (" + e + ")");
        }
    }

    /**
     * Starts tracing into a new file in {@code dir} (created if missing), ending any trace in progress.
     *
     * @return the trace file
     * @throws IllegalArgumentException when {@code dir} is a file or cannot be created or written
     */
    public static synchronized Path start(Path dir) {
        TraceWriter w = open(dir, "Trace.start(" + dir + ")");
        stop();
        state = new State(w, null);
        return w.file();
    }

    /** Ends tracing, closing the file. @return the file that was being written, or null if none */
    public static synchronized Path stop() {
        if (state.writer != null) writeTotals();
        TraceWriter w = state.writer;
        state = new State(null, null);
        if (w == null) return null;
        try {
            w.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the trace file " + w.file(), e);
        }
        return w.file();
    }

    /**
     * Runs {@code totals} before the trace file is closed ({@link #stop}) and when the JVM exits while
     * tracing: what is summed up while the program runs (the run-time costs of compiled code) is
     * written then, once, instead of an event per call.
     */
    public static void beforeClose(Runnable totals) {
        BEFORE_CLOSE.add(totals);
    }

    private static void writeTotals() {
        for (Runnable r : BEFORE_CLOSE) r.run();
    }

    private static void writeTotalsAtExit() {
        if (state.writer == null) return;
        try {
            writeTotals();
        } catch (RuntimeException e) {
            System.err.println("ember: EMBER_TRACE: cannot write the run-time costs at exit: " + e);
        }
    }

    /**
     * Whether compiled code measures what its calls cost ({@link #runtimeCost}): while tracing. The
     * hot path of every compiled call asks, so this is one volatile read and never throws.
     */
    public static boolean measuresRunTime() {
        return state.writer != null;
    }

    /** Whether events are being written. @throws IllegalArgumentException when EMBER_TRACE names an unusable place */
    public static boolean isEnabled() {
        return writer() != null;
    }

    /** The file being written, or null when tracing is off. */
    public static Path file() {
        TraceWriter w = writer();
        return w == null ? null : w.file();
    }

    private static TraceWriter writer() {
        State s = state;
        if (s.error != null) throw new IllegalArgumentException(s.error.getMessage(), s.error);
        return s.writer;
    }

    /** An event with metadata only. */
    public static void event(String name, Supplier<?> metadata) {
        TraceWriter w = writer();
        if (w != null) w.write(name, metadata, CompileContext.current(), null, caller());
    }

    /**
     * An event with metadata and a payload. The payload may be a string, or a value written as JSON (a list one
     * item per line, a map one key per line); line breaks are normalized to {@code \n}.
     */
    public static void event(String name, Supplier<?> metadata, Supplier<?> payload) {
        TraceWriter w = writer();
        if (w != null) w.write(name, metadata, CompileContext.current(), payloadText(payload.get()), caller());
    }

    /** A named text artifact ({@code {"artifact": {"name": ..., "encoding": "string"}}}). */
    public static void artifact(String name, Supplier<String> text) {
        event("artifact", () -> artifactMeta(name, "string"), text);
    }

    /** A named JSON artifact ({@code encoding: "json"}): a list, map, string or number. */
    public static void jsonArtifact(String name, Supplier<?> value) {
        event("artifact", () -> artifactMeta(name, "json"), value);
    }

    private static Map<String, Object> artifactMeta(String name, String encoding) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("encoding", encoding);
        return m;
    }

    /** A compilation begins; {@code userStack} is outermost first, the compiled method last. */
    public static void dynamoStart(List<TraceFrame> userStack) {
        TraceWriter w = writer();
        if (w == null) return;
        String caller = caller();
        w.write("dynamo_start", () -> Map.of("stack", frames(w, userStack, caller)), CompileContext.current(), null, caller);
    }

    private static List<Map<String, Object>> frames(TraceWriter w, List<TraceFrame> stack, String caller) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (TraceFrame f : stack) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("line", f.line());
            m.put("name", f.name());
            m.put("filename", w.intern(f.filename(), caller));
            if (f.loc() != null) m.put("loc", f.loc());
            out.add(m);
        }
        return out;
    }

    /** The graph Dynamo captured: each node's shape (name to sizes) and the readable graph. */
    public static void outputGraph(Map<String, ? extends List<?>> sizes, Supplier<String> graph) {
        event("dynamo_output_graph", () -> Map.of("sizes", sizes), graph);
    }

    /** The guards of the new cache entry, one readable check each. */
    public static void guards(List<String> guards) {
        event("dynamo_guards", Map::of, () -> guards.stream().map(g -> Map.of("code", g)).toList());
    }

    /** Why the graph broke: reason, GB id, user line and stack, hint, as the user will read it. */
    public static void graphBreak(String reason) {
        artifact(GRAPH_BREAK_REASON, () -> reason);
    }

    /**
     * {@link #graphBreak(String)}, with the break's id, type, short reason and user line in the
     * metadata too ({@code gb_id}, {@code type}, {@code reason}, {@code filename}, {@code lineno}),
     * so that tools read them without parsing the text.
     */
    public static void graphBreak(String message, String gbId, String type, String reason, String filename, int lineno) {
        event("artifact", () -> {
            Map<String, Object> m = artifactMeta(GRAPH_BREAK_REASON, "string");
            m.put("gb_id", gbId);
            m.put("type", type);
            m.put("reason", reason);
            if (filename != null) m.put("filename", filename);
            if (lineno > 0) m.put("lineno", lineno);
            return m;
        }, () -> message);
    }

    /**
     * What the calls of one cache entry (the current compile id's) cost at run time, summed since
     * the last such event: {@code calls}, {@code run_time_s} (the entry's calls, resume methods
     * included), {@code eager_time_s} (run eagerly: between its graph and the resume method after a
     * graph break, or the whole call for an entry that runs eagerly), {@code guard_checks} and
     * {@code guard_time_s} (checking its guards, passing or not).
     */
    public static void runtimeCost(long calls, long runNanos, long eagerNanos, long guardChecks, long guardNanos) {
        event(RUNTIME_COST, () -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("calls", calls);
            m.put("run_time_s", runNanos / 1e9);
            m.put("eager_time_s", eagerNanos / 1e9);
            m.put("guard_checks", guardChecks);
            m.put("guard_time_s", guardNanos / 1e9);
            return m;
        });
    }

    /** Why this compilation is a recompile: each failed guard in words. */
    public static void recompileReasons(List<String> reasons) {
        jsonArtifact(RECOMPILE_REASONS, () -> reasons);
    }

    /** The method's bytecode as compiled from source and as Ember rewrote it. */
    public static void bytecode(String original, String modified) {
        artifact(ORIGINAL_BYTECODE, () -> original);
        artifact(MODIFIED_BYTECODE, () -> modified);
    }

    /**
     * A graph at a stage, under PyTorch's event name for it: {@code aot_forward_graph},
     * {@code aot_backward_graph}, {@code aot_joint_graph}, {@code inductor_pre_grad_graph},
     * {@code inductor_post_grad_graph}, …
     */
    public static void graph(String eventName, Supplier<String> graph) {
        event(eventName, Map::of, graph);
    }

    /** The event of a graph pass that changed the graph ({@link #graphPass}). */
    public static final String GRAPH_PASS = "graph_pass_diff";
    /** The inductor's fusion decisions, one line each (made on a cache miss only). */
    public static final String FUSION_DECISIONS = "inductor_fusion_decisions";
    /** The inductor's artifact cache had the graph's class: {@code {"key", "file"}}; nothing below AOT's door was made again. */
    public static final String CACHE_HIT = "inductor_cache_hit";

    /**
     * A pass that changed the graph: metadata {@code {"stage", "pass", "description"}}, payload the
     * graph before and after as JSON ({@code {"before": …, "after": …}}), for the report's diff.
     */
    public static void graphPass(String stage, String pass, String description, String before, Supplier<String> after) {
        event(GRAPH_PASS, () -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("stage", stage);
            m.put("pass", pass);
            m.put("description", description);
            return m;
        }, () -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("before", before);
            m.put("after", after.get());
            return m;
        });
    }

    /** The code a backend generated, and the file it was written to (or null). */
    public static void outputCode(String filename, Supplier<String> code) {
        event("inductor_output_code", () -> filename == null ? Map.of() : Map.of("filename", filename), code);
    }

    /** The metrics of the compilation ending now. */
    public static void compilationMetrics(CompilationMetrics metrics) {
        event("compilation_metrics", metrics::toMap);
    }

    /**
     * A Chromium trace event (for Perfetto / chrome://tracing): {@code phase} is {@code "B"}/{@code "E"} for
     * begin/end, {@code "i"} for an instant; {@code timeNanos} is wall-clock time since the epoch, written in µs.
     */
    public static void chromiumEvent(String name, String phase, long timeNanos, Map<String, ?> args) {
        TraceWriter w = writer();
        if (w == null) return;
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("name", name);
        e.put("ts", timeNanos / 1000);
        e.put("args", args);
        e.put("ph", phase);
        e.put("cat", "ember_compile");
        e.put("tid", Thread.currentThread().threadId());
        e.put("pid", 0);
        if (phase.equals("i")) e.put("s", "p");
        w.write("chromium_event", Map::of, CompileContext.current(), JsonWriter.write(e), caller());
    }

    static String payloadText(Object payload) {
        String text = switch (payload) {
            case null -> null;
            case String s -> s;
            case List<?> l -> {
                StringBuilder sb = new StringBuilder("[\n");
                for (int i = 0; i < l.size(); i++) {
                    JsonWriter.write(sb, l.get(i));
                    sb.append(i + 1 < l.size() ? ",\n" : "\n");
                }
                yield sb.append(']').toString();
            }
            case Map<?, ?> m -> {
                StringBuilder sb = new StringBuilder("{\n");
                int i = 0;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    JsonWriter.write(sb, e.getKey());
                    sb.append(": ");
                    JsonWriter.write(sb, e.getValue());
                    sb.append(++i < m.size() ? ",\n" : "\n");
                }
                yield sb.append('}').toString();
            }
            default -> JsonWriter.write(payload);
        };
        return text == null ? null : text.replace("\r\n", "\n").replace('\r', '\n');
    }

    /** {@code File.java:line} of the first frame outside this class: the code that logged the event. */
    private static String caller() {
        return StackWalker.getInstance().walk(frames -> frames
                .filter(f -> !f.getClassName().equals(Trace.class.getName()))
                .findFirst()
                .map(f -> (f.getFileName() != null ? f.getFileName() : f.getClassName()).replace(':', '_') + ":"
                        + Math.max(f.getLineNumber(), 0))
                .orElse("Trace.java:0"));
    }
}
