package dev.ember.aot;

import dev.ember.fx.BuiltinFunctions;
import dev.ember.fx.CompilerSteps;
import dev.ember.fx.GraphModule;
import dev.ember.fx.InsertPoint;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.ops.ConvOps;
import dev.ember.ops.Decomposition;
import dev.ember.ops.IndexingOps;
import dev.ember.ops.LossOps;
import dev.ember.ops.NnOps;
import dev.ember.ops.OpOverload;
import dev.ember.ops.PointwiseOps;
import dev.ember.ops.Schema;
import dev.ember.ops.ShapeOps;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Rewrites a graph into the core opset: every call of an op with a {@link Decomposition} (the one
 * written in the op's own entry, which eager {@link OpOverload#decompose} runs too) is replaced
 * by the nodes its decomposition emits (recursively; an op returning a list where the graph takes
 * its items by getitem, each getitem by its item), each keeping the replaced node's source
 * location, so errors and logs still point at the user's line. Nodes must carry fake values
 * ({@link dev.ember.fx.ShapeProp}). Each node's decomposition is one {@link CompilerSteps} step
 * ({@code ember bisect} can skip it).
 */
public final class DecomposePass {
    private DecomposePass() {}

    /**
     * Ops whose decomposition AOT leaves alone, though they have one: embedding's row gather is one
     * eager kernel call, where its pieces (reshape, index_select, view) would compile to the same
     * gather with a copy more. The losses built on nll_loss (nll_loss, nll_loss_nd,
     * cross_entropy_loss) run their eager kernels, which sum as ATen's do, bit for bit; their
     * decompositions are how eager autograd differentiates them (PyTorch's CompositeImplicitAutograd).
     * dropout stays the one eager draw it is (its decomposition, native_dropout, keeps the mask autograd needs);
     * max_pool2d stays one kernel (its decomposition computes the indices autograd needs);
     * scaled_dot_product_attention stays the one op inference graphs name (its decomposition is for autograd);
     * silu stays whole so that compiled code computes ATen's {@code x / (1 + e^−x)}, the formula the eager
     * kernel shares with the inductor ({@code UnaryOp.SILU}), not {@code x · σ(x)}, which rounds differently.
     */
    private static final Set<OpOverload> KEPT_WHOLE = Set.of(IndexingOps.EMBEDDING,
            LossOps.NLL_LOSS, LossOps.NLL_LOSS_ND, LossOps.CROSS_ENTROPY_LOSS, PointwiseOps.DROPOUT, ConvOps.MAX_POOL2D,
            NnOps.SCALED_DOT_PRODUCT_ATTENTION, PointwiseOps.SILU);

    /** The decomposition AOT applies to {@code op}, or null when the op stays as it is. */
    public static Decomposition decompositionOf(OpOverload op) { return KEPT_WHOLE.contains(op) ? null : op.decomposition(); }

    /** Decomposes every op that has a decomposition (recursively); returns how many nodes were replaced. */
    public static int run(GraphModule gm) { return run(gm, op -> false); }

    /** The same, keeping whole the ops {@code keep} names. */
    public static int run(GraphModule gm, java.util.function.Predicate<OpOverload> keep) {
        int replaced = 0;
        for (Node n : gm.graph().nodes()) {
            if (n.kind() != NodeKind.CALL_FUNCTION || !(n.target() instanceof OpOverload op) || keep.test(op)) continue;
            Decomposition d = decompositionOf(op);
            if (d == null || returnsList(op) && !onlyItemsTaken(n) || !CompilerSteps.apply(CompilerSteps.Kind.DECOMPOSITION, () -> CompilerSteps.describe(n))) continue;
            Object out;
            try (InsertPoint ignored = gm.graph().insertingBefore(n)) {
                out = d.apply(new GraphEmitter(gm.graph(), n.sourceLocation()), positional(op, n));
            }
            if (out instanceof List<?> items) {
                takeItems(gm, n, items);
                replaced++;
                continue;
            }
            if (!(out instanceof Node result)) continue;
            if (!op.returnsAlias()) result = ownResult(gm, n, result);
            n.replaceAllUsesWith(result);
            gm.graph().eraseNode(n);
            replaced++;
        }
        return replaced;
    }

    private static boolean returnsList(OpOverload op) { return op.schema().returns().endsWith("[]"); }

    /** Whether the graph uses a list-returning node only through getitem of constant indices, which can take the decomposition's items instead. */
    private static boolean onlyItemsTaken(Node n) {
        for (Node u : n.users()) if (u.target() != BuiltinFunctions.GETITEM || !(u.arg(1) instanceof Number)) return false;
        return true;
    }

    /** A list-returning op replaced by its decomposition's items (unbind's selects): each getitem of the node becomes the item it takes. */
    private static void takeItems(GraphModule gm, Node n, List<?> items) {
        for (Node u : List.copyOf(n.users())) {
            u.replaceAllUsesWith((Node) items.get(((Number) u.arg(1)).intValue()));
            gm.graph().eraseNode(u);
        }
        gm.graph().eraseNode(n);
    }

    /**
     * The decomposition's result as the op's own: an op that returns a fresh tensor must not become a
     * view (autograd treats in-place ops on views differently, and the caller may write it). A final
     * reshape of a temporary the decomposition made becomes {@code _unsafe_view} (what ATen's
     * composites use); a result that aliases one of the op's inputs gets a copy.
     */
    private static Node ownResult(GraphModule gm, Node replaced, Node result) {
        if (!(result.target() instanceof OpOverload view) || !view.returnsAlias()) return result;
        Node root = result;
        while (root.target() instanceof OpOverload o && o.returnsAlias() && !root.args().isEmpty() && root.arg(0) instanceof Node in) root = in;
        if (replaced.allInputNodes().contains(root)) {
            try (InsertPoint ignored = gm.graph().insertingAfter(result)) {
                Node copy = gm.graph().callFunction(ShapeOps.CLONE, result);
                copy.setVal(result.val());
                copy.setSourceLocation(result.sourceLocation());
                return copy;
            }
        }
        if (view == ShapeOps.RESHAPE || view == ShapeOps.VIEW) {
            try (InsertPoint ignored = gm.graph().insertingAfter(result)) {
                Node own = gm.graph().callFunction(ShapeOps.UNSAFE_VIEW, result.args().get(0), result.args().get(1));
                own.setVal(result.val());
                own.setSourceLocation(result.sourceLocation());
                result.replaceAllUsesWith(own);
                gm.graph().eraseNode(result);
                return own;
            }
        }
        return result;
    }

    /** The node's arguments in schema order, keyword arguments placed and defaults filled in. */
    static Object[] positional(OpOverload op, Node n) {
        List<Object> values = new ArrayList<>(n.args());
        List<Schema.Param> params = op.schema().params();
        for (var kw : n.kwargs().entrySet()) {
            int i = 0;
            while (i < params.size() && !params.get(i).name().equals(kw.getKey())) i++;
            if (i == params.size()) throw new IllegalArgumentException(op.name() + " has no argument '" + kw.getKey() + "' (" + op.schema() + ")");
            while (values.size() <= i) values.add(Unset.UNSET);
            values.set(i, kw.getValue());
        }
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i) == Unset.UNSET) values.set(i, params.get(i).defaultValue());
        }
        return op.bind(values.toArray()).toArray();
    }

    private enum Unset { UNSET }
}
