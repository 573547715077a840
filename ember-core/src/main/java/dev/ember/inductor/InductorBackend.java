package dev.ember.inductor;

import dev.ember.aot.DecomposePass;
import dev.ember.aot.Decompositions;
import dev.ember.aot.Functionalize;
import dev.ember.dynamo.Backend;
import dev.ember.dynamo.Backends;
import dev.ember.dynamo.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.ShapeProp;
import dev.ember.tensor.FakeTensor;

import java.util.List;

/**
 * The inductor and aot_eager backends for Dynamo. {@code aot_eager} decomposes the graph to core
 * ops and runs it op by op (it isolates decomposition bugs from code generation bugs);
 * {@code inductor} compiles it. {@link #register()} adds both to {@link Backends}.
 */
public final class InductorBackend {
    private InductorBackend() {}

    /** {@code inductor}, mode {@code default}. */
    public static final Backend INDUCTOR = of(Inductor.Mode.DEFAULT);

    /**
     * Functionalization and decompositions, then the eager backend. A mutation functionalization
     * cannot rewrite stays in place (each rewrite on its own keeps the graph's meaning).
     */
    public static final Backend AOT_EAGER = (gm, inputs) -> {
        GraphModule work = new GraphModule(gm.className(), gm.graph().copy(), gm.attributes(), gm.submodules());
        ShapeProp.propagate(work, inputs.toArray());
        try {
            Functionalize.run(work);
        } catch (Functionalize.NotFunctional e) {
            dev.ember.logging.Log.of("aot").info(() -> "mutation kept in place: " + e.getMessage());
        }
        ShapeProp.propagate(work, inputs.toArray());
        Decompositions.install();
        DecomposePass.run(work);
        return Backends.EAGER.compile(work, inputs);
    };

    /** The inductor backend in {@code mode}. */
    public static Backend of(Inductor.Mode mode) {
        return (GraphModule gm, List<FakeTensor> inputs) -> {
            InductorGraph g = Inductor.compile(gm, inputs, mode);
            return new CompiledGraph() {
                @Override
                public Object[] run(Object[] args) {
                    Object out = g.run(args);
                    return out instanceof List<?> l ? l.toArray() : new Object[] {out};
                }

                @Override
                public String outputCode() { return g.sourceCode(); }
            };
        };
    }

    /** Registers {@code inductor}, {@code inductor_max_autotune} and {@code aot_eager} (idempotent). */
    public static void register() {
        Backends.register("inductor", INDUCTOR);
        Backends.register("inductor_max_autotune", of(Inductor.Mode.MAX_AUTOTUNE));
        Backends.register("aot_eager", AOT_EAGER);
    }
}
