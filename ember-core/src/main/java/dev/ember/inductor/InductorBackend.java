package dev.ember.inductor;

import dev.ember.aot.Aot;
import dev.ember.fx.Backend;
import dev.ember.fx.Backends;
import dev.ember.fx.CompileMode;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.tensor.FakeTensor;

import java.util.List;
import java.util.Map;

/**
 * The inductor and aot_eager backends for Dynamo. {@code aot_eager} decomposes the graph to core
 * ops and runs it op by op (it isolates decomposition bugs from code generation bugs);
 * {@code inductor} compiles it, in the mode the user's {@code Options.mode} names. {@link Backends}
 * finds both through {@link Provider} (listed in META-INF/services), so capture never imports this stage.
 */
public final class InductorBackend {
    private InductorBackend() {}

    /** {@code inductor}: mode {@code default}, or the mode {@link Backend#compile(GraphModule, List, CompileMode)} names. */
    public static final Backend INDUCTOR = new Backend() {
        @Override
        public CompiledGraph compile(GraphModule gm, List<FakeTensor> exampleInputs) {
            return compile(gm, exampleInputs, CompileMode.DEFAULT);
        }

        @Override
        public CompiledGraph compile(GraphModule gm, List<FakeTensor> exampleInputs, CompileMode mode) {
            InductorGraph g = Inductor.compile(gm, exampleInputs, mode);
            // a graph from the on-disk cache skipped AOT's steps: the transformed graph is made when the debug folder asks
            return compiled(g).withTransformedGraph(() -> Aot.prepare(gm, exampleInputs).graph());
        }
    };

    /**
     * AOT's steps ({@link Aot}), then the eager backend. A mutation functionalization cannot rewrite
     * stays in place (each rewrite on its own keeps the graph's meaning).
     */
    public static final Backend AOT_EAGER = (gm, inputs) -> Aot.compile(gm, inputs, (prepared, in) -> Backends.EAGER.compile(prepared.graph(), inputs));

    static CompiledGraph compiled(InductorGraph g) {
        return new CompiledGraph() {
            @Override
            public Object[] run(Object[] args) {
                Object out = g.run(args);
                return out instanceof List<?> l ? l.toArray() : new Object[] {out};
            }

            @Override
            public String outputCode() { return g.sourceCode(); }
        };
    }

    /** This stage's backends by name. */
    public static Map<String, Backend> backends() {
        return Map.of("inductor", INDUCTOR, "aot_eager", AOT_EAGER);
    }

    /** Registers {@code inductor} and {@code aot_eager} (idempotent). */
    public static void register() {
        backends().forEach(Backends::register);
    }

    /** How {@link Backends} finds this stage's backends ({@link java.util.ServiceLoader}). */
    public static final class Provider implements Backends.Provider {
        @Override
        public Map<String, Backend> backends() { return InductorBackend.backends(); }
    }
}
