package dev.ember.aot;

import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.ShapeProp;
import dev.ember.fx.SymbolicShapes;
import dev.ember.logging.Log;
import dev.ember.logging.Trace;
import dev.ember.ops.OpOverload;
import dev.ember.passes.PassManager;

import java.util.List;
import java.util.function.Supplier;

/**
 * AOT's one door, for every backend that compiles below the captured graph ({@code aot_eager},
 * {@code inductor}): copy, shape propagation, the pre-grad passes, functionalization,
 * decomposition to core ops, the post-grad passes, in that order and nowhere else spelled out.
 * The captured graph is never changed.
 */
public final class Aot {
    private Aot() {}

    /**
     * The graph a backend compiler receives: functional unless {@code keptMutation} says which
     * mutation functionalization could not rewrite (that one stays in place, which keeps the graph's
     * meaning, so it still runs, but only an interpreter may run it), decomposed to core ops.
     */
    public record Prepared(GraphModule graph, String keptMutation) {
        public boolean functional() { return keptMutation == null; }
    }

    /** What compiles the prepared graph: the eager interpreter for aot_eager, inductor's lowering for inductor. */
    @FunctionalInterface
    public interface Inner {
        CompiledGraph compile(Prepared prepared, List<?> inputs);
    }

    /**
     * Prepares {@code gm} without the pre-grad passes and hands it to {@code inner} (aot_eager's door:
     * AOT's own steps only, see {@link #prepare(GraphModule, List, boolean)}); the result reports the
     * prepared graph as its {@link CompiledGraph#transformedGraph()} (the debug folder's
     * fx_graph_transformed.txt).
     */
    public static CompiledGraph compile(GraphModule gm, List<?> inputs, Inner inner) {
        Prepared prepared = prepare(gm, inputs, false, false);
        return inner.compile(prepared, inputs).withTransformedGraph(prepared::graph);
    }

    /**
     * Bound while {@link AotAutograd} compiles a graph for training, around every graph it prepares
     * or hands to a backend (the captured graph, then its forward and backward graphs), so that the
     * pre-grad passes that assume inference ({@link dev.ember.passes.GraphPass#inferenceOnly()}) stay
     * off for all of them. This is how "requires grad" is known before AOT: Dynamo compiles a graph
     * for training exactly when grad mode is on and one of its inputs (parameters are inputs)
     * requires grad, and then it goes through AotAutograd; every other graph is compiled for
     * inference, and a graph compiled for inference never runs when gradients are needed (the guards
     * on grad mode and requires_grad recompile, and the captured graph runs op by op meanwhile).
     * A scoped value rather than an argument, because the backend compiling the forward and backward
     * graphs is the user's, and its interface takes a graph and inputs only.
     */
    private static final ScopedValue<Boolean> FOR_TRAINING = ScopedValue.newInstance();

    /** Runs {@code compile} with every graph it prepares compiled for training. */
    static <T> T forTraining(Supplier<T> compile) { return ScopedValue.where(FOR_TRAINING, true).call(compile::get); }

    /** Whether the graph being prepared now is compiled for training. */
    public static boolean compilingForTraining() { return FOR_TRAINING.isBound(); }

    /**
     * Runs AOT's steps on a copy of {@code gm}, after inductor's pre-grad passes ({@link PassManager});
     * {@code inputs} are the placeholders' values: real or fake tensors (or their scalars).
     */
    public static Prepared prepare(GraphModule gm, List<?> inputs) { return prepare(gm, inputs, false, true); }

    /**
     * The same, with the pre-grad passes only when {@code preGradPasses}: they are inductor's
     * (PyTorch runs them in compile_fx, aot_eager never does), and one rounds differently from the
     * graph as written (Conv-BN folding scales the weight before the convolution). aot_eager runs
     * without them, so that it computes what eager computes and a difference it shows is AOT's own
     * (functionalization, decomposition, partitioning), never a rewrite's: what {@code ember bisect}
     * and the fuzzer's configurations rely on to tell the stages apart. (The post-grad stage is dead
     * code elimination only, exact, and runs for both.)
     */
    public static Prepared prepare(GraphModule gm, List<?> inputs, boolean preGradPasses) { return prepare(gm, inputs, false, preGradPasses); }

