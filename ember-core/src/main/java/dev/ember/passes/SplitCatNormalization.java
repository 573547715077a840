package dev.ember.passes;

import dev.ember.fx.BuiltinFunctions;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.InsertPoint;
import dev.ember.fx.Node;
import dev.ember.fx.NodeEmitter;
import dev.ember.ops.ShapeOps;
import dev.ember.tensor.Tensor;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * PyTorch's split-cat passes, the exact part: every split and chunk becomes
 * {@code split_with_sizes} with its sizes spelled out and a non-negative dim (normalize_split), so
 * that one pattern sees them all; then a {@code cat} that glues consecutive pieces of one split back
 * together, in order and along the split's dim, becomes the split's input (all pieces) or a slice of
 * it (a run of pieces), and a cat of one tensor becomes that tensor. Each saves a copy.
 * <p>
 * A cat makes a fresh contiguous tensor; the input or slice that replaces it shares memory with
 * what was split and may have other strides. So the cat goes only where nothing can tell
 * ({@link Aliasing}): nothing writes into that memory, and either every reader reads values only,
 * or the layout is the same and the user is not handed memory they could reach another way.
 */
final class SplitCatNormalization {
    private SplitCatNormalization() {}

    static final GraphPass PASS = new GraphPass("split_cat_normalization",
            "split and chunk as split_with_sizes; cat of consecutive split pieces as the split input or a slice of it; cat of one tensor as that tensor",
            false, false, SplitCatNormalization::run);

    static boolean run(GraphModule gm) {
        Graph g = gm.graph();
        boolean changed = false;
        for (Node n : g.nodes()) if (!n.isErased() && normalizeSplit(g, n)) changed = true;
        for (Node n : g.nodes()) if (!n.isErased() && n.target() == ShapeOps.CAT && removeCat(g, n)) changed = true;
        return changed;
    }

    /** split(x, size, d) and chunk(x, n, d) as split_with_sizes(x, sizes, d ≥ 0), the sizes read off the pieces. */
    private static boolean normalizeSplit(Graph g, Node n) {
        boolean split = n.target() == ShapeOps.SPLIT || n.target() == ShapeOps.CHUNK;
        if (!split && n.target() != ShapeOps.SPLIT_WITH_SIZES || !n.kwargs().isEmpty()) return false;
        if (!(n.arg(0) instanceof Node x) || !(x.val() instanceof Tensor in) || !(n.val() instanceof List<?> pieces)) return false;
        int dim = dim(n, 2, in.dim());
        if (!split && n.arg(1) instanceof int[] && n.args().size() == 3 && ((Number) n.arg(2)).intValue() == dim) return false;   // already normal
        int[] sizes = pieces.stream().mapToInt(p -> ((Tensor) p).size(dim)).toArray();
        Node normal;
        try (InsertPoint at = g.insertingBefore(n)) {
            normal = g.callFunction(ShapeOps.SPLIT_WITH_SIZES, x, sizes, (long) dim);
        }
        normal.meta().putAll(n.meta());
        n.replaceAllUsesWith(normal);
        g.eraseNode(n);
        return true;
    }

    /** The dim argument at {@code index} (0 when left to its default), counted from the front. */
    private static int dim(Node n, int index, int rank) {
        int d = n.args().size() > index ? ((Number) n.arg(index)).intValue() : 0;
        return d < 0 ? d + rank : d;
    }

    /** Replaces {@code cat} by what it copies when that is exact; see the class comment. */
    private static boolean removeCat(Graph g, Node cat) {
        if (!cat.kwargs().isEmpty() || !(cat.arg(0) instanceof List<?> parts) || !(cat.val() instanceof Tensor out)) return false;
        Node source;
        Range range = null;
        if (parts.size() == 1 && parts.getFirst() instanceof Node one) source = one;
        else if ((range = Range.of(parts, dim(cat, 1, out.dim()))) != null) source = range.input();
        else return false;
        if (!(source.val() instanceof Tensor)) return false;
        Node r = source;
        if (range != null && !range.whole()) {
            try (InsertPoint at = g.insertingBefore(cat)) {
                r = (Node) new NodeEmitter(g, cat.sourceLocation()).call(ShapeOps.SLICE, source, (long) range.dim(), (long) range.start(), (long) range.end());
            }
        }
        if (!exact(g, cat, source, r.val())) {
            if (r != source) g.eraseNode(r);
            return false;
        }
        cat.replaceAllUsesWith(r);
        g.eraseIfUnused(cat);
        return true;
    }

    /**
     * Whether a tensor sharing {@code source}'s memory, laid out as {@code result}, can stand for
     * {@code cat}: nothing writes into either's memory, and the readers read values only, or the
     * layout is cat's and a returned result cannot meet {@code source}'s memory elsewhere.
     */
    private static boolean exact(Graph g, Node cat, Node source, Object result) {
        Set<Node> sourceAliases = Aliasing.aliasesOf(source), catAliases = Aliasing.aliasesOf(cat);
        Set<Node> both = new HashSet<>(sourceAliases);
        both.addAll(catAliases);
        if (Aliasing.anyWritten(g, both)) return false;
        if (Aliasing.onlyValueUsers(cat)) return true;
        if (!Aliasing.sameLayout(result, cat.val())) return false;
        return !Aliasing.anyReturned(g, catAliases) || !Aliasing.anyFromOutside(sourceAliases) && !Aliasing.anyReturned(g, sourceAliases);
    }

    /** Pieces {@code first..last} (consecutive, in order) of one normalized split of {@code input} along {@code dim}. */
    private record Range(Node input, int dim, int start, int end, boolean whole) {
        static Range of(List<?> parts, int catDim) {
            Node split = null;
            int next = -1;
            for (Object p : parts) {
                if (!(p instanceof Node item) || item.target() != BuiltinFunctions.GETITEM || !(item.arg(0) instanceof Node s)) return null;
                int index = ((Number) item.arg(1)).intValue();   // a negative index counts from the end: not matched
                if (split == null) {
                    split = s;
                    next = index;
                }
                if (s != split || index != next || index < 0) return null;
                next++;
            }
            if (split == null || split.target() != ShapeOps.SPLIT_WITH_SIZES || split.args().size() != 3) return null;    // normalized: all arguments spelled out
            if (!(split.arg(0) instanceof Node input) || !(split.arg(1) instanceof int[] sizes)) return null;
            if (((Number) split.arg(2)).intValue() != catDim) return null;
            int first = ((Number) ((Node) parts.getFirst()).arg(1)).intValue();
            int start = 0, end = 0;
            for (int i = 0; i < next; i++) {
                if (i < first) start += sizes[i];
                end += sizes[i];
            }
            return new Range(input, catDim, start, end, first == 0 && next == sizes.length);
        }
    }
}
