package dev.ember.aot;

import dev.ember.autograd.Autograd;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.SymbolicShapes;
import dev.ember.logging.CompileContext;
import dev.ember.logging.CompileId;
import dev.ember.logging.Log;
import dev.ember.logging.Trace;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Compiled training (AOTAutograd): a captured graph whose inputs require grad is prepared as for
 * inference, differentiated into a joint forward-backward graph ({@link JointGraph}), split by the
 * {@link Partitioner} into a forward graph (which also returns what backward needs) and a backward
 * graph, and each is compiled by the same backend. Running it runs the compiled forward and records
 * one autograd node, {@code CompiledFunctionBackward}, whose backward runs the compiled backward.
 * Logged as {@code aot_joint_graph}, {@code aot_graphs} and {@code partitioner}.
 */
public final class AotAutograd {
    private AotAutograd() {}

    /** Compiles one of the two graphs (forward, then backward) with the user's backend. */
    @FunctionalInterface
    public interface GraphCompiler {
        CompiledGraph compile(GraphModule gm, List<FakeTensor> exampleInputs, String which);
    }

    /** A graph this path cannot train compiled; the message names the op or mutation and why. The caller runs it op by op. */
    public static final class NotTrainable extends RuntimeException {
        NotTrainable(String message) { super(message); }
    }

    /**
     * Compiles {@code gm} for training: {@code inputs} are the graph's input values (real tensors:
     * their {@code requiresGrad} decides which inputs get gradients).
     *
     * @throws NotTrainable when the graph keeps a mutation or uses an op without a derivative
     */
    public static CompiledGraph compile(GraphModule gm, List<?> inputs, GraphCompiler compiler) { return compile(gm, inputs, true, compiler); }

    /** The same, with inductor's pre-grad passes only when {@code preGradPasses} (not for aot_eager: see {@link Aot#prepare(GraphModule, List, boolean)}). */
    public static CompiledGraph compile(GraphModule gm, List<?> inputs, boolean preGradPasses, GraphCompiler compiler) {
        return Aot.forTraining(() -> train(gm, inputs, preGradPasses, compiler));
    }

