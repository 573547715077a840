package dev.ember.dynamo;

import dev.ember.autograd.GradMode;
import dev.ember.events.UserFrame;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.PreparedGraph;
import dev.ember.logging.CompileContext;
import dev.ember.logging.CompileId;
import dev.ember.tensor.Tensor;
import dev.ember.dynamo.guards.GuardSet;
import dev.ember.dynamo.resume.ResumeTarget;
import dev.ember.dynamo.resume.Sneaky;
import dev.ember.dynamo.source.Source;

import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.function.Supplier;

/**
 * One compilation of a method: the guards under which it is valid and what runs when they pass:
 * a compiled graph with the recipe to rebuild the return value; or, after a graph break, the
 * graph of everything before the break followed by generated code that runs the breaking
 * instruction and continues in a resume method; or (when no resume is possible) "run eagerly".
 */
public final class CacheEntry {
    private final GuardSet guards;
    private final CompiledGraph compiled;
    private final Source[] inputs;
    private final OutputRebuilder rebuilder;
    private final SideEffect[] sideEffects;
    private final Unsupported graphBreak;
    private final OutputGraph graph;
    private final LiveValues live;
    private final MethodHandle breakAt;
    /** The hidden class whose {@code breakAt} the handle is, for the bytecode debugger. */
    private final Class<?> breakClass;
    private final ResumeTarget resume;
    /** The method's own frame at the breaking instruction (the break's user stack may start in an inlined helper). */
    private final UserFrame breakFrame;
    /** The compile that made it ({@code 0/1}); null when made outside a compile. */
    final CompileId id = CompileContext.current();
    /** What its calls cost, while the trace measures them; else null. */
    final RunCost cost = RunCost.forNewEntry(id);

    private CacheEntry(GuardSet guards, CompiledGraph compiled, OutputGraph graph, OutputRebuilder rebuilder, List<SideEffect> sideEffects,
                       Unsupported graphBreak, LiveValues live, MethodHandle breakAt, Class<?> breakClass, ResumeTarget resume, UserFrame breakFrame) {
        this.guards = guards;
        this.sideEffects = sideEffects.toArray(SideEffect[]::new);
        this.compiled = compiled;
        this.inputs = graph == null ? new Source[0] : graph.inputSources().toArray(Source[]::new);
        this.rebuilder = rebuilder;
        this.graphBreak = graphBreak;
        this.graph = graph;
        this.live = live;
        this.breakAt = breakAt;
        this.breakClass = breakClass;
        this.resume = resume;
        this.breakFrame = breakFrame;
        this.turnsGradOn = graph != null && turnsGradOn(graph.graph());
    }

    /** Whether the graph switches grad mode on itself (read once: runGraph asks on every call). */
    private final boolean turnsGradOn;

    static CacheEntry compiled(GuardSet guards, CompiledGraph compiled, OutputGraph graph, OutputRebuilder rebuilder, List<SideEffect> sideEffects) {
        return new CacheEntry(guards, compiled, graph, rebuilder, sideEffects, null, null, null, null, null, null);
    }

    /**
     * The graph before a break at {@code breakFrame}; {@code breakAt} (typed {@code (Object[], ResumeTarget)Object}), the method
     * {@code breakAt} of {@code breakClass}, runs the rest.
     */
    static CacheEntry resuming(GuardSet guards, CompiledGraph compiled, OutputGraph graph, LiveValues live, List<SideEffect> sideEffects,
                               Unsupported graphBreak, UserFrame breakFrame, MethodHandle breakAt, Class<?> breakClass, ResumeTarget resume) {
        return new CacheEntry(guards, compiled, graph, null, sideEffects, graphBreak, live, breakAt, breakClass, resume, breakFrame);
    }

    static CacheEntry eager(GuardSet guards, Unsupported reason) {
        return new CacheEntry(guards, null, null, null, List.of(), reason, null, null, null, null, null);
    }

    public GuardSet guards() { return guards; }

    /** The graph break this entry stops at (its rest runs as a resume method or eagerly), or null for a whole graph. */
    public Unsupported graphBreak() { return graphBreak; }

    /** Whether the whole method runs eagerly for these inputs (a break where no resume could start). */
    public boolean isEager() { return compiled == null; }

    /** The captured graph (before the break, for a resuming entry), or null for an eager entry. */
    public OutputGraph graph() { return graph; }

    /** The resume method's frame after a break, or null. */
    public CompiledFrame resumeFrame() { return resume == null ? null : resume.frame(); }

    /**
     * The captured graph run op by op, so autograd records each op: the safety net for a compiled
     * graph that records nothing (one compiled for inference) meeting inputs that require grad.
     */
    private volatile CompiledGraph recording;

    private CompiledGraph recordingGraph() {
        CompiledGraph r = recording;
        if (r == null) recording = r = new PreparedGraph(graph.toGraphModule());
        return r;
    }

