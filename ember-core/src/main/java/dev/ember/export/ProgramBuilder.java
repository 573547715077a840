package dev.ember.export;

import dev.ember.aot.Aot;
import dev.ember.aot.Functionalize;
import dev.ember.autograd.GradMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.InsertPoint;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A captured graph — from bytecode capture (strict) or from running the code (non-strict) — made
 * into an exported program, the same way for both: tensor constants and state lifted to inputs,
 * inputs renamed and ordered as torch.export does (parameters {@code p_…}, buffers {@code b_…},
 * constants {@code c_…}, then the user's inputs), in-place writes of inputs turned into mutation
 * outputs, and the graph taken through AOT's one door ({@link Aot#prepare}): functional and
 * decomposed to core ATen ops, what torch.export's {@code run_decompositions()} gives.
 */
final class ProgramBuilder {
    private ProgramBuilder() {}

    /** A placeholder of the captured graph: what it is, what it stands for, and its value when exported. */
    record Input(InputSpec.Kind kind, String target, Tensor value) {}

    /** {@code inputs} in the captured graph's placeholder order; {@code outputPaths} per graph output, where it sits in the return value. */
    static ExportedProgram build(String function, boolean strict, GraphModule captured, List<Input> inputs, List<String> outputPaths,
                                 Map<String, String> specialized, String backend) {
        if (!captured.submodules().isEmpty()) {
            throw new ExportError("Ember.export(" + function + "): the graph calls the modules " + captured.submodules().keySet()
                    + " as opaque call_module nodes; export needs their ops (leave -Dember.dynamo.inline_inbuilt_nn_modules at its default, true)");
        }
        GraphModule gm = new GraphModule(captured.className(), captured.graph().copy(), Map.of(), Map.of());
        Graph g = gm.graph();
        gm.setSizeSymbols(captured.sizeSymbols());
        List<Node> placeholders = new ArrayList<>(g.placeholders());
        List<Input> all = new ArrayList<>(inputs);
        for (Node n : g.findNodes(NodeKind.GET_ATTR, null)) {
            placeholders.add(n);
            all.add(new Input(InputSpec.Kind.CONSTANT_TENSOR, (String) n.target(), captured.attribute((String) n.target())));
        }
        List<Input> ordered = liftInputs(g, placeholders, all);
        List<Node> outputs = outputNodes(g);
        int userOutputs = outputs.size();
        List<Input> mutated = addMutationOutputs(function, g, ordered);
        if (gm.sizeSymbols() != null) gm.setSizeSymbols(gm.sizeSymbols().readFrom(g.placeholders()));   // the inputs were reordered

        List<Object> fakes = new ArrayList<>();
        for (Input in : ordered) fakes.add(TensorSpec.of(in.value()).fake());
        Aot.Prepared prepared;
        try {
            prepared = Aot.prepare(gm, fakes);
        } catch (dev.ember.fx.SymbolicShapes.NotGeneric e) {
            throw new ExportError("Ember.export(" + function + "): the program is not generic in its dynamic dimensions: " + e.getMessage(), e);
        }
        if (!prepared.functional()) {
            throw new ExportError("Ember.export(" + function + "): the program writes memory a functional graph cannot express: " + prepared.keptMutation());
        }
        GraphModule graph = prepared.graph();
        List<InputSpec> inSpecs = new ArrayList<>();
        List<Node> finalPlaceholders = graph.graph().placeholders();
        Map<String, Tensor> state = new LinkedHashMap<>();
        for (int i = 0; i < ordered.size(); i++) {
            Input in = ordered.get(i);
            inSpecs.add(new InputSpec(in.kind(), finalPlaceholders.get(i).name(), in.target(), TensorSpec.of(in.value(), finalPlaceholders.get(i).symVal())));
            if (in.kind() != InputSpec.Kind.USER_INPUT) state.putIfAbsent(in.target(), detachedCopy(in.value()));
        }
        List<OutputSpec> outSpecs = new ArrayList<>();
        List<Node> finalOutputs = outputNodes(graph.graph());
        for (int k = 0; k < finalOutputs.size(); k++) {
            Node n = finalOutputs.get(k);
            TensorSpec spec = TensorSpec.of((Tensor) n.val(), n.symVal());
            if (k < userOutputs) {
                outSpecs.add(new OutputSpec(OutputSpec.Kind.USER_OUTPUT, n.name(), outputPaths.get(k), spec));
            } else {
                Input in = mutated.get(k - userOutputs);
                outSpecs.add(new OutputSpec(mutationKind(in.kind()), n.name(), in.target(), spec));
            }
        }
        Map<String, ValueRange> ranges = new LinkedHashMap<>();
        if (graph.sizeSymbols() != null) for (var s : graph.sizeSymbols().symbols()) ranges.put("s" + s.id(), new ValueRange(s.min(), s.max()));
        return new ExportedProgram(function, strict, graph, new GraphSignature(inSpecs, outSpecs, specialized), state, ranges, backend);
    }

    /**
     * Replaces the placeholders (and get_attr reads) by new placeholders named and ordered as
     * torch.export names them; returns the inputs in the new order.
     */
    private static List<Input> liftInputs(Graph g, List<Node> old, List<Input> inputs) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < old.size(); i++) order.add(i);
        order.sort(Comparator.comparingInt(i -> inputs.get(i).kind().ordinal()));
        Node first = g.nodes().getFirst();
        List<Input> ordered = new ArrayList<>();
        List<Node> fresh = new ArrayList<>();
        try (InsertPoint ignored = g.insertingBefore(first)) {
            for (int i : order) {
                Input in = inputs.get(i);
                Node p = g.placeholder(placeholderName(in), old.get(i).val());
                p.meta().putAll(old.get(i).meta());
                fresh.add(p);
                ordered.add(in);
            }
        }
        for (int k = 0; k < order.size(); k++) {
            Node o = old.get(order.get(k));
            o.replaceAllUsesWith(fresh.get(k));
            g.eraseNode(o);
        }
        return ordered;
    }

    /** {@code p_linear_weight}, {@code b_bn_running_mean}, {@code c_w}, {@code xs_0}: a Java identifier made from the target. */
    private static String placeholderName(Input in) {
        String prefix = switch (in.kind()) {
            case PARAMETER -> "p_";
            case BUFFER -> "b_";
            case CONSTANT_TENSOR -> "c_";
            case USER_INPUT -> "";
        };
        String id = (prefix + in.target()).replaceAll("[^A-Za-z0-9_]+", "_").replaceAll("_+$", "");
        return id.isEmpty() || Character.isDigit(id.charAt(0)) ? "_" + id : id;
    }

    /**
     * In-place writes of inputs become functional ops whose final values are extra outputs (as
     * AOTAutograd's input mutations); returns the written inputs in the order of those outputs.
     */
    private static List<Input> addMutationOutputs(String function, Graph g, List<Input> ordered) {
        List<Node> placeholders = g.placeholders();
        Map<Node, Node> finals = Functionalize.rewriteInputMutations(g, n -> true);
        List<Input> written = new ArrayList<>();
        List<Object> values = new ArrayList<>(outputNodes(g));
        // in the order of the inputs they write, as torch.export lists a BatchNorm's running_mean, running_var, num_batches_tracked
        List<Map.Entry<Node, Node>> inInputOrder = new ArrayList<>(finals.entrySet());
        inInputOrder.sort(java.util.Comparator.comparingInt(e -> placeholders.indexOf(e.getKey())));
        for (Map.Entry<Node, Node> e : inInputOrder) {
            Input in = ordered.get(placeholders.indexOf(e.getKey()));
            if (in.kind() == InputSpec.Kind.CONSTANT_TENSOR) {
                throw new ExportError("Ember.export(" + function + "): the program writes in place into the tensor constant '" + in.target()
                        + "', which is saved with the program and never passed in; make it a buffer of a module, or an input");
            }
            written.add(in);
            values.add(e.getValue());
        }
        if (!written.isEmpty()) g.outputNode().setArgs(List.of(values));
        return written;
    }

    private static OutputSpec.Kind mutationKind(InputSpec.Kind kind) {
        return switch (kind) {
            case PARAMETER -> OutputSpec.Kind.PARAMETER_MUTATION;
            case BUFFER -> OutputSpec.Kind.BUFFER_MUTATION;
            case USER_INPUT -> OutputSpec.Kind.USER_INPUT_MUTATION;
            case CONSTANT_TENSOR -> throw new IllegalStateException("refused in addMutationOutputs");
        };
    }

    /** The graph's returned nodes: Dynamo's graphs return a list (a tuple), a hand-built one may return one node. */
    static List<Node> outputNodes(Graph g) {
        Object out = g.outputNode().arg(0);
        List<Node> nodes = new ArrayList<>();
        for (Object o : out instanceof List<?> l ? l : List.of(out)) nodes.add((Node) o);
        return nodes;
    }

    /** The program owns its state: later changes to the module (an optimizer step) do not reach it, nor its buffer updates the module. */
    private static Tensor detachedCopy(Tensor t) {
        try (var s = GradMode.noGrad()) {
            return t.detach().clone();
        }
    }
}