    private static CompiledGraph train(GraphModule gm, List<?> inputs, boolean preGradPasses, GraphCompiler compiler) {
        boolean[] requiresGrad = new boolean[inputs.size()];
        List<Object> fakes = new ArrayList<>(inputs.size());
        for (int i = 0; i < inputs.size(); i++) {
            Object v = inputs.get(i);
            requiresGrad[i] = v instanceof Tensor t && t.requiresGrad();
            fakes.add(v instanceof Tensor t && !t.isFake() ? FakeTensor.like(t) : v);
        }
        String refusedArgument = nonDifferentiableArgumentWithHistory(gm, requiresGrad);
        if (refusedArgument != null) throw new NotTrainable(refusedArgument);

        Split split;
        List<GraphModule> unloweredBackwards;
        SymbolicShapes shapes = gm.sizeSymbols() == null ? null : new SymbolicShapes(gm.sizeSymbols());
        if (shapes == null) {
            split = split(gm, fakes, requiresGrad, preGradPasses, true);
            unloweredBackwards = List.of(split.unloweredBackward());
        } else {
            // Generic in its sizes: AOT's rewrites compute int arguments from concrete sizes, so the whole pipeline (joint graph,
            // partition, lowering) runs once per assignment of the symbols and each resulting graph is generalized, as
            // Aot.prepare does for inference. Any difference beyond int arguments (a partition that depends on the sizes) is
            // NotGeneric: the caller compiles for the example sizes instead.
            List<Split> perWorld = new ArrayList<>();
            List<long[]> worlds = shapes.worlds();
            for (int w = 0; w < worlds.size(); w++) {
                GraphModule at = SymbolicShapes.instantiate(gm, worlds.get(w));
                List<Object> atFakes = at.graph().placeholders().stream().map(Node::val).map(v -> (Object) v).toList();
                // logged and traced at the example sizes only
                perWorld.add(w == 0 ? split(at, atFakes, requiresGrad, preGradPasses, true)
                        : Log.quietly(() -> split(at, atFakes, requiresGrad, preGradPasses, false)));
            }
            Split first = perWorld.get(0);
            for (Split other : perWorld) {
                if (other.parts().saved().size() != first.parts().saved().size()) {
                    throw new SymbolicShapes.NotGeneric("the partitioner saves " + other.parts().saved().size() + " values at other sizes, "
                            + first.parts().saved().size() + " at the example sizes");
                }
            }
            GraphModule forward = generic(shapes, perWorld.stream().map(x -> x.parts().forward()).toList(), "forward");
            GraphModule backward = generic(shapes, perWorld.stream().map(x -> x.parts().backward()).toList(), "backward");
            Partitioner.Result p = first.parts();
            split = new Split(first.joint(), new Partitioner.Result(forward, backward, p.saved(), p.recomputed(), p.savedBytes(), p.naiveBytes()),
                    first.unloweredBackward());
            unloweredBackwards = perWorld.stream().map(Split::unloweredBackward).toList();
            Log.of("dynamic").info(() -> "training graph generic in " + gm.sizeSymbols().symbols().stream().map(sy -> "s" + sy.id()).toList()
                    + ": one forward and one backward graph for every size in range");
        }
        Partitioner.Result parts = split.parts();
        Log.artifact("aot_graphs", () -> "FORWARD GRAPH\n" + parts.forward().code() + "\nBACKWARD GRAPH\n" + parts.backward().code());
        Trace.graph("aot_forward_graph", parts.forward()::code);
        Trace.graph("aot_backward_graph", parts.backward()::code);

        List<FakeTensor> forwardInputs = new ArrayList<>();
        for (Object f : fakes) forwardInputs.add(f instanceof FakeTensor t ? t : null);
        CompiledGraph forward = compiler.compile(parts.forward(), forwardInputs, "forward");
        List<FakeTensor> backwardInputs = new ArrayList<>();
        for (Node p : parts.backward().graph().placeholders()) backwardInputs.add(new FakeTensor(TensorMeta.contiguous(((Tensor) p.val()).dtype(), ((Tensor) p.val()).shape())));
        CompiledGraph backward = compiler.compile(parts.backward(), backwardInputs, "backward");
        return new Trained(forward, backward, readsSaved(parts.backward(), parts.saved().size()), split.joint(), parts, requiresGrad, split.joint().outputsReached(),
                new Specializations(unloweredBackwards, shapes, backwardInputs, compiler));
    }

    /** One run of AOT's pipeline at one set of sizes: the joint graph, its partition (lowered), and the backward before lowering. */
    private record Split(JointGraph joint, Partitioner.Result parts, GraphModule unloweredBackward) {}

    private static Split split(GraphModule gm, List<Object> fakes, boolean[] requiresGrad, boolean preGradPasses, boolean traced) {
        Aot.Prepared prepared = Aot.prepareForTraining(gm, fakes, preGradPasses);
        if (!prepared.functional()) throw new NotTrainable("a mutation AOT cannot functionalize: " + prepared.keptMutation());
        String statisticsUpdate = Functionalize.batchNormUpdatingInPlace(prepared.graph().graph());
        if (statisticsUpdate != null) throw new NotTrainable(statisticsUpdate);
        JointGraph joint;
        try {
            joint = JointGraph.build(prepared.graph(), requiresGrad, dev.ember.autograd.GradMode.isEnabled());
        } catch (JointGraph.NotDifferentiable e) {
            throw new NotTrainable(e.getMessage());
        } catch (RuntimeException e) {
            // a graph the joint builder cannot take still trains, op by op: slower, never wrong
            throw new NotTrainable("building the joint graph failed: " + e);
        }
        Log.artifact("aot_joint_graph", () -> "JOINT GRAPH (" + joint.primals.size() + " primals, " + joint.tangents.size() + " tangents)\n" + joint.module.code());
        if (traced) Trace.graph("aot_joint_graph", joint.module::code);
        Partitioner.Result parts = Partitioner.partition(joint);
        GraphModule unloweredBackward = parts.backward().copy();   // what a backward for missing tangents is specialized from
        Aot.lower(parts.forward());
        Aot.lower(parts.backward());
        Log.artifact("partitioner", parts::report);
        return new Split(joint, parts, unloweredBackward);
    }

