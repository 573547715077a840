package dev.ember.debug;

import dev.ember.events.CompileEvent;
import dev.ember.events.CompileEvent.BackendErrorSuppressed;
import dev.ember.events.CompileEvent.Bytecode;
import dev.ember.events.CompileEvent.CacheHit;
import dev.ember.events.CompileEvent.CacheMiss;
import dev.ember.events.CompileEvent.EagerFallback;
import dev.ember.events.CompileEvent.FrameCompiled;
import dev.ember.events.CompileEvent.FrameStarted;
import dev.ember.events.CompileEvent.GraphBreak;
import dev.ember.events.CompileEvent.GraphCaptured;
import dev.ember.events.CompileEvent.GraphCompiled;
import dev.ember.events.CompileEvent.Recompile;
import dev.ember.events.CompileEvent.RecompileLimitHit;
import dev.ember.fx.Graph;
import dev.ember.fx.Node;
import dev.ember.logging.Level;
import dev.ember.logging.Log;
import dev.ember.tensor.Tensor;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The compile events as {@code EMBER_LOGS} lines: {@code graph_breaks}, {@code recompiles},
 * {@code guards}, {@code graph_code}, {@code output_code}, the per-function Graph Count on {@code dynamo},
 * the inductor's cache hits and misses, … Each text is built only when its log is on.
 */
final class CompileLogs {
    private CompileLogs() {}

    private static final Log OUTPUT_CODE = Log.of("output_code");

    static void accept(CompileEvent event) {
        switch (event) {
            case Recompile r -> {
                // The newest entry is the one tried last, as Dynamo's recompiles log shows; older entries'
                // failures would bury it and are recompiles_verbose's job.
                String newest = r.failedGuards().getFirst();
                int older = r.failedGuards().size() - 1;
                Log.artifact("recompiles", () -> "Recompiling function " + r.function() + " in " + r.where()
                        + "\n    triggered by the following guard failure(s):\n    - " + newest
                        + (older > 0 ? "\n    (" + older + " older cache entr" + (older == 1 ? "y" : "ies")
                          + " failed too; EMBER_LOGS=recompiles_verbose lists every failure)" : "")
                        + closest(r)
                        + (newest == null || !newest.contains(" size mismatch at index ") ? ""
                        : r.fixedSizesBecause() != null
                        ? "\n    (the newest graph was compiled for its sizes only: " + r.fixedSizesBecause() + "; so each new size compiles"
                          + " again, up to the recompile limit, after which calls of new sizes run eagerly — see docs/dynamic.md, \"Not yet\")"
                        : "\n    (a size that changes becomes a symbol at this recompile, unless Options.dynamic(false) or Ember.markStatic keep it"
                          + " static; Ember.markDynamic(x, dim) makes it one from the first compile — see docs/dynamic.md)"));
                Log.artifact("recompiles_verbose", () -> "Recompiling function " + r.function() + ": every failing guard, newest entry first:\n"
                        + everyFailure(r.failuresPerEntry()));
            }
            case FrameStarted f -> {
                Log.artifact("bytecode", () -> "ORIGINAL BYTECODE of " + f.function() + " (" + f.firstLine().fileName() + ":" + f.firstLine().line()
                        + "):\n" + f.bytecode().get());
                Log.of("dynamic").info(() -> shapePolicy(f.function(), f.dynamic()));
            }
            case GraphBreak b -> Log.artifact("graph_breaks", b::message);
            case Bytecode b when b.generated() != null ->
                    Log.artifact("bytecode", () -> "MODIFIED BYTECODE of " + b.function() + " after the graph break at " + b.breakAt() + ":\n" + b.generated());
            case GraphCaptured g -> {
                String fn = g.function();
                Log.artifact("guards", () -> "GUARDS for " + fn + ":\n" + g.guards().stream().map(x -> "  " + x).collect(Collectors.joining("\n")));
                Log.artifact("graph_code", () -> "TRACED GRAPH of " + fn + "\n" + g.graph().code());
                Log.artifact("graph", () -> "TRACED GRAPH of " + fn + "\n" + g.graph().tabular());
                Log.artifact("graph_sizes", () -> graphSizes(fn, g.graph().graph()));
                Log.artifact("side_effects", () -> g.sideEffects().isEmpty() ? "no side effects in " + fn
                        : "side effects replayed after the graph of " + fn + ":\n" + g.sideEffects().stream().map(e -> "  " + e).collect(Collectors.joining("\n")));
            }
            // the source is printed from the generated classes on request: ask for it only when the log is on
            // (it took 45 ms of a fresh JVM's first Conv-BN-ReLU training step, session 26)
            case GraphCompiled g when OUTPUT_CODE.isEnabled(Level.INFO) && g.compiled().outputCode() != null ->
                    Log.artifact("output_code", () -> "OUTPUT CODE of " + g.function() + " (backend '" + g.backend() + "'):\n" + g.compiled().outputCode());
            case EagerFallback e -> {
                if (e.whyNoResume() != null) {
                    Log.of("dynamo").debug(() -> e.function() + ": no resume after graph break " + e.gbId() + " (" + e.whyNoResume()
                            + "); the method runs eagerly for these inputs");
                }
                Log.artifact("perf_hints", () -> e.function() + " runs eagerly for these inputs: graph break " + e.gbId() + " at " + e.userFrame()
                        + " could not be resumed, so nothing of this call is compiled. " + e.reason());
                // Without this line a function that compiles nothing looks compiled: say it once, where users look.
                if (e.warn()) {
                    Log.of("dynamo").warning("ember: graph break at " + e.userFrame() + " (" + e.gbId() + ": " + e.reason()
                            + ") cannot be resumed" + (e.whyNoResume() != null ? " (" + e.whyNoResume() + ")" : "")
                            + ", so nothing of " + e.function() + " is compiled: this function now runs eagerly"
                            + " for inputs like these. EMBER_LOGS=graph_breaks shows the break and a hint to avoid it.");
                }
            }
            case BackendErrorSuppressed s -> {
                // The message's last line says how to suppress; it is on, so say what it does instead.
                String message = s.error().getMessage();
                Log.of("dynamo").warning("ember: " + message.substring(0, message.lastIndexOf('\n'))
                        + "\n  suppressErrors is on: this graph runs eagerly (op by op) from now on");
            }
            case FrameCompiled f -> Log.of("dynamo").info(() -> graphCount(f));
            case RecompileLimitHit h -> {
                Log.of("dynamo").warning(h.message());
                Log.artifact("perf_hints", () -> h.function() + " hit the recompile limit (" + h.limit()
                        + "): calls whose inputs match no cache entry now run eagerly, uncompiled. Last failed guard: " + h.lastFailure());
            }
            case CacheHit h -> Log.of("inductor").info(() -> "cache hit " + h.key().substring(0, 16) + " (" + h.file() + ")");
            case CacheMiss m -> Log.of("inductor").info(() -> "cache miss " + m.key().substring(0, 16));
            default -> { }
        }
    }

