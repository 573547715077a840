package dev.ember.dynamo;

import dev.ember.fx.CompiledGraph;
import dev.ember.fx.PreparedGraph;
import dev.ember.BackendCompilerFailed;
import dev.ember.Options;
import dev.ember.debug.CompileDebug;
import dev.ember.debug.CompileLogs;
import dev.ember.debug.CompileProfiler;
import dev.ember.debug.ReproLevels;
import dev.ember.dynamo.guards.GuardSet;
import dev.ember.dynamo.resume.ResumeTarget;
import dev.ember.dynamo.variables.MethodTarget;
import dev.ember.events.UserFrame;
import dev.ember.logging.CompileContext;
import dev.ember.logging.CompileId;
import dev.ember.dynamo.guards.Guard;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.logging.CompilationMetrics;
import dev.ember.logging.Log;
import dev.ember.logging.Trace;
import dev.ember.logging.TraceFrame;
import dev.ember.tensor.FakeTensor;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.function.Supplier;

/**
 * The frame evaluator and cache of one compiled method: a call checks the cache entries newest
 * first and runs the first whose guards pass; a miss traces anew (under a per-method lock, so one
 * trace never runs twice into one entry) until the recompile limit, after which new inputs run
 * eagerly. The hit path takes no lock: entries are an immutable array published atomically.
 */
public final class CompiledFrame {
    private static final AtomicInteger FRAME_IDS = new AtomicInteger();

    private final MethodTarget method;
    private final Options options;
    private final int frameId = FRAME_IDS.getAndIncrement();
    private final AtomicReference<CacheEntry[]> entries = new AtomicReference<>(new CacheEntry[0]);
    private final Object lock = new Object();
    private final List<RecompileReason> recompileReasons = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean limitWarned;
    private int compiles;
    private int graphs;
    private int breaks;
    private int ops;

    CompiledFrame(MethodTarget method, Options options) {
        this.method = method;
        this.options = options;
    }

    public MethodTarget method() { return method; }

    public Options options() { return options; }

    /** The cache entries, newest first. */
    public List<CacheEntry> entries() { return List.of(entries.get()); }

    /** One reason per recompilation (a trace after the first), oldest first. */
    public List<RecompileReason> recompileReasons() { return List.copyOf(recompileReasons); }

    /**
     * Runs the method for this call: {@code frame} holds captured values then arguments;
     * {@code eager} runs the original function (for eager entries and past the recompile limit).
     */
    public Object call(FunctionTarget target, Object[] frame, Supplier<Object> eager) {
        for (CacheEntry e : entries.get()) {
            if (e.guards().check(frame)) return e.run(frame, eager);
        }
        CacheEntry entry = miss(target, frame);
        return entry == null ? eager.get() : entry.run(frame, eager);
    }

    private CacheEntry miss(FunctionTarget target, Object[] frame) {
        synchronized (lock) {
            CacheEntry[] current = entries.get();
            for (CacheEntry e : current) {
                if (e.guards().check(frame)) return e;
            }
            List<String> failures = new ArrayList<>();
            for (CacheEntry e : current) failures.add(e.guards().firstFailure(frame));
            if (current.length >= options.getRecompileLimit()) {
                limitHit(failures);
                return null;
            }
            CacheEntry entry;
            try (var scope = CompileContext.enter(CompileId.of(frameId, compiles), name())) {
                UserFrame start = firstLine();
                Trace.dynamoStart(List.of(new TraceFrame(start.fileName(), start.line(), method.name(), start.sourceText())));
                if (current.length > 0) {
                    recompileReasons.add(new RecompileReason(compiles, failures));
                    Trace.recompileReasons(failures);
                    Log.artifact("recompiles", () -> "Recompiling function " + name() + " in " + where() + "\n    triggered by the following guard failure(s):\n"
                            + failures.stream().map(f -> "    - " + f).collect(Collectors.joining("\n")));
                    Log.artifact("recompiles_verbose", () -> "Recompiling function " + name() + ": every failing guard, newest entry first:\n"
                            + verboseFailures(current, frame));
                }
                try (var profiled = CompileProfiler.function(name())) {
                    entry = compile(target, frame, current.length);
                }
                int compileCount = compiles + 1;
                Log.of("dynamo").info(() -> CompileLogs.graphCount(name(), graphs, compileCount, breaks, ops));
            }
            compiles++;
            CacheEntry[] next = new CacheEntry[current.length + 1];
            next[0] = entry;
            System.arraycopy(current, 0, next, 1, current.length);
            entries.set(next);
            return entry;
        }
    }