    /**
     * One graph generic in the symbols from {@code perWorld} (the same graph made at each of {@code shapes}' worlds), its
     * symbols read from its own inputs: a backward graph's come from the saved values and tangents.
     */
    private static GraphModule generic(SymbolicShapes shapes, List<GraphModule> perWorld, String which) {
        GraphModule g = shapes.generalize(new ArrayList<>(perWorld));
        try {
            g.setSizeSymbols(shapes.symbols().readFrom(g.graph().placeholders()));
        } catch (IllegalStateException e) {
            throw new SymbolicShapes.NotGeneric("the " + which + " graph's inputs do not carry every symbol: " + e.getMessage());
        }
        return g;
    }

    /**
     * An op given a value with history (an input that requires grad, or computed from one: a
     * conservative reading, any path) where its argument may not require grad
     * ({@link dev.ember.ops.OpOverload#differentiableArgument}: batch_norm's running statistics),
     * described; null when there is none. Eager refuses the call with ATen's message, so the graph
     * runs op by op and refuses the same way: compiled, the eval batch_norm's decomposition would
     * differentiate into the statistics, and the training one's functional rewrite would lose them
     * (fuzzer seeds 133058, 133767, 20261140).
     */
    private static String nonDifferentiableArgumentWithHistory(GraphModule gm, boolean[] inputRequiresGrad) {
        java.util.Set<Node> withHistory = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        List<Node> placeholders = gm.graph().placeholders();
        for (int i = 0; i < placeholders.size() && i < inputRequiresGrad.length; i++) if (inputRequiresGrad[i]) withHistory.add(placeholders.get(i));
        for (Node n : gm.graph().nodes()) {
            if (n.kind() == dev.ember.fx.NodeKind.CALL_FUNCTION && n.target() instanceof dev.ember.ops.OpOverload op) {
                Object[] args = DecomposePass.positional(op, n);
                for (int a = 0; a < args.length; a++) {
                    if (!op.differentiableArgument(a) && args[a] instanceof Node s && withHistory.contains(s)) {
                        return op.name() + " (" + n.name() + ") is given " + s.name() + ", which requires grad, as its argument '"
                                + op.schema().params().get(a).name() + "', which may not";
                    }
                }
            }
            if (n.kind() != dev.ember.fx.NodeKind.PLACEHOLDER && n.allInputNodes().stream().anyMatch(withHistory::contains)) withHistory.add(n);
        }
        return null;
    }

    /**
     * Backward graphs for calls where some outputs received no gradient, compiled on first use, one
     * per set of missing tangents (see {@link MissingTangents}).
     */
    private static final class Specializations {
        /** The backward before lowering, at each world of {@code shapes} (one graph when the sizes are static). */
        private final List<GraphModule> backwards;
        private final SymbolicShapes shapes;
        private final List<FakeTensor> inputs;
        private final GraphCompiler compiler;
        private final java.util.Map<String, Specialized> compiled = new java.util.concurrent.ConcurrentHashMap<>();
        /** The compilation that made the graph: a backward compiled later, in the backward pass, is logged as part of it. */
        private final CompileId compileId = CompileContext.current();
        private final String function = CompileContext.currentFunction();

        record Specialized(CompiledGraph backward, boolean[] noGradient, boolean[] readsSaved) {}

        /** No specialization: the backward as compiled, given zero tangents. */
        private static final Specialized NONE = new Specialized(null, null, null);

