package dev.ember.logging;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one compilation cost and produced, filled in as it runs and written once at its end with
 * {@link Trace#compilationMetrics}. Field names are those of PyTorch's {@code compilation_metrics} event, so the
 * report (and tlparse) read them; fields never set are left out.
 */
public final class CompilationMetrics {
    public static final String CO_NAME = "co_name";
    public static final String CO_FILENAME = "co_filename";
    public static final String CO_FIRSTLINENO = "co_firstlineno";
    public static final String CACHE_SIZE = "cache_size";
    public static final String ACCUMULATED_CACHE_SIZE = "accumulated_cache_size";
    public static final String GUARD_COUNT = "guard_count";
    public static final String GRAPH_OP_COUNT = "graph_op_count";
    public static final String GRAPH_NODE_COUNT = "graph_node_count";
    public static final String GRAPH_INPUT_COUNT = "graph_input_count";
    public static final String START_TIME = "start_time";
    public static final String ENTIRE_FRAME_COMPILE_TIME = "entire_frame_compile_time_s";
    public static final String TRACING_TIME = "tracing_time_s";
    public static final String PASSES_TIME = "pre_grad_pass_time_s";
    public static final String BACKEND_COMPILE_TIME = "backend_compile_time_s";
    public static final String INDUCTOR_COMPILE_TIME = "inductor_compile_time_s";
    public static final String CODE_GEN_TIME = "code_gen_time_s";
    public static final String DYNAMO_TIME_BEFORE_RESTART = "dynamo_time_before_restart_s";
    public static final String RESTART_REASONS = "restart_reasons";
    public static final String FAIL_TYPE = "fail_type";
    public static final String FAIL_REASON = "fail_reason";
    public static final String FAIL_USER_FRAME_FILENAME = "fail_user_frame_filename";
    public static final String FAIL_USER_FRAME_LINENO = "fail_user_frame_lineno";

    private final Map<String, Object> fields = new LinkedHashMap<>();
    private final List<String> restartReasons = new ArrayList<>();

    /** The compiled method: its name, source file and first line. */
    public CompilationMetrics function(String name, String filename, int firstLine) {
        fields.put(CO_NAME, name);
        fields.put(CO_FILENAME, filename);
        fields.put(CO_FIRSTLINENO, firstLine);
        return this;
    }

    /** Cache entries of this method before this compile, and of all methods. */
    public CompilationMetrics cacheSize(int entries, int accumulated) {
        fields.put(CACHE_SIZE, entries);
        fields.put(ACCUMULATED_CACHE_SIZE, accumulated);
        return this;
    }

    /** Size of what was produced: guards, graph ops (call nodes), all graph nodes, graph inputs. */
    public CompilationMetrics counts(int guards, int ops, int nodes, int inputs) {
        fields.put(GUARD_COUNT, guards);
        fields.put(GRAPH_OP_COUNT, ops);
        fields.put(GRAPH_NODE_COUNT, nodes);
        fields.put(GRAPH_INPUT_COUNT, inputs);
        return this;
    }

    public CompilationMetrics startTime(Instant start) {
        fields.put(START_TIME, start.getEpochSecond() + start.getNano() / 1e9);
        return this;
    }

    /** Wall time of the whole compilation, tracing to installed code. */
    public CompilationMetrics entireFrameCompileTime(Duration d) { return time(ENTIRE_FRAME_COMPILE_TIME, d); }

    /** Time Dynamo spent interpreting the bytecode into a graph. */
    public CompilationMetrics tracingTime(Duration d) { return time(TRACING_TIME, d); }

    /** Time in pre-grad FX passes. */
    public CompilationMetrics passesTime(Duration d) { return time(PASSES_TIME, d); }

    /** Time in the backend (eager, aot_eager, inductor, a user's). */
    public CompilationMetrics backendCompileTime(Duration d) { return time(BACKEND_COMPILE_TIME, d); }

    /** Time in Inductor, part of the backend time. */
    public CompilationMetrics inductorCompileTime(Duration d) { return time(INDUCTOR_COMPILE_TIME, d); }

    /** Time generating and loading code, part of Inductor's time. */
    public CompilationMetrics codeGenTime(Duration d) { return time(CODE_GEN_TIME, d); }

    /** Time spent in analysis attempts that were restarted. */
    public CompilationMetrics dynamoTimeBeforeRestart(Duration d) { return time(DYNAMO_TIME_BEFORE_RESTART, d); }

    /** Why the analysis restarted (a graph break, …); one call per restart. */
    public CompilationMetrics restartReason(String reason) {
        restartReasons.add(reason);
        return this;
    }

    /** Why compilation failed: the exception's type, its message and the user line it points at (null/-1 if none). */
    public CompilationMetrics failure(String type, String reason, String userFile, int userLine) {
        fields.put(FAIL_TYPE, type);
        fields.put(FAIL_REASON, reason);
        if (userFile != null) {
            fields.put(FAIL_USER_FRAME_FILENAME, userFile);
            fields.put(FAIL_USER_FRAME_LINENO, userLine);
        }
        return this;
    }

    private CompilationMetrics time(String key, Duration d) {
        fields.put(key, d.toNanos() / 1e9);
        return this;
    }

    /** The fields set so far, in the order set, as the trace writes them. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>(fields);
        m.put(RESTART_REASONS, List.copyOf(restartReasons));
        return Collections.unmodifiableMap(m);
    }
}