    /**
     * {@link #prepare} for training: ops with a derivative formula stay whole (the joint graph
     * differentiates them by their formulas, as eager autograd does: differentiating a decomposition
     * can round differently, e.g. mean's shifted sum cancels in its gradient); the forward and
     * backward graphs are decomposed and get the post-grad passes after partitioning ({@link #lower}).
     */
    public static Prepared prepareForTraining(GraphModule gm, List<?> inputs, boolean preGradPasses) { return prepare(gm, inputs, true, preGradPasses); }

    private static Prepared prepare(GraphModule gm, List<?> inputs, boolean training, boolean preGradPasses) {
        return gm.sizeSymbols() == null ? prepareAt(gm, inputs, training, preGradPasses) : prepareGeneric(gm, training, preGradPasses);
    }

    /**
     * A graph generic in input sizes: decompositions compute int arguments from concrete sizes, so
     * the graph is prepared once at its example sizes and once per other assignment of its symbols,
     * and the results are generalized into one graph whose differing ints are polynomials of the
     * symbols ({@link SymbolicShapes#generalize}).
     *
     * @throws SymbolicShapes.NotGeneric when the prepared graphs differ in more than int arguments
     */
    private static Prepared prepareGeneric(GraphModule gm, boolean training, boolean preGradPasses) {
        String[] kept = new String[1];
        GraphModule generic = new SymbolicShapes(gm.sizeSymbols()).transformed(gm, at -> {
            Prepared p = prepareAt(at, at.graph().placeholders().stream().map(Node::val).toList(), training, preGradPasses);
            if (kept[0] == null) kept[0] = p.keptMutation();
            return p.graph();
        });
        return new Prepared(generic, kept[0]);
    }

    private static Prepared prepareAt(GraphModule gm, List<?> inputs, boolean training, boolean preGradPasses) {
        Object[] in = inputs.toArray();
        GraphModule work = new GraphModule(gm.className(), gm.graph().copy(), gm.attributes(), gm.submodules());
        ShapeProp.propagate(work, in);
        if (preGradPasses) PassManager.run(PassManager.Stage.PRE_GRAD, work, compilingForTraining());
        String kept = null;
        try {
            Functionalize.run(work);
        } catch (Functionalize.NotFunctional e) {
            kept = e.getMessage();
            Log.of("aot").info(() -> "mutation kept in place: " + e.getMessage());
        }
        ShapeProp.propagate(work, in);
        String before = Trace.isEnabled() ? work.code() : null;   // for the trace's diff of the decompositions
        int decomposed = training ? DecomposePass.run(work, op -> op.derivative() != null) : DecomposePass.run(work);
        if (before != null && decomposed > 0) {
            Trace.graphPass("aot", "decompositions", decomposed + " node(s) decomposed to core ATen ops" + (training ? " (ops with a derivative kept whole)" : ""),
                    before, work::code);
        }
        Log.artifact("aot_graphs", () -> "GRAPH AFTER FUNCTIONALIZATION AND DECOMPOSITION TO CORE OPS (" + decomposed + " nodes decomposed"
                + (training ? "; ops with a derivative kept whole until after partitioning" : "") + ")\n" + work.code());
        if (!training) PassManager.run(PassManager.Stage.POST_GRAD, work, compilingForTraining());
        return new Prepared(work, kept);
    }

    /**
     * Whether running {@code gm} may reach the native BLAS: it calls an op that does
     * ({@link OpOverload#reachesNativeBlas}). Building such a graph has already started loading it
     * ({@link OpOverload#enteredGraph}).
     */
    public static boolean reachesGemm(GraphModule gm) {
        for (Node n : gm.graph().nodes()) {
            if (n.target() instanceof OpOverload op && op.reachesNativeBlas()) return true;
        }
        return false;
    }

    /** A training forward or backward graph made ready for a backend: decomposed to core ops, then the post-grad passes. */
    static void lower(GraphModule partitioned) {
        DecomposePass.run(partitioned);
        PassManager.run(PassManager.Stage.POST_GRAD, partitioned, true);
    }
}