        Specializations(List<GraphModule> backwards, SymbolicShapes shapes, List<FakeTensor> inputs, GraphCompiler compiler) {
            this.backwards = backwards;
            this.shapes = shapes;
            this.inputs = inputs;
            this.compiler = compiler;
        }

        Specialized forPresent(int savedCount, boolean[] present) {
            return compiled.computeIfAbsent(Arrays.toString(present), key -> inCompileContext(() -> Aot.forTraining(() -> {
                List<GraphModule> perWorld = new ArrayList<>();
                MissingTangents.Specialized s = null;
                for (GraphModule backward : backwards) {
                    MissingTangents.Specialized at = MissingTangents.specialize(backward, savedCount, present);
                    if (at == null) return NONE;
                    Aot.lower(at.backward());
                    perWorld.add(at.backward());
                    if (s == null) s = at;
                }
                GraphModule graph;
                try {
                    graph = shapes == null ? s.backward() : generic(shapes, perWorld, "backward");
                } catch (SymbolicShapes.NotGeneric e) {
                    // made during a backward pass, where no recompile can follow: the generic backward with zero tangents, as
                    // when the specialization cannot be made at all
                    Log.of("dynamic").info(() -> "the backward without " + MissingTangents.describe(present) + " is not generic (" + e.getMessage()
                            + "): the full backward runs, given zero tangents");
                    return NONE;
                }
                Log.artifact("aot_graphs", () -> "BACKWARD GRAPH without " + MissingTangents.describe(present)
                        + " (those outputs received no gradient)\n" + graph.code());
                return new Specialized(compiler.compile(graph, inputs, "backward"), s.noGradient(), readsSaved(graph, savedCount));
            })));
        }

        private <T> T inCompileContext(java.util.function.Supplier<T> body) {
            if (compileId == null || CompileContext.current() != null) return body.get();
            try (var ignored = CompileContext.enter(compileId, function)) {
                return body.get();
            }
        }
    }

    /** Per saved value (the first {@code savedCount} placeholders of {@code backward}): whether that backward graph reads it. */
    private static boolean[] readsSaved(GraphModule backward, int savedCount) {
        List<Node> placeholders = backward.graph().placeholders();
        boolean[] reads = new boolean[savedCount];
        for (int i = 0; i < savedCount; i++) reads[i] = !placeholders.get(i).users().isEmpty();
        return reads;
    }