    private CacheEntry compile(FunctionTarget target, Object[] frame, int cacheSize) {
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        Log.artifact("bytecode", () -> "ORIGINAL BYTECODE of " + name() + " (" + where() + "):\n" + originalBytecode());
        Log.of("dynamic").info(() -> CompileLogs.staticShapes(name(), options.isDynamic()));
        Tracer.Result result;
        try (var phase = CompileProfiler.phase("tracing")) {
            result = Tracer.trace(target, frame, options);
        }
        long traced = System.nanoTime();
        UserFrame start = firstLine();
        CompilationMetrics metrics = new CompilationMetrics().function(method.name(), start.fileName(), start.line())
                .cacheSize(cacheSize, totalEntries()).startTime(started).tracingTime(Duration.ofNanos(traced - t0));
        Unsupported u = result.graphBreak();
        if (u != null) {
            Log.artifact("graph_breaks", u::getMessage);
            Trace.graphBreak(u.getMessage());
            BreakListeners.graphBreak(u);
            CompileDebug.graphBreak(u.getMessage());
            UserFrame at = u.userFrame();
            if (options.isFullgraph()) {
                Trace.compilationMetrics(metrics.failure("Unsupported", u.gbId() + ": " + u.reason(), at == null ? null : at.fileName(), at == null ? -1 : at.line())
                        .entireFrameCompileTime(Duration.ofNanos(System.nanoTime() - t0)));
                throw u;
            }
            breaks++;
            CacheEntry resumed = result.resumable() ? resume(target, frame, result, u, metrics, t0) : null;
            if (resumed != null) return resumed;
            CompileDebug.bytecode(name(), this::originalBytecode, null);
            Log.artifact("perf_hints", () -> name() + " runs eagerly for these inputs: graph break " + u.gbId() + " at " + at
                    + " could not be resumed, so nothing of this call is compiled. " + u.reason());
            Trace.compilationMetrics(metrics.failure("Unsupported", u.gbId() + ": " + u.reason(), at == null ? null : at.fileName(), at == null ? -1 : at.line())
                    .entireFrameCompileTime(Duration.ofNanos(System.nanoTime() - t0)));
            Log.of("dynamo").debug(() -> name() + " runs eagerly for these inputs (graph break " + u.gbId() + ")");
            return CacheEntry.eager(new GuardSet(result.graph().guards()), u);
        }
        OutputGraph g = result.graph();
        CompileDebug.bytecode(name(), this::originalBytecode, null);
        CompiledGraph compiled = compileGraph(g, frame, result.sideEffects(), metrics, t0);
        return CacheEntry.compiled(new GuardSet(g.guards()), compiled, g, result.rebuilder(), result.sideEffects());
    }

