package dev.ember.passes;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.InsertPoint;
import dev.ember.fx.Node;
import dev.ember.fx.NodeEmitter;
import dev.ember.fx.NodeKind;
import dev.ember.ops.LinalgOps;
import dev.ember.ops.ShapeOps;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Group fusion of parallel linears (PyTorch's group_batch_fusion, for linear): two or more
 * {@code linear(x, w_i, b_i)} on the same input become one {@code linear(x, cat(w_i), cat(b_i))},
 * whose output is split back along its last dim — one GEMM with more columns instead of several
 * (attention's Q, K and V projections are the classic case).
 * <p>
 * The weights are concatenated in the graph, on every call: nothing is frozen, so updated
 * parameters are used, but the copy of all weights is paid each time. A piece of the split is a
 * strided view, so a linear whose users could tell (a view, a write, the graph's output) gets a
 * contiguous clone of it instead ({@link Aliasing}). Inference only: training would differentiate
 * through the cat and the split, which PyTorch does, but the cost was measured for inference only.
 * <p>
 * Opt-in ({@code EMBER_ENABLE_PASSES=pre_grad.batch_linear_fusion}), as PyTorch's pre-grad fusions
 * are: measured with {@code BatchLinearFusionBench} on the 2-core machine Ember is built on, it was
 * slower in every case tried (three 64→64 or 512→512 linears, 1 to 512 rows), by 1.3× to 2.3×: the
 * per-call cat costs as much as a small GEMM, and Ember's GEMM runs no faster on the wider weight
 * even when it is concatenated beforehand. No row count made it pay, so no threshold would do;
 * docs/logging.md has the numbers.
 */
final class BatchLinearFusion {
    private BatchLinearFusion() {}

    static final GraphPass PASS = new GraphPass("batch_linear_fusion",
            "linears sharing an input as one linear over concatenated weights, split back",
            true, true, BatchLinearFusion::run);

    static boolean run(GraphModule gm) {
        Graph g = gm.graph();
        Map<List<Object>, List<Node>> groups = new LinkedHashMap<>();
        for (Node n : g.findNodes(NodeKind.CALL_FUNCTION, LinalgOps.LINEAR)) {
            if (fusible(n)) groups.computeIfAbsent(List.of(n.arg(0), ((Tensor) ((Node) n.arg(1)).val()).dtype(), bias(n) != null), k -> new ArrayList<>()).add(n);
        }
        boolean changed = false;
        for (List<Node> group : groups.values()) {
            if (group.size() >= 2 && readyAtFirst(group)) {
                fuse(g, group);
                changed = true;
            }
        }
        return changed;
    }

    /**
     * Whether the fused linear can run where the first one did: every input, weight and bias that is
     * not a graph input is computed before it, and nothing up to the last one writes (into what the
     * moved reads read, as far as one can tell). Graph inputs are ready from the start; Dynamo only
     * places a parameter's placeholder where the code first reads it, which {@link #fuse} undoes.
     */
    private static boolean readyAtFirst(List<Node> linears) {
        Node first = linears.getFirst(), last = linears.getLast();
        Set<Node> before = new HashSet<>();
        for (Node n = first.prev(); n != null; n = n.prev()) before.add(n);
        for (Node l : linears) {
            for (Node dep : l.allInputNodes()) if (!isInput(dep) && !before.contains(dep)) return false;
        }
        for (Node n = first; n != last; n = n.next()) if (Aliasing.writes(n)) return false;
        return true;
    }

    private static boolean isInput(Node n) { return n.kind() == NodeKind.PLACEHOLDER || n.kind() == NodeKind.GET_ATTR; }

    /** A linear with a 2-d weight and no or a 1-d bias, all nodes, its shapes known. */
    private static boolean fusible(Node n) {
        if (!n.kwargs().isEmpty() || !(n.arg(0) instanceof Node x) || !(x.val() instanceof Tensor in) || in.dim() < 1) return false;
        if (!(n.arg(1) instanceof Node w) || !(w.val() instanceof Tensor weight) || weight.dim() != 2) return false;
        Object b = n.args().size() > 2 ? n.arg(2) : null;
        return b == null || b instanceof Node bias && bias.val() instanceof Tensor t && t.dim() == 1 && t.dtype() == weight.dtype();
    }

    private static Node bias(Node linear) { return linear.args().size() > 2 ? (Node) linear.arg(2) : null; }

    private static void fuse(Graph g, List<Node> linears) {
        Node first = linears.getFirst();
        // the inputs the group reads later move up, all of them and in order, so the graph's parameters keep their order
        List<Node> later = new ArrayList<>();
        for (Node n = first.next(); n != linears.getLast(); n = n.next()) if (isInput(n)) later.add(n);
        later.forEach(first::prepend);
        Node x = (Node) first.arg(0);
        List<Node> weights = linears.stream().map(l -> (Node) l.arg(1)).toList();
        List<Node> biases = bias(first) == null ? null : linears.stream().map(BatchLinearFusion::bias).toList();
        int[] outFeatures = weights.stream().mapToInt(w -> ((Tensor) w.val()).size(0)).toArray();
        // a piece is a strided view of the fused result: a linear whose users could tell gets a contiguous copy
        List<Node> results = new ArrayList<>();
        try (InsertPoint at = g.insertingBefore(first)) {
            NodeEmitter e = new NodeEmitter(g, first.sourceLocation());
            Object weight = e.call(ShapeOps.CAT, weights, 0L);
            Object bias = biases == null ? null : e.call(ShapeOps.CAT, biases, 0L);
            Object fused = e.call(LinalgOps.LINEAR, x, weight, bias);
            List<?> pieces = (List<?>) e.call(ShapeOps.SPLIT_WITH_SIZES, fused, outFeatures, (long) e.meta(fused).dim() - 1);
            for (int i = 0; i < linears.size(); i++) {
                Node piece = (Node) pieces.get(i);
                results.add(Aliasing.onlyValueUsers(linears.get(i)) ? piece : (Node) e.call(ShapeOps.CLONE, piece));
            }
        }
        for (int i = 0; i < linears.size(); i++) {
            linears.get(i).replaceAllUsesWith(results.get(i));
            g.eraseIfUnused(linears.get(i));
        }
    }
}
