package dev.ember.debug.minifier;

import dev.ember.aot.Aot;
import dev.ember.fx.GraphModule;
import dev.ember.fx.ShapeProp;

import java.util.List;

/**
 * The graph after the AOT part of the inductor stage (functionalization, then decomposition to
 * core ops): what lowering receives, and what {@code EMBER_REPRO_AFTER=aot} keeps. Made by the
 * same door the backends go through ({@link Aot#prepare}); given back to the backend, the steps
 * find nothing left to rewrite, so the backend sees this graph exactly.
 */
public final class AotGraph {
    private AotGraph() {}

    /** A copy of {@code gm} through AOT's steps ({@link Aot#prepare}), its values those of {@code inputs}. */
    public static GraphModule of(GraphModule gm, List<Object> inputs) {
        GraphModule work = Aot.prepare(gm, java.util.Arrays.asList(FailureCheck.copies(inputs))).graph();
        ShapeProp.propagate(work, FailureCheck.copies(inputs));
        return work;
    }
}
