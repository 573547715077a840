package dev.ember.debug;

import dev.ember.events.CompileEvent;
import dev.ember.events.CompileEvent.Bytecode;
import dev.ember.events.CompileEvent.CacheHit;
import dev.ember.events.CompileEvent.FrameStarted;
import dev.ember.events.CompileEvent.GraphBreak;
import dev.ember.events.CompileEvent.GraphCaptured;
import dev.ember.events.CompileEvent.GraphCompiled;
import dev.ember.events.CompileEvent.Recompile;
import dev.ember.events.CompileEvent.Restart;
import dev.ember.events.UserFrame;
import dev.ember.fx.Node;
import dev.ember.logging.Trace;
import dev.ember.logging.TraceFrame;
import dev.ember.tensor.FakeTensor;

import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The compile events in the structured trace ({@code EMBER_TRACE}, read by {@code ember report}):
 * {@code dynamo_start} (with the user's callers, for each attempt), the recompile reasons and each
 * cache entry's failed guards, the graph break reason, the original and modified bytecode, the output
 * graph and the guards, the inductor's cache hits and the output code. Its compilation metrics are
 * {@link CompileMetrics}'.
 */
final class CompileTrace {
    private CompileTrace() {}

    /** The callers, then {@code function} ({@code MyApp.fn}, as a trace frame names a method: with its class) at its first line. */
    private static void dynamoStart(String function, UserFrame firstLine) {
        List<TraceFrame> stack = callers();
        stack.add(new TraceFrame(firstLine.fileName(), firstLine.line(), function, firstLine.sourceText()));
        Trace.dynamoStart(stack);
    }

    /** The innermost callers the stack trie shows: a program's stack is short, a test runner's is not. */
    private static final int MAX_CALLERS = 24;

    /**
     * The user's frames that led to this compile, outermost first: the code that called the compiled
     * function (the compiled method itself is not on the stack: its compiled code runs instead). Left
     * out: Ember's own classes (by where they were loaded from, as a user's classes may share its
     * packages), the JDK's, and hidden classes (generated code).
     */
    private static List<TraceFrame> callers() {
        var ember = CompileTrace.class.getProtectionDomain().getCodeSource();
        List<TraceFrame> out = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).walk(frames -> frames
                .filter(f -> isUsers(f.getDeclaringClass(), ember))
                .limit(MAX_CALLERS)
                .map(f -> TraceFrame.of(f.toStackTraceElement()))
                .collect(Collectors.toCollection(ArrayList::new)));
        Collections.reverse(out);
        return out;
    }

    private static boolean isUsers(Class<?> c, CodeSource ember) {
        if (c.isHidden()) return false;
        String name = c.getName();
        if (name.startsWith("java.") || name.startsWith("jdk.") || name.startsWith("sun.") || name.startsWith("com.sun.")) return false;
        var source = c.getProtectionDomain().getCodeSource();
        return source == null || ember == null || !Objects.equals(source.getLocation(), ember.getLocation());
    }

    /** Per cache entry, newest first: its compile id, every guard that failed, and whether it came closest. */
    private static List<Map<String, Object>> guardFailures(Recompile r) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (int i = 0; i < r.entryIds().size(); i++) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("entry", String.valueOf(r.entryIds().get(i)));
            m.put("failures", r.failuresPerEntry().get(i));
            m.put("closest", i == r.closestEntry());
            out.add(m);
        }
        return out;
    }

    static void accept(CompileEvent event) {
        switch (event) {
            case FrameStarted f when Trace.isEnabled() -> dynamoStart(f.function(), f.firstLine());
            case Restart r when Trace.isEnabled() -> dynamoStart(r.function(), r.firstLine());   // the new attempt, under its id
            case Recompile r -> {
                Trace.recompileReasons(r.failedGuards());
                Trace.jsonArtifact(Trace.RECOMPILE_GUARD_FAILURES, () -> guardFailures(r));
            }
            case GraphBreak b -> {
                var at = b.userFrame();
                Trace.graphBreak(b.message(), b.gbId(), b.type(), b.reason(), at == null ? null : at.fileName(), at == null ? -1 : at.line());
            }
            case Bytecode b when b.generated() != null && Trace.isEnabled() -> Trace.bytecode(b.original().get(), b.generated());
            case CacheHit h -> Trace.jsonArtifact(Trace.CACHE_HIT, () -> Map.of("key", h.key(), "file", String.valueOf(h.file())));
            case GraphCompiled g when g.compiled() != null && Trace.isEnabled() && g.compiled().outputCode() != null ->
                    Trace.outputCode(null, () -> g.compiled().outputCode());
            case GraphCaptured g when Trace.isEnabled() -> {
                Map<String, List<Integer>> sizes = new LinkedHashMap<>();
                for (Node n : g.graph().graph().nodes()) {
                    if (n.val() instanceof FakeTensor t) sizes.put(n.name(), Arrays.stream(t.shape()).boxed().toList());
                }
                Trace.outputGraph(sizes, () -> g.graph().code());
                Trace.guards(g.guards());
            }
            default -> { }
        }
    }
}
