package dev.ember.debug.minifier;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One candidate of the minifier: the graph keeping only some of the original's op nodes. A kept
 * node's argument whose node was cut becomes an input holding that node's eager value; inputs no
 * kept node reads are dropped; the outputs are the original outputs still kept plus every kept
 * node no kept node reads (so cutting what follows the faulty op makes the faulty op an output).
 *
 * @param graph  the reduced graph
 * @param inputs one value per placeholder of {@code graph}
 * @param kept   the original nodes kept, in graph order
 */
record Reduction(GraphModule graph, List<Object> inputs, List<Node> kept) {

    /** The op (and attribute-read) nodes of a graph: what the minifier may cut. */
    static List<Node> ops(Graph g) {
        return g.nodes().stream().filter(n -> n.kind() != NodeKind.PLACEHOLDER && n.kind() != NodeKind.OUTPUT).toList();
    }

    /**
     * The graph of {@code original} keeping {@code keep}; null when it cannot be built (a cut
     * node's value is not something an input can hold, such as a list a getitem reads, or nothing
     * would be left to output).
     */
    static Reduction of(GraphModule original, Collection<Node> keep, Map<Node, Object> values, List<Object> originalInputs) {
        Set<Node> kept = new HashSet<>(keep);
        List<Node> order = original.graph().nodes();
        List<Node> placeholders = original.graph().placeholders();
        Set<Node> becomeInputs = new LinkedHashSet<>();
        for (Node n : order) {
            if (!kept.contains(n)) continue;
            for (Node in : n.allInputNodes()) if (!kept.contains(in)) becomeInputs.add(in);
        }
        Graph g = new Graph();
        Map<Node, Node> map = new HashMap<>();
        List<Object> inputs = new ArrayList<>();
        for (Node n : order) {
            if (!becomeInputs.contains(n)) continue;
            Object value = n.kind() == NodeKind.PLACEHOLDER ? originalInputs.get(placeholders.indexOf(n)) : values.get(n);
            if (n.kind() != NodeKind.PLACEHOLDER && !(value instanceof Tensor || value instanceof Number || value instanceof Boolean)) return null;
            Node p = g.placeholder(n.name(), null);
            p.meta().putAll(n.meta());
            map.put(n, p);
            inputs.add(value);
        }
        List<Node> keptInOrder = new ArrayList<>();
        for (Node n : order) {
            if (!kept.contains(n) || n.kind() == NodeKind.PLACEHOLDER || n.kind() == NodeKind.OUTPUT) continue;
            map.put(n, g.nodeCopy(n, map::get));
            keptInOrder.add(n);
        }
        Set<Node> outputs = new LinkedHashSet<>();
        Node out = original.graph().outputNode();
        for (Node n : keptInOrder) {
            boolean read = n.users().stream().anyMatch(kept::contains);
            if (!read || out.allInputNodes().contains(n)) outputs.add(n);
        }
        if (outputs.isEmpty()) return null;
        g.output(outputs.stream().map(map::get).map(Object.class::cast).toList());
        Map<String, Tensor> attributes = new java.util.LinkedHashMap<>();
        for (Node n : keptInOrder) if (n.kind() == NodeKind.GET_ATTR) attributes.put((String) n.target(), original.attribute((String) n.target()));
        GraphModule gm = new GraphModule(original.className(), g, attributes, original.submodules());
        return new Reduction(gm, inputs, keptInOrder);
    }
}
