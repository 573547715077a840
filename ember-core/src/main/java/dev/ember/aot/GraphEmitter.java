package dev.ember.aot;

import dev.ember.fx.Graph;
import dev.ember.fx.NodeEmitter;
import dev.ember.fx.SourceLocation;
import dev.ember.ops.Decomposition;
import dev.ember.ops.OpEmitter;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.TensorMeta;

/**
 * Runs a decomposition symbolically: each call becomes a node of {@code graph} at the current
 * insertion point, with its fake value (from the op's meta function) and the source location of the
 * node being replaced ({@link NodeEmitter}). Calls of ops that themselves decompose are decomposed in
 * turn, so the result is in the core opset.
 */
final class GraphEmitter implements OpEmitter {
    private final NodeEmitter nodes;
    /** Where the nodes this emitter makes are listed, or null. */
    private final java.util.List<dev.ember.fx.Node> made;

    GraphEmitter(Graph graph, SourceLocation location) {
        this(graph, location, null);
    }

    /** An emitter that adds each node it makes to {@code made}. */
    GraphEmitter(Graph graph, SourceLocation location, java.util.List<dev.ember.fx.Node> made) {
        this.nodes = new NodeEmitter(graph, location);
        this.made = made;
    }

    @Override
    public Object call(OpOverload op, Object... args) {
        Decomposition d = DecomposePass.decompositionOf(op);
        if (d != null) {
            Object out = d.apply(this, op.bind(args).toArray());
            if (out != null) return out;
        }
        if (op.writtenArg() >= 0) throw new IllegalStateException("decompositions may only emit functional ops, not " + op);
        Object out = nodes.call(op, args);
        if (made != null && out instanceof dev.ember.fx.Node n) made.add(n);
        return out;
    }

    @Override
    public TensorMeta meta(Object tensor) { return nodes.meta(tensor); }
}