    /**
     * A partial graph: everything before the break compiled, then generated code that runs the
     * breaking instruction and continues in a resume method; null when no resume can start there.
     */
    private CacheEntry resume(FunctionTarget target, Object[] frame, Tracer.Result result, Unsupported u, CompilationMetrics metrics, long t0) {
        Tracer.Partial p;
        ResumeCodegen.Generated gen;
        try (var phase = CompileProfiler.phase("resume codegen")) {
            p = Tracer.traceToBreak(target, frame, result, options);
            gen = ResumeCodegen.generate(p.code(), p.index(), p.types());
        } catch (CannotResume e) {
            Log.of("dynamo").debug(() -> name() + ": no resume after graph break " + u.gbId() + " (" + e.getMessage() + "); the method runs eagerly for these inputs");
            return null;
        }
        Log.artifact("bytecode", () -> "MODIFIED BYTECODE of " + name() + " after the graph break at " + u.userFrame() + ":\n"
                + ResumeCodegen.disassemble(gen.bytes()));
        Trace.bytecode(p.code().method.toDebugString(), ResumeCodegen.disassemble(gen.bytes()));
        CompileDebug.bytecode(name(), p.code().method::toDebugString, ResumeCodegen.disassemble(gen.bytes()));
        ResumeTarget next = null;
        if (gen.resume() != null) {
            FunctionTarget rt = new FunctionTarget(gen.resume(), "apply", new Object[0], "invokeStatic");
            next = new ResumeTarget(FrameRegistry.frameFor(gen.resume(), options), rt, gen.resumeDirect());
        }
        OutputGraph g = p.graph();
        CompiledGraph compiled = compileGraph(g, frame, p.sideEffects(), metrics, t0);
        return CacheEntry.resuming(new GuardSet(g.guards()), compiled, g, p.live(), p.sideEffects(), u, gen.breakAt(), next);
    }

    private CompiledGraph compileGraph(OutputGraph g, Object[] frame, List<SideEffect> sideEffects, CompilationMetrics metrics, long t0) {
        Log.artifact("guards", () -> "GUARDS for " + name() + ":\n" + g.guards().stream().map(x -> "  " + x.describe()).collect(Collectors.joining("\n")));
        Log.artifact("graph_code", () -> "TRACED GRAPH of " + name() + "\n" + g.toGraphModule().code());
        Log.artifact("graph", () -> "TRACED GRAPH of " + name() + "\n" + g.toGraphModule().tabular());
        Log.artifact("graph_sizes", () -> CompileLogs.graphSizes(name(), g.graph()));
        Log.artifact("side_effects", () -> sideEffects.isEmpty() ? "no side effects in " + name()
                : "side effects replayed after the graph of " + name() + ":\n" + sideEffects.stream().map(e -> "  " + e).collect(Collectors.joining("\n")));
        if (Trace.isEnabled()) {
            Map<String, List<Integer>> sizes = new LinkedHashMap<>();
            for (Node n : g.graph().nodes()) {
                if (n.val() instanceof FakeTensor t) sizes.put(n.name(), java.util.Arrays.stream(t.shape()).boxed().toList());
            }
            Trace.outputGraph(sizes, () -> g.toGraphModule().code());
            Trace.guards(g.guards().stream().map(Guard::describe).toList());
        }
        GraphModule gm = g.toGraphModule();
        String backend = options.getBackendName();
        CompileDebug.graph(name(), gm, g.inputSources(), frame, backend, g.guards().stream().map(Guard::describe).toList());
        long backendStart = System.nanoTime();
        CompiledGraph compiled;
        try (var phase = CompileProfiler.phase("backend")) {
            // Like Dynamo, a graph without ops is not worth a backend: it only passes inputs through.
            compiled = g.opCount() == 0 ? new PreparedGraph(gm) : compileWithBackend(g, gm, frame);
        }
        long done = System.nanoTime();
        graphs++;
        ops += g.opCount();
        CompileDebug.compiled(name(), gm, compiled, backend);
        if (compiled.outputCode() != null) Log.artifact("output_code", () -> "OUTPUT CODE of " + name() + " (backend '" + backend + "'):\n" + compiled.outputCode());
        Trace.compilationMetrics(metrics.counts(g.guards().size(), g.opCount(), g.graph().size(), g.exampleInputs().size())
                .backendCompileTime(Duration.ofNanos(done - backendStart)).entireFrameCompileTime(Duration.ofNanos(done - t0)));
        return compiled;
    }

