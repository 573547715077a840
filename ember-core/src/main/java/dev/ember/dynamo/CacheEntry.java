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
    private final ResumeTarget resume;
    /** The method's own frame at the breaking instruction (the break's user stack may start in an inlined helper). */
    private final UserFrame breakFrame;
    /** The compile that made it ({@code 0/1}); null when made outside a compile. */
    final CompileId id = CompileContext.current();
    /** What its calls cost, while the trace measures them; else null. */
    final RunCost cost = RunCost.forNewEntry(id);

    private CacheEntry(GuardSet guards, CompiledGraph compiled, OutputGraph graph, OutputRebuilder rebuilder, List<SideEffect> sideEffects,
                       Unsupported graphBreak, LiveValues live, MethodHandle breakAt, ResumeTarget resume, UserFrame breakFrame) {
        this.guards = guards;
        this.sideEffects = sideEffects.toArray(SideEffect[]::new);
        this.compiled = compiled;
        this.inputs = graph == null ? new Source[0] : graph.inputSources().toArray(Source[]::new);
        this.rebuilder = rebuilder;
        this.graphBreak = graphBreak;
        this.graph = graph;
        this.live = live;
        this.breakAt = breakAt;
        this.resume = resume;
        this.breakFrame = breakFrame;
    }

    static CacheEntry compiled(GuardSet guards, CompiledGraph compiled, OutputGraph graph, OutputRebuilder rebuilder, List<SideEffect> sideEffects) {
        return new CacheEntry(guards, compiled, graph, rebuilder, sideEffects, null, null, null, null, null);
    }

    /** The graph before a break at {@code breakFrame}; {@code breakAt} (typed {@code (Object[], ResumeTarget)Object}) runs the rest. */
    static CacheEntry resuming(GuardSet guards, CompiledGraph compiled, OutputGraph graph, LiveValues live, List<SideEffect> sideEffects,
                               Unsupported graphBreak, UserFrame breakFrame, MethodHandle breakAt, ResumeTarget resume) {
        return new CacheEntry(guards, compiled, graph, null, sideEffects, graphBreak, live, breakAt, resume, breakFrame);
    }

    static CacheEntry eager(GuardSet guards, Unsupported reason) {
        return new CacheEntry(guards, null, null, null, List.of(), reason, null, null, null, null);
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

    /** True when grad mode is on and an input requires grad. */
    static boolean needsAutograd(Object[] in) {
        if (!GradMode.isEnabled()) return false;
        for (Object v : in) if (v instanceof Tensor t && t.requiresGrad()) return true;
        return false;
    }

    Object run(Object[] frame, Supplier<Object> eager) {
        if (compiled == null) return eager.get();
        Object[] in = new Object[inputs.length];
        for (int i = 0; i < in.length; i++) in[i] = inputs[i].read(frame);
        Object[] outs = !compiled.recordsAutograd() && needsAutograd(in) ? recordingGraph().run(in) : compiled.run(in);
        Rebuild rebuild = new Rebuild(outs, frame);
        for (SideEffect e : sideEffects) e.apply(rebuild);
        if (breakAt == null) return rebuild.value(rebuilder);
        Object[] values = live.rebuild(rebuild);
        long eagerStart = cost == null ? 0 : RunCost.eagerStart();
        try {
            return (Object) breakAt.invokeExact(values, resume);
        } catch (Throwable t) {
            throw Sneaky.<RuntimeException>rethrow(UserStackTraces.atBreak(t, breakFrame));
        } finally {
            if (cost != null) cost.eagerEnd(eagerStart);
        }
    }
}