    /** The compiled pair at run time; {@code readsSaved} says which saved values {@code backward} reads. */
    private record Trained(CompiledGraph forward, CompiledGraph backward, boolean[] readsSaved, JointGraph joint, Partitioner.Result parts, boolean[] requiresGrad,
                           boolean[][] reached, Specializations specializations) implements CompiledGraph {

        @Override
        public Object[] run(Object[] args) {
            Object[] all = forward.run(args);
            // outputs and saved values stay where they are until the backward has run: a reduce-overhead forward called
            // again before it (two forwards, then one backward) writes its next outputs into fresh arrays, not over these
            List<dev.ember.tensor.Storage> pendingBackward = keepFromReuse(all);
            int outputs = joint.outputs.size();
            Object[] outs = Arrays.copyOf(all, outputs);
            Object[] saved = Arrays.copyOfRange(all, outputs, all.length);
            int[] savedVersions = new int[saved.length];
            boolean[] writtenBack = new boolean[saved.length];
            for (int i = 0; i < saved.length; i++) {
                savedVersions[i] = saved[i] instanceof Tensor t ? t.version() : 0;
                // inductor may compute an input's new value into the input itself and save that: the write-back after this call
                // moves its version by one, which is the graph's own write (seed 154684); a caller's later write moves it further
                writtenBack[i] = saved[i] instanceof Tensor t && writtenBackInput(t, args);
            }
            List<Tensor> primals = new ArrayList<>();
            List<Integer> primalIndex = new ArrayList<>();
            for (int i = 0; i < args.length; i++) {
                if (args[i] instanceof Tensor t) {
                    primals.add(t);
                    primalIndex.add(i);
                }
            }
            List<Tensor> outTensors = new ArrayList<>(outputs);
            for (Object o : outs) outTensors.add(o instanceof Tensor t ? t : null);
            List<TensorMeta> tangentMetas = new ArrayList<>();
            for (Node t : joint.tangents) tangentMetas.add(((Tensor) t.val()).meta());
            // the inputs backward reads are among the saved values, whose versions the backward checks itself: only those the
            // backward that runs reads (a backward without some tangents may read fewer), so none is checked when the node runs
            boolean[] checkedWhenTheNodeRuns = new boolean[primals.size()];
            List<Tensor> recorded;
            // the joint graph knows which outputs carry gradients, with the graph's own grad-mode switches counted: a graph that
            // closes the caller's noGrad() block records what it computes after it, though the call began with recording off
            try (var recording = dev.ember.autograd.GradMode.enableGrad()) {
                recorded = Autograd.function("CompiledFunctionBackward", primals, outTensors, joint.differentiableOutputs, checkedWhenTheNodeRuns, (Autograd.FreshBackward) gradOutputs -> {
                    if (dev.ember.autograd.GradMode.isEnabled()) {
                        // backward(…, createGraph=true): the compiled backward records nothing, so its gradients could not be differentiated again
                        throw new UnsupportedOperationException("double backward (createGraph) through a compiled function is not supported yet: "
                                + "compute this gradient eagerly, or without createGraph");
                    }
                    Object[] in = new Object[saved.length + joint.tangents.size()];
                    for (int i = 0; i < saved.length; i++) in[i] = saved[i] instanceof Tensor t ? t.contiguous() : saved[i];
                    int k = saved.length, tangent = 0;
                    boolean[] present = new boolean[joint.tangents.size()];
                    boolean allPresent = true;
                    for (int o = 0; o < outputs; o++) {
                        if (!joint.differentiableOutputs[o]) continue;
                        TensorMeta m = tangentMetas.get(tangent);
                        Tensor g = gradOutputs[o];
                        present[tangent++] = g != null;
                        allPresent &= g != null;
                        // the output's own shape: a graph generic in its sizes has no fixed tangent shape
                        in[k++] = g == null ? Tensor.zeros(m.dtype(), ((Tensor) outs[o]).shape()) : (g.dtype() == m.dtype() ? g : g.to(m.dtype())).contiguous();
                    }
                    // a missing gradient is not a zero one: 0 times an infinite derivative is NaN where eager computes nothing
                    Specializations.Specialized special = allPresent ? null : specializations.forPresent(saved.length, present);
                    if (special == Specializations.NONE) special = null;
                    checkSavedVersions(saved, savedVersions, writtenBack, special == null ? readsSaved : special.readsSaved(), args, joint.primals.stream().map(Node::name).toList(), outs);
                    Object[] grads = special == null ? backward.run(in) : special.backward().run(in);
                    releaseFromReuse(pendingBackward);
                    // the gradients go on to autograd's engine, which holds them past this graph's next call (summed with another
                    // node's, accumulated into a leaf's grad): a reduce-overhead backward must never write its next ones over them
                    keepFromReuse(grads);
                    Tensor[] perPrimal = new Tensor[primals.size()];
                    int next = 0;
                    for (int p = 0; p < primals.size(); p++) {
                        if (!joint.primalsRequiringGrad[primalIndex.get(p)]) continue;
                        Tensor g = (Tensor) grads[next++];
                        // the backward graph fills the outputs without a gradient with zeros; a primal reached only through those gets none
                        boolean anyGradient = false;
                        for (int o = 0; o < outputs && !anyGradient; o++) anyGradient = reached[primalIndex.get(p)][o] && gradOutputs[o] != null;
                        perPrimal[p] = anyGradient && (special == null || !special.noGradient()[next - 1]) ? g : null;
                    }
                    return perPrimal;
                });
            }
            for (int o = 0; o < outputs; o++) if (recorded.get(o) != null) outs[o] = recorded.get(o);
            return outs;
        }

        /** Keeps the storages of the tensors in {@code values} from reuse ({@link dev.ember.tensor.Storage#keepFromReuse}), each once. */
        private static List<dev.ember.tensor.Storage> keepFromReuse(Object[] values) {
            List<dev.ember.tensor.Storage> kept = new ArrayList<>();
            for (Object v : values) {
                if (!(v instanceof Tensor t) || t.isFake()) continue;
                dev.ember.tensor.Storage s = t.storage();
                boolean seen = false;
                for (dev.ember.tensor.Storage k : kept) seen |= k == s;
                if (seen) continue;
                s.keepFromReuse();
                kept.add(s);
            }
            return kept;
        }

        /** Undoes {@link #keepFromReuse} once, however many times the backward runs (retainGraph). */
        private static void releaseFromReuse(List<dev.ember.tensor.Storage> kept) {
            synchronized (kept) {
                for (dev.ember.tensor.Storage s : kept) s.releaseFromReuse();
                kept.clear();
            }
        }

        /**
         * Whether {@code t} is the storage of an input the graph writes (its new value, written back after the call: one
         * more version, {@code InputMutations.writeBack}; the write-back's guard keeps any other input out of that storage).
         */
        private boolean writtenBackInput(Tensor t, Object[] args) {
            for (int a = 0; a < args.length && a < joint.primals.size(); a++) {
                if (args[a] instanceof Tensor in && in.storage() == t.storage() && Partitioner.mutated(joint.primals.get(a))) return true;
            }
            return false;
        }

        /**
         * A saved value the backward that runs {@code reads}, written in place since the forward
         * (only an input or an output the caller holds, or a view of one, can be): backward would
         * read the new value and return a wrong gradient without a word (fuzzer seed 111382), so
         * it refuses with ATen's message, as eager does for the same program. Unlike PyTorch's
         * compiled function, a value only the gradients of outputs that got none would read is not
         * checked: eager never runs those derivatives either (seed 100542). A value in the storage of an input the
         * graph writes ({@code writtenBack}) may be one version further: the graph's own write-back after the call.
         */
        private static void checkSavedVersions(Object[] saved, int[] versions, boolean[] writtenBack, boolean[] reads, Object[] args,
                                               List<String> inputNames, Object[] outs) {
            for (int i = 0; i < saved.length; i++) {
                if (!reads[i] || !(saved[i] instanceof Tensor t) || t.version() == versions[i]) continue;
                if (writtenBack[i] && t.version() == versions[i] + 1) continue;
                String of = "";
                for (int a = 0; a < args.length && a < inputNames.size() && of.isEmpty(); a++) {
                    if (args[a] instanceof Tensor in && in.storage() == t.storage()) of = ", which is the compiled graph's input " + inputNames.get(a) + ",";
                }
                for (int o = 0; o < outs.length && of.isEmpty(); o++) {
                    if (outs[o] instanceof Tensor out && out.storage() == t.storage()) of = ", which is output " + o + " of the compiled graph,";
                }
                throw new IllegalStateException("one of the variables needed for gradient computation has been modified by an inplace operation: ["
                        + t.meta().describe() + "]" + of + " is at version " + t.version() + "; expected version " + (versions[i] + (writtenBack[i] ? 1 : 0)) + " instead. "
                        + "(the compiled graph's backward saved it as its value " + i + ".) Hint: make the in-place op out of place "
                        + "(x = x.add(y) instead of x.add_(y)), or clone() the tensor before modifying it.");
            }
        }

        @Override
        public String outputCode() {
            String f = forward.outputCode(), b = backward.outputCode();
            return f == null && b == null ? null : "// forward\n" + f + "\n// backward\n" + b;
        }

        @Override
        public GraphModule transformedGraph() { return parts.forward(); }

        @Override
        public boolean recordsAutograd() { return true; }
    }
}