    /**
     * The backend's compilation of the graph, under the repro levels ({@link ReproLevels}). When the
     * backend throws: {@link BackendCompilerFailed}, or with suppressErrors the graph run eagerly
     * after one warning, so the function keeps working.
     */
    private CompiledGraph compileWithBackend(OutputGraph g, GraphModule gm, Object[] frame) {
        CompileId id = CompileContext.current();
        var request = new ReproLevels.Request(options.getBackendName(), options.getMode(), options.getReproTolerance(),
                name() + " [" + id + "]", name() + "__" + id.frameId() + "_" + id.frameCompileId(), ReproLevels.sourceLines(g.graph()));
        try {
            return ReproLevels.compile(options.getBackend(), g.toGraphModule(), g.exampleInputs(), () -> inputValues(g, frame), request);
        } catch (BackendCompilerFailed e) {
            if (!options.isSuppressErrors() && !BackendCompilerFailed.suppressedByEnvironment()) throw e;
            String message = e.getMessage();
            // The message's last line says how to suppress; it is on, so say what it does instead.
            Log.of("dynamo").warning("ember: " + message.substring(0, message.lastIndexOf('\n'))
                    + "\n  suppressErrors is on: this graph runs eagerly (op by op) from now on");
            return new PreparedGraph(gm);
        }
    }

    /** The graph's inputs read from the frame, or null when one cannot be read. */
    private static List<Object> inputValues(OutputGraph g, Object[] frame) {
        List<Object> values = new ArrayList<>();
        for (var source : g.inputSources()) {
            try {
                values.add(source.read(frame));
            } catch (RuntimeException e) {
                return null;
            }
        }
        return values;
    }

    private void limitHit(List<String> failures) {
        String last = failures.isEmpty() ? "none" : failures.getFirst();
        String msg = "ember: recompile limit (" + options.getRecompileLimit() + ") reached for " + name() + " in " + where()
                + "; last failed guard: " + last + ". The function now runs eagerly for inputs that match no cache entry. "
                + "To find the cause, log recompile reasons; to raise the limit use Options.recompileLimit(n).";
        if (options.isFailOnRecompileLimitHit()) throw new RecompileLimitExceeded(msg);
        if (!limitWarned) {
            limitWarned = true;
            Log.of("dynamo").warning(msg);
            Log.artifact("perf_hints", () -> name() + " hit the recompile limit (" + options.getRecompileLimit()
                    + "): calls whose inputs match no cache entry now run eagerly, uncompiled. Last failed guard: " + last);
        }
    }

    private static String verboseFailures(CacheEntry[] entries, Object[] frame) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < entries.length; i++) {
            for (String f : entries[i].guards().allFailures(frame)) sb.append("    - entry ").append(i).append(": ").append(f).append('\n');
        }
        return sb.toString().stripTrailing();
    }

    /** {@code Programs.java:42}: where the compiled method starts. */
    private String where() {
        UserFrame f = firstLine();
        return f.fileName() + ":" + f.line();
    }

    /** The compiled method's first line (its class name as the file when the class file cannot be read). */
    private UserFrame firstLine() {
        try {
            return methodCode().firstFrameWithLine();
        } catch (RuntimeException e) {
            return new UserFrame(method.owner().getName(), method.name(), method.owner().getName(), -1, 0, null);
        }
    }

    private MethodCode methodCode() {
        ClassFiles.Resolved r = ClassFiles.virtual(method.owner(), method.name(), method.type());
        if (r == null) r = ClassFiles.exact(method.owner(), method.name(), method.type());
        return MethodCode.of(r);
    }

    /** The compiled method's bytecode as the class file holds it. */
    private String originalBytecode() {
        try {
            return methodCode().method.toDebugString();
        } catch (RuntimeException e) {
            return "(the bytecode of " + name() + " cannot be read: " + e.getMessage() + ")";
        }
    }

    private static int totalEntries() {
        int n = 0;
        for (CompiledFrame f : FrameRegistry.frames()) n += f.entries.get().length;
        return n;
    }

    /** {@code MyApp.fn} */
    public String name() {
        // From the binary name, not getSimpleName(): that reads the InnerClasses attribute, which throws
        // IllegalAccessError for a nested class loaded by a loader other than its outer class's.
        String cls = ClassFiles.origin(method.owner()).getName();
        return cls.substring(cls.lastIndexOf('.') + 1) + "." + method.name();
    }

    void clear() {
        synchronized (lock) {
            entries.set(new CacheEntry[0]);
            recompileReasons.clear();
            limitWarned = false;
            compiles = 0;
            graphs = 0;
            breaks = 0;
            ops = 0;
        }
    }
}
