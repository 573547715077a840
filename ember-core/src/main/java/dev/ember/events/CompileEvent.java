package dev.ember.events;

import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.logging.CompileId;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;

/**
 * Something that happened while Ember compiled, published once, where it happened, on the
 * {@link CompileEvents} stream; the logs, the structured trace, the debug folder, the profiler, the
 * compilation metrics and {@code Ember.explain} are its subscribers. Events are published on the
 * compiling thread, inside the compilation's {@code CompileContext}.
 *
 * <p>A compile of a function reads, in order:
 * <pre>
 * [Recompile]                        only when the call matched no cache entry of an earlier compile
 * FrameStarted
 *   PhaseStarted/PhaseEnded(TRACING)  [Restart, then the trace again, under the next attempt's id]
 *   [GraphBreak]                     the trace stopped; with fullgraph, FrameFailed follows
 *   [PhaseStarted/PhaseEnded(RESUME_CODEGEN)]
 *   Bytecode                         the method's code, and what Ember generated for it (if anything)
 *   GraphCaptured, PhaseStarted(BACKEND), [CacheMiss|CacheHit], PhaseEnded(BACKEND), GraphCompiled
 *     or EagerFallback               a break no resume could start after: the frame runs eagerly
 * FrameCompiled | FrameFailed        exactly one, whatever happened before
 * </pre>
 * A resume method after a graph break is a function of its own, compiled at its first call.
 */
public sealed interface CompileEvent {

    /** A part of a compile that is timed: its events bracket it ({@link PhaseStarted}, {@link PhaseEnded}). */
    enum Phase {
        TRACING("tracing"), RESUME_CODEGEN("resume codegen"), BACKEND("backend");

        private final String text;

        Phase(String text) { this.text = text; }

        /** How the profiler names it: {@code resume codegen}. */
        public String text() { return text; }
    }

    /**
     * A call matched none of the function's cache entries, so it compiles again. Published before
     * the new compile's {@link FrameStarted}, under its compile id.
     *
     * @param where            the function's first line, {@code MyApp.java:12}
     * @param failedGuards     for each cache entry, newest first, the first guard that failed, in words:
     *                         {@code tensor 'x' size mismatch at index 0. expected 2, actual 4}
     * @param failuresPerEntry for each cache entry, newest first, every guard that failed
     * @param entryIds         for each cache entry, newest first, the compile that made it
     * @param fixedSizesBecause why the newest entry's graph was compiled for its example sizes only, though
     *                          sizes were to become symbols (a training graph, a graph the backend cannot make
     *                          generic); null when it was not
     */
    record Recompile(String function, String where, List<String> failedGuards, List<List<String>> failuresPerEntry, List<CompileId> entryIds,
                     String fixedSizesBecause)
            implements CompileEvent {
        public Recompile {
            failedGuards = List.copyOf(failedGuards);
            failuresPerEntry = failuresPerEntry.stream().map(List::copyOf).toList();
            entryIds = List.copyOf(entryIds);
        }

        /** The cache entry that came closest to this call, newest first: the one with the fewest failing guards (the newest of equals). */
        public int closestEntry() {
            int best = 0;
            for (int i = 1; i < failuresPerEntry.size(); i++) if (failuresPerEntry.get(i).size() < failuresPerEntry.get(best).size()) best = i;
            return best;
        }
    }

    /**
     * A compile of {@code function} ({@code MyApp.fn}) begins.
     *
     * @param firstLine            where the compiled method starts
     * @param cacheSize            the function's cache entries before this compile
     * @param accumulatedCacheSize the cache entries of every compiled function
     * @param bytecode             the method's bytecode as javac wrote it, read on first use
     * @param dynamic              {@code Options.dynamic}: true (every size a symbol), false (every size static) or null (automatic)
     */
    record FrameStarted(CompileId id, String function, UserFrame firstLine, int cacheSize, int accumulatedCacheSize, Instant startTime,
                        Supplier<String> bytecode, Boolean dynamic) implements CompileEvent {}

    /**
     * The analysis of {@code function} starts over: the trace needed the value of a number it had
     * made a graph input, or the backend could not make the graph generic in its sizes. Published
     * under the new attempt's compile id ({@code 0/0_1}).
     *
     * @param reason    why, in words
     * @param restarted the attempt that ended ({@code 0/0})
     * @param firstLine where the compiled method starts
     */
    record Restart(String function, String reason, CompileId restarted, UserFrame firstLine) implements CompileEvent {}

    /** A timed phase of the compile of {@code function} begins. */
    record PhaseStarted(String function, Phase phase) implements CompileEvent {}

    /** The phase begun by the last {@link PhaseStarted} on this thread ends, after {@code elapsed}. */
    record PhaseEnded(String function, Phase phase, Duration elapsed) implements CompileEvent {}