    /**
     * The cache entry that came closest and every guard it differs in, on a line of its own
     * ({@code closest cache entry [0/0] differs only in: tensor 'x' size mismatch…}); nothing when
     * the line above says it all (one entry, one failed guard).
     */
    private static String closest(Recompile r) {
        int i = r.closestEntry();
        List<String> failed = r.failuresPerEntry().get(i);
        if (r.entryIds().size() == 1 && failed.size() == 1) return "";
        return "\n    closest cache entry [" + r.entryIds().get(i) + "] differs " + (failed.size() == 1 ? "only in: " : "in " + failed.size() + " guards: ")
                + String.join("; ", failed);
    }

    private static String everyFailure(List<List<String>> perEntry) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < perEntry.size(); i++) {
            for (String f : perEntry.get(i)) sb.append("    - entry ").append(i).append(": ").append(f).append('\n');
        }
        return sb.toString().stripTrailing();
    }

    /**
     * {@code graph_sizes}: every node with a tensor value (or a list of them) and its shape and dtype,
     * <pre>
     * TRACED GRAPH TENSOR SIZES of MyApp.fn
     *   x: (2, 3) f32
     *   add: (2, 3) f32
     * </pre>
     */
    private static String graphSizes(String function, Graph graph) {
        StringBuilder sb = new StringBuilder("TRACED GRAPH TENSOR SIZES of ").append(function);
        for (Node n : graph.nodes()) {
            String size = sizeOf(n.val());
            if (size != null) sb.append("\n  ").append(n.name()).append(": ").append(size);
        }
        return sb.toString();
    }

    private static String sizeOf(Object val) {
        return switch (val) {
            case Tensor t -> "(" + java.util.Arrays.stream(t.shape()).mapToObj(Integer::toString).collect(Collectors.joining(", "))
                    + (t.dim() == 1 ? ",)" : ")") + " " + t.dtype().shortName();
            case List<?> l when !l.isEmpty() && l.stream().allMatch(x -> x instanceof Tensor) ->
                    "[" + l.stream().map(CompileLogs::sizeOf).collect(Collectors.joining(", ")) + "]";
            case null, default -> null;
        };
    }

    /**
     * The per-function summary logged on {@code dynamo} at INFO after each compilation of a method (each resume
     * method is a function of its own): {@code Graph Count for MyApp.fn: 2 graph(s) in 3 compile(s), 1 graph
     * break(s), 7 op(s)}.
     */
    private static String graphCount(FrameCompiled f) {
        return "Graph Count for " + f.function() + ": " + f.graphs() + " graph(s) in " + f.compiles() + " compile(s), " + f.breaks()
                + " graph break(s), " + f.ops() + " op(s)";
    }

    /** {@code dynamic}: why every shape of this compilation is static. */
    private static String shapePolicy(String function, Boolean dynamic) {
        if (dynamic == null) {
            return "automatic dynamic shapes for " + function + ": sizes are specialized until they change, then the recompile makes them symbols"
                    + " (Ember.markDynamic makes one a symbol from the first compile)";
        }
        return dynamic ? "dynamic shapes for " + function + ": every tensor input's sizes of 2 or more are symbols from the first compile (Options.dynamic(true))"
                : "static shapes for " + function + ": every input's sizes and strides are guarded exactly, so a new shape recompiles (Options.dynamic(false))";
    }
}
