package dev.ember.dynamo;

import dev.ember.BackendCompilerFailed;
import dev.ember.Options;
import dev.ember.Stance;
import dev.ember.aot.AotAutograd;
import dev.ember.dynamo.guards.Guard;
import dev.ember.dynamo.guards.GuardSet;
import dev.ember.dynamo.resume.ResumeTarget;
import dev.ember.dynamo.resume.Sneaky;
import dev.ember.dynamo.variables.MethodTarget;
import dev.ember.events.CompileEvent.BackendErrorSuppressed;
import dev.ember.events.CompileEvent.Bytecode;
import dev.ember.events.CompileEvent.EagerFallback;
import dev.ember.events.CompileEvent.FrameCompiled;
import dev.ember.events.CompileEvent.FrameFailed;
import dev.ember.events.CompileEvent.FrameStarted;
import dev.ember.events.CompileEvent.GraphBreak;
import dev.ember.events.CompileEvent.GraphCaptured;
import dev.ember.events.CompileEvent.GraphCompiled;
import dev.ember.events.CompileEvent.Phase;
import dev.ember.events.CompileEvent.Recompile;
import dev.ember.events.CompileEvent.RecompileLimitHit;
import dev.ember.events.CompileEvent.Restart;
import dev.ember.events.CompileEvents;
import dev.ember.events.UserFrame;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.PreparedGraph;
import dev.ember.logging.Log;
import dev.ember.logging.CompileContext;
import dev.ember.logging.CompileId;
import dev.ember.logging.Trace;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The frame evaluator and cache of one compiled method: a call checks the cache entries newest
 * first and runs the first whose guards pass; a miss traces anew (under a per-method lock, so one
 * trace never runs twice into one entry) until the recompile limit, after which new inputs run
 * eagerly. The hit path takes no lock: entries are an immutable array published atomically. What
 * happens while compiling is published on the {@link CompileEvents} stream, once, where it happens.
 */
public final class CompiledFrame {
    private static final AtomicInteger FRAME_IDS = new AtomicInteger();
    private static final CompileEvents EVENTS = CompileEvents.global();
    private static final BackendHarness HARNESS = BackendHarness.load();

    private final MethodTarget method;
    private final Options options;
    private final int frameId = FRAME_IDS.getAndIncrement();
    private final AtomicReference<CacheEntry[]> entries = new AtomicReference<>(new CacheEntry[0]);
    private final Object lock = new Object();
    private final List<RecompileReason> recompileReasons = Collections.synchronizedList(new ArrayList<>());
    /** Why the newest entry's graph was compiled for its example sizes only (the recompiles log says so), or null. */
    private String fixedSizesBecause;
    private volatile boolean limitWarned;
    private volatile boolean eagerWarned;
    private int compiles;
    private int graphs;
    private int breaks;
    private int ops;

    /**
     * Int, long and double inputs whose value guard failed at a recompile, and tensor sizes that changed:
     * later traces make the numbers graph inputs instead of constants and the sizes symbols
     * (automatic dynamic, as PyTorch's frame state marks what changed).
     */
    private final Set<String> changedInputs = new java.util.LinkedHashSet<>();

    private void noteChangedInputs(List<dev.ember.dynamo.guards.Guard> failed, Object[] frame) {
        if (Boolean.FALSE.equals(options.dynamicSetting())) return;
        for (var g : failed) {
            if (g instanceof dev.ember.dynamo.guards.EqualsMatch m && (m.expected() instanceof Integer || m.expected() instanceof Long || m.expected() instanceof Double)
                    && !VariableBuilder.isModuleField(m.source()) && changedInputs.add(m.source().name())) {
                dev.ember.logging.Log.of("dynamic").info(() -> "automatic dynamic: " + m.source().shortName() + " changed (" + m.expected()
                        + " before); it is an input of the graph from this recompile on");
            }
            // a tensor argument that is an int now: Dynamo counts the change of type as a change, and the int is dynamic at once
            if (g instanceof dev.ember.dynamo.guards.TensorMatch m && (readable(m, frame) instanceof Integer || readable(m, frame) instanceof Long)
                    && changedInputs.add(m.source().name())) {
                dev.ember.logging.Log.of("dynamic").info(() -> "automatic dynamic: " + m.source().shortName() + " was a tensor and is an int now;"
                        + " it is an input of the graph from this recompile on");
            }
            if (g instanceof dev.ember.dynamo.guards.TensorMatch m && readable(m, frame) instanceof dev.ember.tensor.Tensor t && t.dim() == m.sizes().length) {
                for (int d = 0; d < t.dim(); d++) {
                    int before = m.sizes()[d], now = t.size(d);
                    var size = new dev.ember.dynamo.source.SizeSource(m.source(), d);
                    if (before >= 0 && before != now && changedInputs.add(size.name())) {
                        dev.ember.logging.Log.of("dynamic").info(() -> "automatic dynamic: " + size.shortName() + " changed (" + before + " before, "
                                + now + " now); it is a symbol from this recompile on (Ember.markDynamic makes it one from the first compile)");
                    }
                }
            }
        }
    }