    /**
     * The trace of {@code function} met something it cannot put in a graph.
     *
     * @param gbId      the graph-break type's id, {@code GB0001}
     * @param type      the graph-break type in words, {@code Unsupported Tensor data access}
     * @param reason    what happened, in words (the developer context)
     * @param userStack the user's frames, outermost first, the break's line last
     * @param message   the whole report as logs print it: reason, explanation, hints, docs page, user stack
     */
    record GraphBreak(String function, String gbId, String type, String reason, List<UserFrame> userStack, String message) implements CompileEvent {
        public GraphBreak {
            userStack = List.copyOf(userStack);
        }

        /** The line of the break, or null when unknown. */
        public UserFrame userFrame() { return userStack.isEmpty() ? null : userStack.getLast(); }
    }

    /**
     * The compiled method's code: as javac wrote it, and what Ember generated for this compile —
     * after a graph break, the class that restores the graph's outputs, runs the breaking
     * instruction and calls the resume method.
     *
     * @param original  the method's bytecode, read on first use
     * @param generated the generated class, disassembled; null when Ember generated none
     * @param breakAt   the graph break the generated code continues after; null when none
     */
    record Bytecode(String function, Supplier<String> original, String generated, UserFrame breakAt) implements CompileEvent {}

    /**
     * A graph was captured and goes to the backend.
     *
     * @param guards      the new cache entry's guards, one readable check each
     * @param sideEffects the side effects replayed after the graph, described
     * @param inputs      the graph's inputs as this call passed them; null when one cannot be read
     * @param backend     the backend's name
     */
    record GraphCaptured(String function, GraphModule graph, List<String> guards, List<String> sideEffects, List<Object> inputs,
                         String backend) implements CompileEvent {
        public GraphCaptured {
            guards = List.copyOf(guards);
            sideEffects = List.copyOf(sideEffects);
        }
    }

    /**
     * The captured graph is compiled: by the backend, or, for a graph without ops or after a
     * suppressed backend error, into a graph that runs op by op.
     *
     * @param graph    the captured graph
     * @param compiled what the backend made of it: its transformed graph and generated code, when it has them
     * @param guards   the cache entry's guard count
     * @param ops      call nodes in the captured graph
     * @param inputs   the graph's inputs
     */
    record GraphCompiled(String function, GraphModule graph, CompiledGraph compiled, String backend, int guards, int ops, int inputs)
            implements CompileEvent {}

    /**
     * After a graph break where no resume can start, the whole function runs eagerly for inputs like
     * these: nothing of the call is compiled.
     *
     * @param whyNoResume why no resume could start there; null when the break was not in the function's own code
     * @param warn        whether this says so at the default log level: the function's first fallback since
     *                    {@code Ember.reset()}, and not a resume method's (its caller's graph is compiled)
     */
    record EagerFallback(String function, String gbId, String reason, UserFrame userFrame, String whyNoResume, boolean warn) implements CompileEvent {}

    /**
     * The backend threw and {@code suppressErrors} is on: the graph runs op by op from now on
     * instead of failing the call.
     */
    record BackendErrorSuppressed(String function, String backend, RuntimeException error) implements CompileEvent {}

    /**
     * The compile of {@code function} ended with a new cache entry. The counts are the function's
     * totals since it was first compiled (or since {@code Ember.reset()}).
     */
    record FrameCompiled(String function, int graphs, int compiles, int breaks, int ops) implements CompileEvent {}

    /**
     * The compile of {@code function} threw {@code error}, which reaches the caller: a graph break
     * under fullgraph, a backend that failed, …
     *
     * @param reason    the failure in words ({@code GB0001: ...} for a graph break)
     * @param userFrame the user's line it points at; null when none
     */
    record FrameFailed(String function, Throwable error, String reason, UserFrame userFrame) implements CompileEvent {}

    /**
     * The function holds {@code limit} cache entries and a call matched none of them: from now on
     * such calls run eagerly. Published once per function (until {@code Ember.reset()}).
     *
     * @param lastFailure the first guard that failed on the newest entry
     */
    record RecompileLimitHit(String function, String where, int limit, String lastFailure) implements CompileEvent {
        /** What the warning (or, with {@code failOnRecompileLimitHit}, the exception) says. */
        public String message() {
            return "ember: recompile limit (" + limit + ") reached for " + function + " in " + where + "; last failed guard: " + lastFailure
                    + ". The function now runs eagerly for inputs that match no cache entry. "
                    + "To find the cause, log recompile reasons; to raise the limit use Options.recompileLimit(n).";
        }
    }

    /** The inductor found the graph's compiled class in its on-disk cache under {@code key}, in {@code file}. */
    record CacheHit(String key, Path file) implements CompileEvent {}

    /** The inductor's on-disk cache has no class under {@code key}: it generates one. */
    record CacheMiss(String key) implements CompileEvent {}
}