    /**
     * True when an input requires grad and the graph records: grad mode is on, or the graph itself
     * turns it on (a resumed graph that closes the caller's {@code noGrad()} block and computes
     * after it; those ops are recorded as eager records them).
     */
    static boolean needsAutograd(Object[] in, dev.ember.fx.Graph graph) { return needsAutograd(in, turnsGradOn(graph)); }

    private static boolean needsAutograd(Object[] in, boolean graphTurnsGradOn) {
        if (!GradMode.isEnabled() && !graphTurnsGradOn) return false;
        for (Object v : in) if (v instanceof Tensor t && t.requiresGrad()) return true;
        return false;
    }

    private static boolean turnsGradOn(dev.ember.fx.Graph graph) {
        if (graph == null) return false;
        for (dev.ember.fx.Node n : graph.nodes()) if (n.target() == dev.ember.fx.BuiltinFunctions.SET_GRAD_ENABLED && Boolean.TRUE.equals(n.arg(0))) return true;
        return false;
    }

    /** Runs this entry for a call whose frame ({@code frame}: captured values, then arguments) passed its guards. */
    public Object run(Object[] frame, Supplier<Object> eager) {
        if (compiled == null) return eager.get();
        Call call = new Call(frame);
        call.runGraph(call.readInputs());
        for (int i = 0; i < sideEffects.length; i++) call.replaySideEffect(i);
        if (breakAt == null) return call.result();
        Object[] values = call.liveValues();
        long eagerStart = cost == null ? 0 : RunCost.eagerStart();
        try {
            return (Object) breakAt.invokeExact(values, resume);
        } catch (Throwable t) {
            // here, not through atBreak(t): UserStackTraces places the user's frame by this frame's depth
            throw Sneaky.<RuntimeException>rethrow(UserStackTraces.atBreak(t, breakFrame));
        } finally {
            if (cost != null) cost.eagerEnd(eagerStart);
        }
    }

    /** One call of this entry, in the steps {@link #run} takes; the bytecode debugger takes them one at a time. */
    public Call call(Object[] frame) {
        if (compiled == null) throw new IllegalStateException("an eager entry runs the original method: it has no graph to call");
        return new Call(frame);
    }

    /** A call's steps: read the graph's inputs, run the graph, replay each side effect, then rebuild the result or the values live at the break. */
    public final class Call {
        private final Object[] frame;
        private Rebuild rebuild;

        private Call(Object[] frame) { this.frame = frame; }

        /** The graph's inputs, read from the call's frame (its captured values and arguments). */
        public Object[] readInputs() {
            Object[] in = new Object[inputs.length];
            for (int i = 0; i < in.length; i++) in[i] = inputs[i].read(frame);
            return in;
        }

        /** Runs the compiled graph (op by op, recording autograd, when it records nothing and gradients are needed); its outputs. */
        public Object[] runGraph(Object[] in) {
            Object[] outs = !compiled.recordsAutograd() && needsAutograd(in, turnsGradOn) ? recordingGraph().run(in) : compiled.run(in);
            rebuild = new Rebuild(outs, in, frame);
            return outs;
        }

        public void replaySideEffect(int i) { sideEffects[i].apply(rebuild); }

        /** The return value rebuilt from the graph's outputs (an entry without a break). */
        public Object result() { return rebuild.value(rebuilder); }

        /** The values live at the break (locals, then the operand stack), rebuilt: the first argument of {@code breakAt}. */
        public Object[] liveValues() { return live.rebuild(rebuild); }
    }

    /** {@code t}, thrown by the code after the break, as the user's stack trace shows it (the user's method at the break's line). */
    public RuntimeException atBreak(Throwable t) { return Sneaky.<RuntimeException>rethrow(UserStackTraces.atBreak(t, breakFrame)); }

    /** The compilation that made this entry ({@code 0/1}), or null. */
    public CompileId compileId() { return id; }

    /** The graph's inputs by their sources, {@code L['x']}, in the graph's order. */
    public List<String> inputNames() { return java.util.Arrays.stream(inputs).map(Source::name).toList(); }

    /** The side effects replayed after the graph, described, in order. */
    public List<String> sideEffects() { return java.util.Arrays.stream(sideEffects).map(String::valueOf).toList(); }

    /** Whether the entry returns the rebuilt graph outputs (true) or continues in generated code after a break (false). */
    public boolean returnsRebuiltValue() { return breakAt == null; }

    /** The generated class whose static {@code breakAt(Object[], ResumeTarget)} runs the breaking instruction and the rest; null without a break. */
    public Class<?> breakClass() { return breakClass; }

    /** Where {@code breakAt} hands the live values to the resume method; null when the rest runs eagerly inside it. */
    public ResumeTarget resumeTarget() { return resume; }

    /** The method's own frame at the breaking instruction; null without a break. */
    public UserFrame breakFrame() { return breakFrame; }
}
