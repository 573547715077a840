package dev.ember.debug.minifier;

import dev.ember.aot.DecomposePass;
import dev.ember.aot.Decompositions;
import dev.ember.aot.Functionalize;
import dev.ember.fx.GraphModule;
import dev.ember.fx.ShapeProp;

import java.util.List;

/**
 * The graph after the AOT part of the inductor stage (functionalization, then decomposition to
 * core ops): what lowering receives, and what {@code EMBER_REPRO_AFTER=aot} keeps. Made here, from
 * the captured graph, with the same passes in the same order as the stage runs them, so that the
 * compiler stages need no hook for the debugger; given back to the backend, the passes find
 * nothing left to rewrite, so the backend sees this graph exactly.
 */
public final class AotGraph {
    private AotGraph() {}

    /** A copy of {@code gm} functionalized (where it can be: a mutation it cannot rewrite stays) and decomposed. */
    public static GraphModule of(GraphModule gm, List<Object> inputs) {
        GraphModule work = new GraphModule(gm.className(), gm.graph().copy(), gm.attributes(), gm.submodules());
        ShapeProp.propagate(work, FailureCheck.copies(inputs));
        try {
            if (Functionalize.run(work) > 0) ShapeProp.propagate(work, FailureCheck.copies(inputs));
        } catch (Functionalize.NotFunctional e) {
            // The inductor stage runs such a graph in the interpreter; the repro keeps it as captured.
        }
        Decompositions.install();
        DecomposePass.run(work);
        ShapeProp.propagate(work, FailureCheck.copies(inputs));
        return work;
    }
}
