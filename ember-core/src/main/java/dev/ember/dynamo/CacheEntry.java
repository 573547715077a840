package dev.ember.dynamo;

import dev.ember.dynamo.guards.GuardSet;
import dev.ember.dynamo.source.Source;

import java.util.List;
import java.util.function.Supplier;

/**
 * One compilation of a method: the guards under which it is valid and either a compiled graph
 * with the recipe to rebuild the return value, or (after a graph break) "run eagerly".
 */
public final class CacheEntry {
    private final GuardSet guards;
    private final CompiledGraph compiled;
    private final Source[] inputs;
    private final OutputRebuilder rebuilder;
    private final SideEffect[] sideEffects;
    private final Unsupported graphBreak;
    private final OutputGraph graph;

    private CacheEntry(GuardSet guards, CompiledGraph compiled, Source[] inputs, OutputRebuilder rebuilder, List<SideEffect> sideEffects,
                       Unsupported graphBreak, OutputGraph graph) {
        this.guards = guards;
        this.sideEffects = sideEffects.toArray(SideEffect[]::new);
        this.compiled = compiled;
        this.inputs = inputs;
        this.rebuilder = rebuilder;
        this.graphBreak = graphBreak;
        this.graph = graph;
    }

    static CacheEntry compiled(GuardSet guards, CompiledGraph compiled, OutputGraph graph, OutputRebuilder rebuilder, List<SideEffect> sideEffects) {
        return new CacheEntry(guards, compiled, graph.inputSources().toArray(Source[]::new), rebuilder, sideEffects, null, graph);
    }

    static CacheEntry eager(GuardSet guards, Unsupported reason) {
        return new CacheEntry(guards, null, new Source[0], null, List.of(), reason, null);
    }

    public GuardSet guards() { return guards; }

    /** The graph break that made this entry run eagerly, or null for a compiled graph. */
    public Unsupported graphBreak() { return graphBreak; }

    /** The captured graph, or null for an eager entry. */
    public OutputGraph graph() { return graph; }

    Object run(Object[] frame, Supplier<Object> eager) {
        if (compiled == null) return eager.get();
        Object[] in = new Object[inputs.length];
        for (int i = 0; i < in.length; i++) in[i] = inputs[i].read(frame);
        Object[] outs = compiled.run(in);
        for (SideEffect e : sideEffects) e.apply(outs, frame);
        return rebuilder.rebuild(outs, frame);
    }
}