    /** The guarded value, or null when its source cannot be read in this frame (a field of another lambda class, a shorter list). */
    private static Object readable(dev.ember.dynamo.guards.Guard g, Object[] frame) {
        try {
            return g.read(frame);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * The resume method's locals that hold tensors with symbolic sizes in this graph: their sizes
     * are symbols in the resume method's first compile too, instead of costing it a static compile
     * and a recompile (the resume method has frame state of its own).
     */
    void inheritDynamicSizes(Tracer.Partial p, List<String> resumeParamNames) {
        if (Boolean.FALSE.equals(options.dynamicSetting()) || p.types().after() == null
                || p.types().after().locals().size() != p.localShapes().size()) return;
        synchronized (lock) {
            for (int i = 0; i < p.localShapes().size() && i < resumeParamNames.size(); i++) {
                dev.ember.tensor.SymShape shape = p.localShapes().get(i);
                if (shape == null) continue;
                for (int d = 0; d < shape.dim(); d++) {
                    if (!shape.sizes()[d].isConstant()) {
                        changedInputs.add(new dev.ember.dynamo.source.SizeSource(new dev.ember.dynamo.source.LocalSource(i, resumeParamNames.get(i)), d).name());
                    }
                }
            }
        }
    }

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
        if (runsEagerly()) return eager.get();
        if (isSynchronized()) {
            // a synchronized method's lock is held while its compiled code runs (graph, break code, resume methods), as the JVM holds it for the method
            synchronized (method.isStatic() ? method.owner() : frame[0]) {
                return run(target, frame, eager);
            }
        }
        return run(target, frame, eager);
    }

    private volatile Boolean synchronizedMethod;

    /** Whether this call skips compiled code altogether: inside an {@code Ember.disabled()} block, or under {@code Stance.FORCE_EAGER}. */
    private boolean runsEagerly() {
        boolean disabled = DisabledFunctions.inDisabledRegion();
        if (!disabled && Stances.current() != Stance.FORCE_EAGER) return false;
        Log.of("dynamo").debug(() -> name() + " runs eagerly: " + (disabled ? "it is called inside an Ember.disabled() block" : "the stance is force_eager"));
        return true;
    }

    /** Whether the method is declared {@code synchronized} (read once from its class file; false when it cannot be read). */
    private boolean isSynchronized() {
        Boolean s = synchronizedMethod;
        if (s == null) {
            boolean flag;
            try {
                ClassFiles.Resolved r = ClassFiles.declared(method.owner(), method.name(), method.type());
                flag = r != null && r.method().flags().has(java.lang.reflect.AccessFlag.SYNCHRONIZED);
            } catch (RuntimeException e) {
                flag = false;
            }
            synchronizedMethod = s = flag;
        }
        return s;
    }

    private Object run(FunctionTarget target, Object[] frame, Supplier<Object> eager) {
        try {
            if (Trace.measuresRunTime()) return RunCost.run(this, target, frame, eager);
            for (CacheEntry e : entries.get()) {
                if (e.guards().check(frame)) return FrameDebug.run(this, e, frame, eager);
            }
            CacheEntry entry = miss(target, frame);
            return entry == null ? eager.get() : FrameDebug.run(this, entry, frame, eager);
        } catch (Throwable t) {
            throw Sneaky.<RuntimeException>rethrow(UserStackTraces.filter(t));
        }
    }

    /** The cache entries, newest first, as the hot path reads them (not to be changed). */
    CacheEntry[] current() { return entries.get(); }

    CacheEntry miss(FunctionTarget target, Object[] frame) {
        synchronized (lock) {
            CacheEntry[] current = entries.get();
            for (CacheEntry e : current) {
                if (e.guards().check(frame)) return e;
            }
            List<String> failures = new ArrayList<>();
            for (CacheEntry e : current) failures.add(e.guards().firstFailure(frame));
            if (!stanceAllowsCompile(target, frame, failures)) return null;
            for (CacheEntry e : current) noteChangedInputs(e.guards().failing(frame), frame);
            if (current.length >= options.getRecompileLimit()) {
                limitHit(failures);
                return null;
            }
            CacheEntry entry;
            try (var scope = CompileContext.enter(CompileId.of(frameId, compiles), name())) {
                if (current.length > 0) {
                    recompileReasons.add(new RecompileReason(compiles, failures));
                    List<List<String>> all = new ArrayList<>();
                    List<CompileId> ids = new ArrayList<>();
                    for (CacheEntry e : current) {
                        all.add(e.guards().allFailures(frame));
                        ids.add(e.id);
                    }
                    EVENTS.publish(new Recompile(name(), where(), failures, all, ids, fixedSizesBecause));
                }
                entry = compileOnce(target, frame, current.length);
                EVENTS.publish(new FrameCompiled(name(), graphs, compiles + 1, breaks, ops));
            }
            compiles++;
            CacheEntry[] next = new CacheEntry[current.length + 1];
            next[0] = entry;
            System.arraycopy(current, 0, next, 1, current.length);
            entries.set(next);
            return entry;
        }
    }

    /**
     * The stance's say at a cache miss ({@code failures}: each cache entry's failed guard): false
     * runs this call eagerly, leaving the cache as it is; under fail_on_recompile a recompile throws.
     */
    private boolean stanceAllowsCompile(FunctionTarget target, Object[] frame, List<String> failures) {
        Stance stance = Stances.current();
        boolean recompile = !failures.isEmpty();
        if (recompile && stance == Stance.EAGER_ON_RECOMPILE) {
            Log.artifact("recompiles", () -> name() + " in " + where() + " runs eagerly instead of recompiling (the stance is eager_on_recompile)"
                    + failureList(failures));
            return false;
        }
        if (recompile && stance == Stance.FAIL_ON_RECOMPILE) {
            throw new RecompileError(name() + " in " + where() + " would recompile, and the stance is fail_on_recompile" + failureList(failures)
                    + "\n  Call it with inputs one of its " + failures.size() + " cache entr" + (failures.size() == 1 ? "y" : "ies")
                    + " accepts, or set another stance (Ember.setStance(Stance.DEFAULT)) to let it recompile.");
        }
        if (!recompile && stance == Stance.EAGER_THEN_COMPILE && firstCall == null) {
            firstCall = EagerCall.of(frame);
            Log.artifact("recompiles", () -> name() + " in " + where() + " runs eagerly on its first call (the stance is eager_then_compile);"
                    + " it compiles at the next, with what changed in between dynamic");
            return false;
        }
        if (firstCall != null && !recompile && !Boolean.FALSE.equals(options.dynamicSetting())) {
            firstCall.changesIn(frame, Tracer.argumentNames(target, frame), changedInputs);
        }
        firstCall = null;
        return true;
    }

    /** The values an eager first call (eager_then_compile) had, compared with the call that compiles. */
    private EagerCall firstCall;

    /** The failed guards under a heading, one line each ({@code - 0/0: tensor 'x' size mismatch …}), oldest entry first, as PyTorch lists them. */
    private String failureList(List<String> newestFirst) {
        StringBuilder sb = new StringBuilder("\n    triggered by the following guard failure(s):");
        for (int i = newestFirst.size() - 1; i >= 0; i--) {
            sb.append("\n    - ").append(frameId).append('/').append(newestFirst.size() - 1 - i).append(": ").append(newestFirst.get(i));
        }
        return sb.toString();
    }

    /** One compile, from {@link FrameStarted} on; when it throws, {@link FrameFailed} ends it. */
    private CacheEntry compileOnce(FunctionTarget target, Object[] frame, int cacheSize) {
        Supplier<String> bytecode = memoized(this::originalBytecode);
        try {
            EVENTS.publish(new FrameStarted(CompileContext.current(), name(), firstLine(), cacheSize, totalEntries(), Instant.now(), bytecode,
                    options.dynamicSetting()));
            // what tracing and compiling allocate (a graph's attributes and constants, folded weights) is the compiled
            // frame's, not a TensorScope's around the call that happened to compile it
            return dev.ember.tensor.TensorScope.untracked(() -> compile(target, frame, bytecode));
        } catch (Throwable e) {
            String reason = e instanceof Unsupported u ? u.gbId() + ": " + u.reason() : String.valueOf(e.getMessage());
            try {
                EVENTS.publish(new FrameFailed(name(), e, reason, e instanceof Unsupported u ? u.userFrame() : null));
            } catch (RuntimeException sinkFailure) {
                e.addSuppressed(sinkFailure);
            }
            throw e;
        }
    }

    private CacheEntry compile(FunctionTarget target, Object[] frame, Supplier<String> bytecode) {
        try {
            fixedSizesBecause = null;
            return compile(target, frame, bytecode, options.getBackend().compilesSymbolicSizes() ? Set.of() : Set.of(ShapeEnv.ALL_SIZES));
        } catch (dev.ember.fx.SymbolicShapes.NotGeneric e) {
            fixedSizesBecause = e.getMessage();
            // the backend cannot make this graph generic in its sizes: compile it for these sizes
            dev.ember.logging.Log.of("dynamic").info(() -> "compiling for these sizes only: " + e.getMessage());
            restarted("the graph is not generic in its sizes, compiled for these sizes only: " + e.getMessage());
            return compile(target, frame, bytecode, Set.of(ShapeEnv.ALL_SIZES));
        }
    }

    private CacheEntry compile(FunctionTarget target, Object[] frame, Supplier<String> bytecode, Set<String> specialized) {
        Tracer.Result result;
        try (var timing = EVENTS.time(name(), Phase.TRACING)) {
            result = Tracer.trace(target, frame, options, Set.copyOf(changedInputs), specialized, this::restarted);
        }
        Unsupported u = result.graphBreak();
        if (u == null) {
            OutputGraph g = result.graph();
            EVENTS.publish(new Bytecode(name(), bytecode, null, null));
            CompiledGraph compiled = compileGraph(g, frame, result.sideEffects());
            return CacheEntry.compiled(new GuardSet(g.guards()), compiled, g, result.rebuilder(), result.sideEffects());
        }
        EVENTS.publish(new GraphBreak(name(), u.gbId(), u.type().shortType(), u.reason(), u.userStack(), u.getMessage()));
        if (options.isFullgraph() || result.errorOnGraphBreak()) throw u;
        breaks++;
        String whyNoResume = u.noResume();
        if (result.resumable()) {
            try {
                return resume(target, frame, result, u);
            } catch (CannotResume e) {
                whyNoResume = e.getMessage();
            }
        }
        EVENTS.publish(new Bytecode(name(), bytecode, null, null));
        boolean warn = !eagerWarned && ClassFiles.origin(method.owner()) == method.owner();
        eagerWarned = true;
        EVENTS.publish(new EagerFallback(name(), u.gbId(), u.reason(), u.userFrame(), whyNoResume, warn));
        return CacheEntry.eager(new GuardSet(result.graph().guards()), u);
    }

    /** The analysis starts over as the next attempt ({@code [0/0_1]}): what follows is logged and traced under its id. */
    private void restarted(String reason) {
        CompileId previous = CompileContext.nextAttempt();
        EVENTS.publish(new Restart(name(), reason, previous, firstLine()));
    }

    /**
     * A partial graph: everything before the break compiled, then generated code that runs the
     * breaking instruction and continues in a resume method.
     *
     * @throws CannotResume when no resume can start at the break
     */
    private CacheEntry resume(FunctionTarget target, Object[] frame, Tracer.Result result, Unsupported u) {
        Tracer.Partial p;
        ResumeCodegen.Generated gen;
        try (var timing = EVENTS.time(name(), Phase.RESUME_CODEGEN)) {
            p = Tracer.traceToBreak(target, frame, result, options);
            // a break inside a helper the trace was inlining: the helper gets a compiled frame of its own
            // (not for the inlining depth or instruction budget: the helper's frame would meet the same limit)
            boolean insideHelper = u.userStack().size() > 1 && u.type() != GraphBreakType.INLINE_DEPTH && u.type() != GraphBreakType.INSTRUCTION_BUDGET;
            gen = ResumeCodegen.generate(p.code(), p.index(), p.last(), p.types(), p.stackNames(), insideHelper);
        }
        if (gen.resume() == null && p.graph().opCount() == 0) {
            // Nothing before the break is in the graph and the rest runs eagerly: the whole method runs
            // eagerly, and says so, rather than look compiled.
            throw new CannotResume("nothing before the break is in the graph, and the rest of the method runs eagerly");
        }
        EVENTS.publish(new Bytecode(name(), memoized(() -> GeneratedCode.listing(p.code().owner, p.code().method)), GeneratedCode.listing(gen.hidden()), u.userFrame()));
        ResumeTarget next = null;
        if (gen.resume() != null) {
            FunctionTarget rt = new FunctionTarget(gen.resume(), "apply", new Object[0], "invokeStatic");
            CompiledFrame resumeFrame = FrameRegistry.frameFor(gen.resume(), ErrorOnGraphBreak.forResume(options, result.errorOnGraphBreak()));
            resumeFrame.inheritDynamicSizes(p, gen.resumeParamNames());
            next = new ResumeTarget(resumeFrame, rt, gen.resumeDirect(), UserStackTraces.continuedBy(gen.resume()));
        }
        OutputGraph g = p.graph();
        CompiledGraph compiled = compileGraph(g, frame, p.sideEffects());
        return CacheEntry.resuming(new GuardSet(g.guards()), compiled, g, p.live(), p.sideEffects(), u, p.code().frameAt(p.index()), gen.breakAt(), gen.hidden(), next);
    }

    private CompiledGraph compileGraph(OutputGraph g, Object[] frame, List<SideEffect> sideEffects) {
        GraphModule gm = g.toGraphModule();
        List<String> guards = g.guards().stream().map(Guard::describe).toList();
        List<Object> inputs = inputValues(g, frame);
        String backend = options.getBackendName();
        EVENTS.publish(new GraphCaptured(name(), gm, guards, sideEffects.stream().map(String::valueOf).toList(), inputs, backend));
        CompiledGraph compiled;
        try (var timing = EVENTS.time(name(), Phase.BACKEND)) {
            // Like Dynamo, a graph without ops is not worth a backend: it only passes inputs through.
            // AOT's backends get graph inputs' mutations functionalized (AOTAutograd's runtime wrapper); others get the graph as captured
            boolean training = g.opCount() > 0 && inputs != null && CacheEntry.needsAutograd(inputs.toArray(), g.graph());
            if (g.opCount() == 0 || training && writesWhatAutogradRefuses(gm, inputs)) {
                compiled = new PreparedGraph(gm);   // op by op: eager's own history, and eager's own errors
            } else {
                InputMutations.Rewrite rewrite = !AOT_BACKENDS.contains(backend) ? null : InputMutations.functionalize(g, gm, inputs);
                GraphModule toCompile = rewrite == null ? gm : rewrite.graph();
                compiled = training ? compileForTraining(toCompile, g.exampleInputs(), inputs) : compileWithBackend(toCompile, g.exampleInputs(), inputs);
                if (rewrite != null) compiled = rewrite.wrap(compiled);
            }
        }
        // A graph without ops is not compiled (above), so it is not counted either, as Dynamo counts only graphs it compiles.
        if (g.opCount() > 0) graphs++;
        ops += g.opCount();
        EVENTS.publish(new GraphCompiled(name(), gm, compiled, backend, guards.size(), g.opCount(), g.exampleInputs().size()));
        return compiled;
    }

    /**
     * The backend's compilation of the graph, under the repro levels ({@link BackendHarness}). When the
     * backend throws: {@link BackendCompilerFailed}, or with suppressErrors the graph run eagerly
     * after one warning, so the function keeps working.
     */
    private CompiledGraph compileWithBackend(GraphModule gm, List<dev.ember.tensor.FakeTensor> fakes, List<Object> inputs) {
        try {
            return HARNESS.compile(gm, fakes, () -> inputs, options, name());
        } catch (BackendCompilerFailed e) {
            if (!options.isSuppressErrors() && !BackendCompilerFailed.suppressedByEnvironment()) throw withContext(e, gm);
            EVENTS.publish(new BackendErrorSuppressed(name(), options.getBackendName(), e));
            return new PreparedGraph(gm);
        }
    }

    /** With EMBER_VERBOSE=1 the error carries the graph the backend failed on, as a note (a suppressed exception). */
    private static BackendCompilerFailed withContext(BackendCompilerFailed e, GraphModule gm) {
        if (dev.ember.logging.Verbose.enabled()) e.addSuppressed(new TraceContextNote("While compiling " + e.graph() + " with backend '" + e.backend() + "', the graph:\n" + gm.code()));
        return e;
    }

    /**
     * A graph whose inputs require grad, with grad mode on: the AOT backends (inductor, aot_eager)
     * compile a forward and a backward graph ({@link AotAutograd}); graphs AOT cannot differentiate
     * run op by op so that autograd records every op (said in the aot log); other backends compile
     * the graph as for inference, and it runs op by op whenever gradients are needed.
     */
    private CompiledGraph compileForTraining(GraphModule gm, List<dev.ember.tensor.FakeTensor> fakes, List<Object> inputs) {
        String backend = options.getBackendName();
        // another backend compiles the graph as it is; its code records nothing, so CacheEntry runs the graph op by op when gradients are needed
        if (!AOT_BACKENDS.contains(backend)) return compileWithBackend(gm, fakes, inputs);
        try {
            return AotAutograd.compile(gm, inputs, backend.equals("inductor"), (graph, graphFakes, which) -> HARNESS.compile(graph, graphFakes, () -> null, options, name() + " (" + which + ")"));
        } catch (AotAutograd.NotTrainable e) {
            Log.of("aot").info(() -> name() + ": the graph runs op by op with autograd, not compiled: " + e.getMessage());
            return new PreparedGraph(gm);
        } catch (BackendCompilerFailed e) {
            if (!options.isSuppressErrors() && !BackendCompilerFailed.suppressedByEnvironment()) throw withContext(e, gm);
            EVENTS.publish(new BackendErrorSuppressed(name(), backend, e));
            return new PreparedGraph(gm);
        }
    }

    /**
     * An out= op, or an in-place op on an input that requires grad: eager autograd refuses both (or
     * records the write on a non-leaf), so a training graph holding one runs op by op and behaves
     * exactly as eager, error included.
     */
    private static boolean writesWhatAutogradRefuses(GraphModule gm, List<Object> inputs) {
        List<dev.ember.fx.Node> placeholders = gm.graph().placeholders();
        for (dev.ember.fx.Node n : gm.graph().nodes()) {
            if (!(n.target() instanceof dev.ember.ops.OpOverload op) || op.writtenArg() < 0) continue;
            if (op.schema().kind() == dev.ember.ops.Schema.Kind.OUT) return true;
            if (n.arg(0) instanceof dev.ember.fx.Node self && placeholders.contains(self)
                    && inputs.get(placeholders.indexOf(self)) instanceof dev.ember.tensor.Tensor t && t.requiresGrad()) return true;
        }
        return false;
    }

    /** The backends that compile below the captured graph, through AOT: they get a forward and a backward graph to train. */
    private static final java.util.Set<String> AOT_BACKENDS = java.util.Set.of("inductor", "aot_eager");

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
        var hit = new RecompileLimitHit(name(), where(), options.getRecompileLimit(), failures.isEmpty() ? "none" : failures.getFirst());
        if (options.isFailOnRecompileLimitHit()) throw new RecompileLimitExceeded(hit.message());
        if (!limitWarned) {
            limitWarned = true;
            EVENTS.publish(hit);
        }
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
            MethodCode code = methodCode();
            return GeneratedCode.listing(code.owner, code.method);
        } catch (RuntimeException e) {
            return "(the bytecode of " + name() + " cannot be read: " + e.getMessage() + ")";
        }
    }

    /** {@code text}, computed on first use: several sinks may read it, or none. */
    private static Supplier<String> memoized(Supplier<String> text) {
        return new Supplier<>() {
            private String value;

            @Override
            public synchronized String get() {
                if (value == null) value = text.get();
                return value;
            }
        };
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
            eagerWarned = false;
            firstCall = null;
            compiles = 0;
            graphs = 0;
            breaks = 0;
            ops = 0;
        }
    }
}
