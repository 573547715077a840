package dev.ember.debug;

import dev.ember.BackendCompilerFailed;
import dev.ember.Options;
import dev.ember.debug.minifier.AotGraph;
import dev.ember.debug.minifier.FailureCheck;
import dev.ember.debug.minifier.Launcher;
import dev.ember.debug.minifier.Outcome;
import dev.ember.debug.minifier.ReproStage;
import dev.ember.dynamo.BackendHarness;
import dev.ember.fx.Backend;
import dev.ember.fx.CompileMode;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.fx.SourceLocation;
import dev.ember.logging.CompileContext;
import dev.ember.logging.CompileId;
import dev.ember.logging.Log;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Where a captured graph meets its backend, with the repro levels of {@link ReproSettings} around
 * it: a backend that throws becomes a {@link BackendCompilerFailed} (with the repro written at
 * levels 1 to 3 named in it); at level 3 every graph leaves a launcher; at level 4 a graph's first
 * call is checked against eager and float64 ({@link FailureCheck}) and an inaccurate one throws
 * {@link AccuracyError} after writing a launcher. With {@code EMBER_REPRO_AFTER=aot} the graph
 * checked and kept is the one after functionalization and decomposition ({@link AotGraph}).
 */
public final class ReproLevels {
    private ReproLevels() {}

    /**
     * What a repro says about the graph being compiled.
     *
     * @param graphName   the function and compile id, {@code MyApp.fn [0/1]}
     * @param folderName  the launcher folder's name, {@code MyApp.fn__0_1}
     * @param sourceLines the graph's source lines ({@link #sourceLines}), or empty
     */
    public record Request(String backendName, CompileMode mode, double tolerance, String graphName, String folderName, String sourceLines) {}

    /** The repro levels around every backend call of a compile: capture finds them as its {@link BackendHarness}. */
    public static final class Harness implements BackendHarness {
        @Override
        public CompiledGraph compile(GraphModule gm, List<FakeTensor> fakes, Supplier<List<Object>> inputs, Options options, String function) {
            CompileId id = CompileContext.current();
            var request = new Request(options.getBackendName(), options.getMode(), options.getReproTolerance(), function + " [" + id + "]",
                    function + "__" + id.frameId() + "_" + id.frameCompileId(), sourceLines(gm.graph()));
            return ReproLevels.compile(options.getBackend(), gm, fakes, inputs, request);
        }
    }

    /**
     * Compiles {@code gm} with {@code backend} under the repro levels; {@code inputs} gives the
     * graph's real inputs (null when they cannot be read: then random ones of the same metadata
     * are kept, enough for a crash).
     *
     * @throws BackendCompilerFailed when the backend throws
     */
    public static CompiledGraph compile(Backend backend, GraphModule gm, List<FakeTensor> fakes, Supplier<List<Object>> inputs, Request req) {
        ReproSettings settings = ReproSettings.current();
        CompiledGraph compiled;
        try {
            compiled = backend.compile(gm, fakes, req.mode());
        } catch (dev.ember.fx.SymbolicShapes.NotGeneric e) {
            throw e;   // not a failure: the caller compiles the graph for its example sizes instead
        } catch (RuntimeException | AssertionError | StackOverflowError | LinkageError e) {
            Path repro = settings.on() ? writeForCompileError(settings, backend, gm, inputs(inputs, fakes), req, e) : null;
            throw new BackendCompilerFailed(req.backendName(), req.graphName(), opCount(gm.graph()), req.sourceLines(), repro, e);
        }
        if (settings.on() && settings.level() == 3) {
            List<Object> in = inputs(inputs, fakes);
            GraphModule kept = gm;
            ReproStage after = settings.after();
            if (after == ReproStage.AOT) {
                try {
                    kept = AotGraph.of(gm, in);
                } catch (RuntimeException e) {
                    after = ReproStage.DYNAMO;
                    Log.of("dynamo").warning("ember: the AOT passes fail on " + req.graphName() + " (" + e + "); its launcher keeps the captured graph");
                }
            }
            write(settings, req, new Launcher(kept, in, req.backendName(), req.mode(), after,
                    new Outcome.Passed("compiled when written (level 3 writes every graph); not yet run"), req.tolerance(), req.graphName(), req.sourceLines()));
        }
        if (settings.on() && settings.level() == 4) return checkedOnFirstCall(settings, backend, gm, compiled, req);
        return compiled;
    }

    private static Path writeForCompileError(ReproSettings s, Backend backend, GraphModule gm, List<Object> inputs, Request req, Throwable e) {
        if (s.level() == 1) {
            Path file = s.dir().resolve(req.folderName()).resolve("repro.java").toAbsolutePath();
            try {
                Files.createDirectories(file.getParent());
                Files.writeString(file, RunnableRepro.source(gm, inputs, req.backendName()), StandardCharsets.UTF_8);
            } catch (IOException io) {
                Log.of("dynamo").warning("ember: cannot write the repro " + file + " for " + req.graphName() + ": " + io.getMessage());
                return null;
            }
            return file;
        }
        Outcome seen = new Outcome.CompileError(e.getClass().getName(), String.valueOf(e.getMessage()));
        GraphModule kept = gm;
        ReproStage after = s.after();
        if (after == ReproStage.AOT) {
            String why;
            try {
                GraphModule aot = AotGraph.of(gm, inputs);
                Outcome again = FailureCheck.check(aot, inputs, backend, req.mode(), req.tolerance());
                why = seen.sameFailureAs(again) ? null : "it does not fail as the captured graph does (" + again.describe() + ")";
                if (why == null) kept = aot;
            } catch (RuntimeException ex) {
                why = "the AOT passes fail on it (" + ex + ")";
            }
            if (why != null) {
                after = ReproStage.DYNAMO;
                Log.of("dynamo").warning("ember: no repro of " + req.graphName() + " after AOT: " + why + "; the repro keeps the captured graph");
            }
        }
        return write(s, req, new Launcher(kept, inputs, req.backendName(), req.mode(), after, seen, req.tolerance(), req.graphName(), req.sourceLines()));
    }

