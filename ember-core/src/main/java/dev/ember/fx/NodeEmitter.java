package dev.ember.fx;

import dev.ember.ops.OpEmitter;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Writes op calls into a graph as they are made: each call becomes a node at the graph's insertion
 * point, carrying its fake value (from the op's meta function) and a source location, so the passes
 * after it see shapes without a new shape propagation. A multi-output op gives its outputs as
 * getitem nodes, as its eager call gives a list. Functional ops only: a rewrite that wrote into a
 * tensor would need the aliasing analysis the emitter cannot do.
 */
public final class NodeEmitter implements OpEmitter {
    private final Graph graph;
    private final SourceLocation location;

    /** Nodes go into {@code graph} and say they come from {@code location} (null: nowhere). */
    public NodeEmitter(Graph graph, SourceLocation location) {
        this.graph = graph;
        this.location = location;
    }

    @Override
    public Object call(OpOverload op, Object... args) {
        if (op.writtenArg() >= 0) throw new IllegalStateException("rewrites may only emit functional ops, not " + op);
        Object[] bound = op.bind(args).toArray();
        Node n = graph.callFunction(op, trimDefaults(op, bound), Map.of());
        if (location != null) n.setSourceLocation(location);
        Object meta = op.inferMeta(op.bind(fakes(bound)));
        // an op returning nothing (an assert in a decomposition): the node stays for its effect (Node.isImpure), no value
        if (meta == null && op.schema().returns().equals("()")) return null;
        if (meta instanceof TensorMeta m) {
            n.setVal(new FakeTensor(m));
            return n;
        }
        List<FakeTensor> fakes = new ArrayList<>();
        for (Object m : (List<?>) meta) fakes.add(new FakeTensor((TensorMeta) m));
        n.setVal(fakes);
        List<Object> items = new ArrayList<>();
        for (int i = 0; i < fakes.size(); i++) {
            Node item = graph.callFunction(BuiltinFunctions.GETITEM, n, (long) i);
            if (location != null) item.setSourceLocation(location);
            item.setVal(fakes.get(i));
            items.add(item);
        }
        return items;
    }

    @Override
    public TensorMeta meta(Object tensor) {
        return switch (tensor) {
            case Node n when n.val() instanceof Tensor t -> t.meta();
            case Tensor t -> t.meta();
            default -> throw new IllegalArgumentException("no tensor metadata for " + tensor);
        };
    }

    /** Arguments as written in the graph: trailing defaults dropped, so printed graphs stay short. */
    private static List<Object> trimDefaults(OpOverload op, Object[] bound) {
        int n = bound.length;
        while (n > 0 && op.schema().param(n - 1).hasDefault() && sameValue(op.schema().param(n - 1).defaultValue(), bound[n - 1])) n--;
        return Arrays.asList(bound).subList(0, n);
    }

    private static boolean sameValue(Object a, Object b) {
        if (a instanceof int[] x && b instanceof int[] y) return Arrays.equals(x, y);
        return Objects.equals(a, b);
    }

    /** The values' fakes: nodes (also inside lists) replaced by their fake values. */
    private static Object[] fakes(Object[] values) {
        Object[] out = new Object[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = switch (values[i]) {
                case Node n -> n.val();
                case List<?> l -> l.stream().map(x -> x instanceof Node n ? n.val() : x).toList();
                case null, default -> values[i];
            };
        }
        return out;
    }
}
