package dev.ember.dynamo;

import dev.ember.aot.Functionalize;
import dev.ember.dynamo.guards.NoTensorAliasing;
import dev.ember.dynamo.source.Source;
import dev.ember.fx.Node;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Inputs the traced code changes in place ({@code param.sub_(grad.mul(lr))}, a BatchNorm's running
 * statistics): the graph computes their new values functionally and returns them as extra outputs,
 * and a side effect copies each into its input after the graph runs. Every backend then sees a
 * functional graph (inductor compiles an optimizer step into fused kernels instead of interpreting
 * it), and a guard keeps the rewrite valid: the written input shares memory with no other input.
 */
final class InputMutations {
    private InputMutations() {}

    /**
     * Rewrites the output graph (its output node made); {@code frame} gives the inputs' values: an input
     * sharing memory with another input is left mutated in place. Returns the copies to replay.
     */
    static List<SideEffect> functionalize(OutputGraph graph, Object[] frame) {
        List<Node> placeholders = graph.graph().placeholders();
        List<Source> sources = graph.inputSources();
        Map<Node, Node> finalValues = Functionalize.rewriteInputMutations(graph.graph(), input -> !sharesMemory(placeholders.indexOf(input), sources, frame));
        if (finalValues.isEmpty()) return List.of();
        Node outputNode = graph.graph().outputNode();
        List<Object> values = new ArrayList<>((List<?>) outputNode.arg(0));
        List<SideEffect> copies = new ArrayList<>();
        for (Map.Entry<Node, Node> e : finalValues.entrySet()) {
            int input = placeholders.indexOf(e.getKey());
            Source source = sources.get(input);
            List<Source> others = new ArrayList<>(sources);
            others.remove(input);
            graph.addGuard(new NoTensorAliasing(source, others));
            copies.add(new SideEffect.CopyIntoInput(source, values.size()));
            values.add(e.getValue());
        }
        outputNode.setArgs(List.of(values));
        return copies;
    }

    private static boolean sharesMemory(int input, List<Source> sources, Object[] frame) {
        try {
            if (!(sources.get(input).read(frame) instanceof Tensor t) || t.storage() == null) return true;
            for (int i = 0; i < sources.size(); i++) {
                if (i != input && sources.get(i).read(frame) instanceof Tensor u && u.storage() == t.storage()) return true;
            }
            return false;
        } catch (RuntimeException e) {
            return true;   // an input that cannot be read now is not rewritten
        }
    }
}
