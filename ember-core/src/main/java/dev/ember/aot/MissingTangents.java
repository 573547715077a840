package dev.ember.aot;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.InsertPoint;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.ops.CreationOps;
import dev.ember.ops.PointwiseOps;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A backward graph specialized for outputs that received no gradient.
 *
 * <p>Eager autograd never runs a derivative for a gradient that does not exist: {@code y = x.sqrt()}
 * read only through {@code y.sum().item()} contributes nothing to {@code x}'s gradient. A compiled
 * backward that fed a zero tangent instead would compute {@code 0 / (2·sqrt(0)) = NaN} there. So
 * every backward node that depends only on missing tangents is removed (it is eager's undefined
 * gradient); where such a value meets a real gradient, an accumulating add keeps the real one and any
 * other op gets zeros in its place, as eager's formulas materialize an undefined gradient of a
 * multi-output op; an input whose gradient depends only on missing tangents gets none.
 */
final class MissingTangents {
    private MissingTangents() {}

    /** The specialized backward and, per gradient output, whether it is eager's "no gradient". */
    record Specialized(GraphModule backward, boolean[] noGradient) {}

    /**
     * Specializes a copy of {@code backward}, whose placeholders are the saved values followed by one
     * tangent per differentiable output, for the tangents {@code present} marks; null when it cannot
     * (a missing value that is a list meets a real one), and the backward then gets zero tangents.
     */
    static Specialized specialize(GraphModule backward, int savedCount, boolean[] present) {
        GraphModule copy = backward.copy();
        Graph graph = copy.graph();
        List<Node> placeholders = graph.placeholders();
        Set<Node> absent = new HashSet<>(), real = new HashSet<>();
        for (int k = 0; k < present.length; k++) (present[k] ? real : absent).add(placeholders.get(savedCount + k));
        for (Node n : graph.nodes()) {
            if (n.kind() == NodeKind.PLACEHOLDER || n.kind() == NodeKind.OUTPUT) continue;
            boolean anyAbsent = false, anyReal = false;
            for (Node in : n.allInputNodes()) {
                anyAbsent |= absent.contains(in);
                anyReal |= real.contains(in);
            }
            if (n.meta().get(JointGraph.TANGENTS) instanceof BitSet owners && !owners.isEmpty()) {
                // the joint graph says whose gradient this node is part of (a formula's zeros belong to the gradient it was run for)
                boolean anyPresent = false;
                for (int k = owners.nextSetBit(0); k >= 0; k = owners.nextSetBit(k + 1)) anyPresent |= k < present.length && present[k];
                anyReal = anyPresent;
                anyAbsent |= !anyPresent;
            }
            if (!anyAbsent) {
                if (anyReal) real.add(n);
            } else if (!anyReal) {
                absent.add(n);
            } else if (n.target() == PointwiseOps.ADD_TENSOR && n.args().size() == 2 && sameMeta(n.arg(0), n.arg(1))
                    && (absent.contains(n.arg(0)) || absent.contains(n.arg(1)))) {
                // the accumulation of two contributions to one gradient: the missing one adds nothing
                n.replaceAllUsesWith((Node) (absent.contains((Node) n.arg(0)) ? n.arg(1) : n.arg(0)));
                real.add(n);
            } else {
                for (Node in : n.allInputNodes()) {
                    if (!absent.contains(in)) continue;
                    // a missing list of gradients has no zeros of its own: the caller feeds zero tangents instead, as before
                    if (!(in.val() instanceof Tensor)) return null;
                    n.replaceInputWith(in, zerosLike(graph, n, in));
                }
                real.add(n);
            }
        }
        Node output = graph.outputNode();
        Object outValue = output.arg(0);
        List<Object> results = outValue instanceof List<?> l ? new ArrayList<>(l) : new ArrayList<>(List.of(outValue));
        boolean[] noGradient = new boolean[results.size()];
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) instanceof Node r && absent.contains(r)) {
                noGradient[i] = true;
                results.set(i, zerosLike(graph, output, r));
            }
        }
        output.setArgs(List.of(results));
        graph.eliminateDeadCode();
        return new Specialized(copy, noGradient);
    }

    private static Node zerosLike(Graph graph, Node before, Node like) {
        Tensor t = (Tensor) like.val();
        Node z;
        try (InsertPoint ignored = graph.insertingBefore(before)) {
            z = graph.callFunction(CreationOps.ZEROS, t.shape(), t.dtype());
        }
        z.setVal(dev.ember.tensor.FakeTensor.like(t));
        return z;
    }

    private static boolean sameMeta(Object a, Object b) {
        return a instanceof Node x && b instanceof Node y && x.val() instanceof Tensor s && y.val() instanceof Tensor t
                && java.util.Arrays.equals(s.shape(), t.shape()) && s.dtype() == t.dtype();
    }

    static String describe(boolean[] present) {
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < present.length; k++) if (!present[k]) sb.append(sb.isEmpty() ? "" : ", ").append("tangents_").append(k + 1);
        return sb.toString();
    }
}
