package dev.ember.passes;

import dev.ember.fx.BuiltinFunctions;
import dev.ember.fx.Graph;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.ops.NormOps;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.Tensor;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What a rewrite must know before it puts a view where the graph had a fresh tensor, or a fresh
 * tensor where it had a view: the values are the same, but a view shares its base's memory and
 * has the base's strides. A reader of values sees no difference; a write into the memory, a view
 * of it (whose strides follow), or a result handed back to the user can. The captured graph still
 * holds mutations (pre-grad runs before functionalization), so the passes ask here.
 */
final class Aliasing {
    private Aliasing() {}

    /**
     * Every user of {@code n} computes a new tensor from its values: an op call that neither returns
     * an alias nor writes. Ember's ops give contiguous results whatever their inputs' strides, so
     * such users cannot tell a strided view from a contiguous copy.
     */
    static boolean onlyValueUsers(Node n) {
        for (Node u : n.users()) {
            if (!(u.target() instanceof OpOverload) || u.aliasesFirstArgument() || writes(u)) return false;
        }
        return true;
    }

    /**
     * The nodes sharing memory with {@code n}: what it is a view of, the views of those, and so on
     * (through reshape, split's list and its getitems).
     */
    static Set<Node> aliasesOf(Node n) {
        Set<Node> seen = new HashSet<>();
        ArrayDeque<Node> todo = new ArrayDeque<>(List.of(n));
        while (!todo.isEmpty()) {
            Node m = todo.pop();
            if (!seen.add(m)) continue;
            if (aliasesItsInput(m)) todo.push((Node) m.arg(0));
            for (Node u : m.users()) if (aliasesItsInput(u) && u.arg(0) == m) todo.push(u);
        }
        return seen;
    }

    /** Whether some node of {@code g} may write into the memory of one of {@code nodes}. */
    static boolean anyWritten(Graph g, Collection<Node> nodes) {
        for (Node u : g.nodes()) {
            for (Node w : writtenBy(u)) if (nodes.contains(w)) return true;
        }
        return false;
    }

    /** Whether the graph's output uses one of {@code nodes}: the user would hold that memory. */
    static boolean anyReturned(Graph g, Collection<Node> nodes) {
        for (Node n : g.outputNode().allInputNodes()) if (nodes.contains(n)) return true;
        return false;
    }

    /** Whether one of {@code nodes} is memory from outside the graph: an input, a parameter or a buffer. */
    static boolean anyFromOutside(Collection<Node> nodes) {
        return nodes.stream().anyMatch(n -> n.kind() == NodeKind.PLACEHOLDER || n.kind() == NodeKind.GET_ATTR);
    }

    /** Same shape and strides: a view with them behaves as the tensor it stands for, views of it included. */
    static boolean sameLayout(Object a, Object b) {
        return a instanceof Tensor x && b instanceof Tensor y && x.dtype() == y.dtype()
                && Arrays.equals(x.shape(), y.shape()) && Arrays.equals(x.strides(), y.strides());
    }

    /** Whether {@code u} may write into one of its inputs. */
    static boolean writes(Node u) { return !writtenBy(u).isEmpty(); }

    private static boolean aliasesItsInput(Node m) {
        if (m.kind() != NodeKind.CALL_FUNCTION || m.args().isEmpty() || !(m.arg(0) instanceof Node)) return false;
        return m.target() == BuiltinFunctions.GETITEM || m.aliasesFirstArgument();
    }

    /**
     * The inputs {@code u} may write into: an in-place or out= op's written argument, batch_norm's
     * running statistics in training (its schema does not say so), an in-place method's receiver;
     * anything a module call or another function is given, as nothing says what they do with it.
     */
    private static List<Node> writtenBy(Node u) {
        return switch (u.kind()) {
            case CALL_METHOD -> ((String) u.target()).endsWith("_") && u.arg(0) instanceof Node self ? List.of(self) : List.of();
            case CALL_MODULE -> u.allInputNodes();
            case CALL_FUNCTION -> switch (u.target()) {
                case OpOverload op when op == NormOps.BATCH_NORM -> nodes(u.writtenStatistics().toArray());
                case OpOverload op when op.writtenArg() >= 0 -> writtenArgument(u, op);
                case OpOverload op -> List.of();
                default -> u.target() == BuiltinFunctions.GETITEM ? List.of() : u.allInputNodes();
            };
            default -> List.of();
        };
    }

    private static List<Node> writtenArgument(Node u, OpOverload op) {
        Object written = op.writtenArg() < u.args().size() ? u.arg(op.writtenArg()) : u.kwargs().get(op.schema().param(op.writtenArg()).name());
        return nodes(written);
    }

    private static List<Node> nodes(Object... values) {
        return Arrays.stream(values).filter(v -> v instanceof Node).map(v -> (Node) v).toList();
    }
}
