package dev.ember.dynamo;

import dev.ember.aot.Functionalize;
import dev.ember.dynamo.guards.NoTensorAliasing;
import dev.ember.dynamo.source.Source;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Inputs the traced code changes in place ({@code param.sub_(grad.mul(lr))}, a BatchNorm's running
 * statistics), as AOTAutograd's runtime wrapper treats them: an AOT backend (inductor, aot_eager;
 * other backends get the graph as captured, as Dynamo hands it over) gets a copy of the graph
 * that computes their new values functionally and returns them as extra outputs, and the compiled
 * graph copies each into its input after running. Every backend then sees a functional graph
 * (inductor compiles an optimizer step into fused kernels instead of interpreting it); the captured
 * graph that logs and explain show stays as written. A guard keeps the rewrite valid: the written
 * input shares memory with no other input.
 */
final class InputMutations {
    private InputMutations() {}

    /** The functional copy of the graph and, per extra output, which input it is copied into. */
    record Rewrite(GraphModule graph, int outputs, int[] written) {
        /** {@code compiled} (of {@link #graph}), copying each new value into its input and returning the original outputs. */
        CompiledGraph wrap(CompiledGraph compiled) {
            return new CompiledGraph() {
                @Override
                public Object[] run(Object[] inputs) {
                    Object[] all = compiled.run(inputs);
                    for (int k = 0; k < written.length; k++) writeBack((Tensor) inputs[written[k]], (Tensor) all[outputs + k]);
                    return java.util.Arrays.copyOf(all, outputs);
                }

                @Override
                public String outputCode() { return compiled.outputCode(); }

                @Override
                public GraphModule transformedGraph() { return compiled.transformedGraph(); }

                @Override
                public boolean recordsAutograd() { return compiled.recordsAutograd(); }
            };
        }
    }

    /**
     * Copies {@code value} into {@code input}, or, when the backend already stored it in the input's
     * own memory ({@link Functionalize#WRITTEN_BACK_FROM_OUTPUT}) and no autograd history is to be
     * recorded, only counts the in-place write as {@code copy_} would (the version counter that
     * saved-tensor checks and weight caches read).
     */
    static void writeBack(Tensor input, Tensor value) {
        boolean sameMemory = value.storage() == input.storage() && value.storageOffset() == input.storageOffset() && value.dim() == input.dim();
        for (int d = 0; sameMemory && d < value.dim(); d++) sameMemory = value.size(d) == input.size(d) && value.stride(d) == input.stride(d);   // per parameter per step: no copies of the shape
        boolean recordsHistory = dev.ember.autograd.GradMode.isEnabled() && (input.requiresGrad() || value.requiresGrad());
        if (sameMemory && !recordsHistory) input.bumpVersion();
        else input.copy_(value);
    }

    /**
     * The rewrite of {@code g}'s graph, or null when no input is written (or none can be: an input
     * sharing memory with another input, per {@code inputs}, stays mutated in place). Adds the guards.
     * A graph generic in sizes is rewritten once per assignment of its symbols and generalized: the
     * rewrite computes the sizes of the copies it adds from concrete sizes.
     */
    static Rewrite functionalize(OutputGraph g, GraphModule captured, List<Object> inputs) {
        if (inputs == null) return null;
        GraphModule work = captured.copy();
        Written w = rewrite(work, inputs);
        if (w == null) return null;
        List<Source> sources = g.inputSources();
        for (int input : w.inputs()) {
            List<Source> others = new ArrayList<>(sources);
            others.remove(input);
            g.addGuard(new NoTensorAliasing(sources.get(input), others));
        }
        if (captured.sizeSymbols() != null) {
            work = new dev.ember.fx.SymbolicShapes(captured.sizeSymbols()).transformed(captured, at -> {
                rewrite(at, inputs);
                return at;
            });
        }
        return new Rewrite(work, w.outputs(), w.inputs());
    }

    /** The graph's outputs before the rewrite, and the inputs whose final values it appended, in order. */
    private record Written(int outputs, int[] inputs) {}

    /** Rewrites {@code work}'s writes of inputs into functional ops whose results it returns after its outputs; null when there are none. */
    private static Written rewrite(GraphModule work, List<Object> inputs) {
        List<Node> placeholders = work.graph().placeholders();
        java.util.function.Predicate<Node> mayRewrite = input -> !sharesMemory(placeholders.indexOf(input), inputs);
        Map<Node, Node> finalValues = Functionalize.rewriteInputMutations(work.graph(), mayRewrite,
                stat -> mayRewrite.test(stat) && !(inputs.get(placeholders.indexOf(stat)) instanceof Tensor t && t.requiresGrad()));
        if (finalValues.isEmpty()) return null;
        Node outputNode = work.graph().outputNode();
        Object value = outputNode.arg(0);
        List<Object> values = value instanceof List<?> l ? new ArrayList<>(l) : new ArrayList<>(List.of(value));
        int outputs = values.size();
        int[] written = new int[finalValues.size()];
        int k = 0;
        for (Map.Entry<Node, Node> e : finalValues.entrySet()) {
            written[k++] = placeholders.indexOf(e.getKey());
            e.getKey().meta().put(Functionalize.WRITTEN_BACK_FROM_OUTPUT, values.size());
            values.add(e.getValue());
        }
        outputNode.setArgs(List.of(values));
        return new Written(outputs, written);
    }

    private static boolean sharesMemory(int input, List<Object> inputs) {
        if (!(inputs.get(input) instanceof Tensor t) || t.storage() == null) return true;
        for (int i = 0; i < inputs.size(); i++) {
            if (i != input && inputs.get(i) instanceof Tensor u && u.storage() == t.storage()) return true;
        }
        return false;
    }
}
