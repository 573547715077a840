package dev.ember.aot;

import dev.ember.fx.Graph;
import dev.ember.fx.Node;
import dev.ember.fx.SourceLocation;
import dev.ember.ops.Decomposition;
import dev.ember.ops.OpEmitter;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs a decomposition symbolically: each call becomes a node of {@code graph} at the current
 * insertion point, with its fake value (from the op's meta function) and the source location of the
 * node being replaced. Calls of ops that themselves decompose are decomposed in turn, so the result
 * is in the core opset.
 */
final class GraphEmitter implements OpEmitter {
    private final Graph graph;
    private final SourceLocation location;

    GraphEmitter(Graph graph, SourceLocation location) {
        this.graph = graph;
        this.location = location;
    }

    @Override
    public Object call(OpOverload op, Object... args) {
        Object[] bound = op.bind(args).toArray();
        Decomposition d = DecomposePass.decompositionOf(op);
        if (d != null) {
            Object out = d.apply(this, bound);
            if (out != null) return out;
        }
        Node n = graph.callFunction(op, trimDefaults(op, bound), Map.of());
        if (location != null) n.setSourceLocation(location);
        Object meta = op.inferMeta(op.bind(fakes(bound)));
        if (op.writtenArg() >= 0) throw new IllegalStateException("decompositions may only emit functional ops, not " + op);
        if (meta instanceof TensorMeta m) {
            n.setVal(new FakeTensor(m));
            return n;
        }
        // a multi-output op: its outputs as getitem nodes, as the op's eager call gives a list
        List<FakeTensor> fakes = new ArrayList<>();
        for (Object m : (List<?>) meta) fakes.add(new FakeTensor((TensorMeta) m));
        n.setVal(fakes);
        List<Object> items = new ArrayList<>();
        for (int i = 0; i < fakes.size(); i++) {
            Node item = graph.callFunction(dev.ember.fx.BuiltinFunctions.GETITEM, n, (long) i);
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
        List<Object> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) out.add(bound[i]);
        return out;
    }

    private static boolean sameValue(Object a, Object b) {
        if (a instanceof int[] x && b instanceof int[] y) return java.util.Arrays.equals(x, y);
        return java.util.Objects.equals(a, b);
    }

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