    /** The compiled graph, checked against eager and float64 on its first call's inputs. */
    private static CompiledGraph checkedOnFirstCall(ReproSettings s, Backend backend, GraphModule gm, CompiledGraph compiled, Request req) {
        AtomicBoolean checked = new AtomicBoolean();
        return new CompiledGraph() {
            @Override
            public Object[] run(Object[] args) {
                if (checked.compareAndSet(false, true)) check(s, backend, gm, compiled, Arrays.asList(FailureCheck.copies(Arrays.asList(args))), req);
                return compiled.run(args);
            }

            @Override
            public String outputCode() { return compiled.outputCode(); }

            @Override
            public GraphModule transformedGraph() { return compiled.transformedGraph(); }
        };
    }

    private static void check(ReproSettings s, Backend backend, GraphModule gm, CompiledGraph compiled, List<Object> inputs, Request req) {
        GraphModule kept;
        Outcome seen;
        try {
            kept = s.after() == ReproStage.AOT ? AotGraph.of(gm, inputs) : gm;
            seen = s.after() == ReproStage.AOT
                    ? FailureCheck.check(kept, inputs, backend, req.mode(), req.tolerance())
                    : FailureCheck.checkCompiled(gm, compiled, inputs, req.tolerance());
        } catch (RuntimeException e) {
            Log.of("dynamo").warning("ember: EMBER_REPRO_LEVEL=4 could not check " + req.graphName() + " (" + e + "); it runs unchecked");
            return;
        }
        if (!seen.failed()) return;
        Path dir = write(s, req, new Launcher(kept, inputs, req.backendName(), req.mode(), s.after(), seen, req.tolerance(), req.graphName(), req.sourceLines()));
        String report = (seen instanceof Outcome.Inaccurate ? "accuracy failed" : "the compiled graph failed") + " for " + req.graphName()
                + (req.sourceLines().isEmpty() ? "" : " (" + req.sourceLines() + ")") + ", backend '" + req.backendName() + "', graph after "
                + s.after().text() + ", tolerance " + req.tolerance() + ":\n  " + seen.describe()
                + (dir == null ? "\n  no launcher could be written (see the warning above)"
                        : "\n  launcher: ./ember minify " + dir + "   (replay once: ./ember minify " + dir + " run)");
        if (seen instanceof Outcome.Inaccurate) throw new AccuracyError(report, dir);
        // A crash or a compile error (after AOT) is the backend's own exception, thrown by the real call that follows.
        Log.of("dynamo").warning("ember: " + report);
    }

    /**
     * Writes the launcher; null when it cannot be written (a graph that calls a live module has no
     * text form): a repro that cannot be saved must not hide the failure it was for, so that is a
     * warning, and the failure goes on.
     */
    private static Path write(ReproSettings s, Request req, Launcher launcher) {
        Path dir = s.dir().resolve(req.folderName()).toAbsolutePath();
        try {
            deleteOld(dir);
            launcher.write(dir);
        } catch (RuntimeException e) {
            Log.of("dynamo").warning("ember: cannot write the minifier launcher for " + req.graphName() + " to " + dir + ": " + e.getMessage());
            return null;
        }
        Log.of("dynamo").info(() -> "ember: wrote the minifier launcher " + dir + " for " + req.graphName());
        return dir;
    }

    /** A launcher folder is rewritten whole: checkpoints of an older failure must not be resumed from. */
    private static void deleteOld(Path dir) {
        if (!Files.exists(dir)) return;
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear the old repro folder " + dir + ": " + e.getMessage(), e);
        }
    }

    private static List<Object> inputs(Supplier<List<Object>> real, List<FakeTensor> fakes) {
        List<Object> in = real.get();
        if (in != null) return in;
        Generator gen = new Generator(0);
        List<Object> random = new ArrayList<>();
        for (FakeTensor f : fakes) random.add(f == null ? null : Tensor.randn(gen, f.shape()).to(f.dtype()));
        return random;
    }

    private static int opCount(Graph g) {
        return (int) g.nodes().stream().filter(n -> n.kind() == NodeKind.CALL_FUNCTION || n.kind() == NodeKind.CALL_METHOD
                || n.kind() == NodeKind.CALL_MODULE).count();
    }

    /** Where the graph's nodes came from: {@code MyApp.java:12-19} (files joined by commas), or empty when no node knows. */
    public static String sourceLines(Graph g) {
        Map<String, int[]> byFile = new TreeMap<>();
        for (Node n : g.nodes()) {
            SourceLocation loc = n.sourceLocation();
            if (loc == null || loc.line() <= 0) continue;
            String file = loc.fileName() != null ? loc.fileName() : loc.className();
            int[] range = byFile.computeIfAbsent(file, f -> new int[] {loc.line(), loc.line()});
            range[0] = Math.min(range[0], loc.line());
            range[1] = Math.max(range[1], loc.line());
        }
        List<String> parts = new ArrayList<>();
        byFile.forEach((f, r) -> parts.add(f + ":" + r[0] + (r[1] == r[0] ? "" : "-" + r[1])));
        return String.join(", ", parts);
    }
}
