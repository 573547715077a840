package dev.ember.debug.minifier;

import dev.ember.fx.GraphModule;
import dev.ember.fx.Interpreter;
import dev.ember.fx.Node;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every node's eager value in one run of a graph, so that a node the minifier cuts away can be
 * replaced by an input holding what it computed (PyTorch's minifier turns intermediate values into
 * inputs the same way). Values are copied as they are made: a later in-place op must not change
 * what an earlier node is remembered to have produced.
 */
final class NodeValues {
    private NodeValues() {}

    static Map<Node, Object> of(GraphModule gm, List<Object> inputs) {
        Map<Node, Object> values = new HashMap<>();
        new Interpreter(gm) {
            @Override
            protected Object runNode(Node n) {
                Object v = super.runNode(n);
                values.put(n, FailureCheck.copy(v));
                return v;
            }
        }.run(FailureCheck.copies(inputs));
        return values;
    }
}
