package dev.ember.aot;

import dev.ember.fx.BuiltinFunctions;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.ops.OpOverload;
import dev.ember.ops.PointwiseOps;
import dev.ember.ops.ShapeOps;
import dev.ember.ops.Tag;
import dev.ember.tensor.Tensor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Splits a joint graph into the forward and the backward graph, choosing what the forward saves
 * for backward by a minimum cut (PyTorch's {@code min_cut_rematerialization_partition}, its default
 * with inductor): of everything backward reads, the forward saves the set of values with the
 * fewest bytes from which the rest can be recomputed in backward by cheap ops (pointwise ops and
 * views, constant factories). Matmuls, convolutions, reductions and random draws are never
 * recomputed; inputs cost nothing to save (they are alive anyway).
 *
 * <p>The network: each forward value {@code v} is an edge {@code v_in → v_out} whose capacity is
 * its size in bytes (cutting it = saving {@code v}); a use {@code u → v} is an infinite edge
 * {@code u_out → v_in}; values that must be computed in the forward hang from the source, values
 * backward reads hang into the sink. The cut's source side is computed in the forward; values on the
 * sink side that backward needs are recomputed there.
 */
final class Partitioner {
    private Partitioner() {}

    /**
     * One value the forward saves for backward: {@code value} as itself, or a copy the forward makes
     * ({@code copied}: an input the caller writes after the graph, or a value eager does not save
     * that the caller could write); {@code forRecompute} marks the second save of a value saved as
     * itself for the derivatives, a copy read by the recomputation alone ({@code twinForRecompute}).
     */
    record Saved(Node value, boolean copied, boolean forRecompute) {
        /** Its name in the log and the backward graph's placeholder. */
        String name() { return forRecompute ? value.name() + "_copy" : value.name(); }
    }

    /** The two graphs, the saved values (in the forward's order) and the recomputed ones, for the log. */
    record Result(GraphModule forward, GraphModule backward, List<Saved> saved, List<Node> recomputed, long savedBytes, long naiveBytes) {
        String report() {
            StringBuilder sb = new StringBuilder();
            sb.append("saved for backward: ").append(saved.size()).append(" values, ").append(savedBytes).append(" bytes")
                    .append(" (saving every value backward reads: ").append(naiveBytes).append(" bytes)\n");
            for (Saved s : saved) {
                Node n = s.value();
                sb.append(String.format("  save       %-24s %-16s %s%n", s.name(), describe(n),
                        s.forRecompute() ? "a copy, for the recomputation (the caller may write " + n.name() + " before backward)" : what(n)));
            }
            for (Node n : recomputed) sb.append(String.format("  recompute  %-24s %-16s %s%n", n.name(), describe(n), what(n)));
            return sb.toString();
        }
    }

    private static final long INF = Long.MAX_VALUE / 4;

    static Result partition(JointGraph joint) {
        Graph graph = joint.module.graph();
        List<Node> nodes = graph.nodes();
        Node outputNode = graph.outputNode();
        Set<Node> tangents = new HashSet<>(joint.tangents);
        Set<Node> backward = joint.backwardNodes;
        List<Node> forward = new ArrayList<>();
        for (Node n : nodes) if (!backward.contains(n) && !tangents.contains(n) && n != outputNode) forward.add(n);
        Set<Node> forwardSet = new HashSet<>(forward);

        // what backward reads from the forward
        List<Object> jointOutputs = (List<Object>) outputNode.arg(0);
        List<Object> gradOutputs = jointOutputs.subList(joint.outputs.size(), jointOutputs.size());
        LinkedHashSet<Node> needed = new LinkedHashSet<>();
        for (Node b : nodes) {
            if (!backward.contains(b)) continue;
            for (Node in : b.allInputNodes()) if (forwardSet.contains(in)) needed.add(in);
        }
        for (Object g : gradOutputs) if (g instanceof Node n && forwardSet.contains(n)) needed.add(n);
        // what eager saves: the values its derivatives read, and the tensors those are views of (a
        // view shares its base's version counter: eager refuses a write of the base as of the view)
        Set<Node> eagerSaves = new HashSet<>();
        for (Node n : needed) for (Node v = n; v != null && eagerSaves.add(v); v = viewedBase(v)) { }

        // A value backward compares for equality (amax/amin/maximum's tie masks) is saved, never
        // recomputed: a recomputation by another kernel may round differently, and one ulp turns
        // every tie mask to false (fuzzer, training mode: amin of a division got a zero gradient).
        Set<Node> compared = new HashSet<>();
        for (Node b : nodes) {
            if (!backward.contains(b) || !(b.target() == PointwiseOps.EQ_TENSOR || b.target() == PointwiseOps.NE_TENSOR)) continue;
            for (Node in : b.allInputNodes()) if (forwardSet.contains(in)) compared.add(in);
        }

        // the flow network: node i's in = 2i, out = 2i+1; source and sink after them
        Map<Node, Integer> index = new IdentityHashMap<>();
        for (int i = 0; i < forward.size(); i++) index.put(forward.get(i), i);
        int source = 2 * forward.size(), sink = source + 1;
        FlowNetwork net = new FlowNetwork(sink + 1);
        Set<Node> forwardOutputs = new HashSet<>();
        for (Object o : joint.outputs) if (o instanceof Node n) forwardOutputs.add(n);
        long naive = 0;
        for (Node n : forward) {
            int i = index.get(n);
            boolean list = n.val() instanceof List<?>;
            // ties (equal bytes) go to saving a value backward reads itself, which spares recomputing it
            long bytes = free(n, eagerSaves) ? 0 : list ? INF : bytes(n) * 1024 + (needed.contains(n) ? 0 : 1);
            net.add(2 * i, 2 * i + 1, bytes);
            if (!recomputable(n) || forwardOutputs.contains(n) || compared.contains(n)) net.add(source, 2 * i, INF);
            for (Node u : n.allInputNodes()) {
                Integer j = index.get(u);
                if (j != null) net.add(2 * j + 1, 2 * i, INF);
            }
            if (needed.contains(n)) {
                net.add(2 * i + 1, sink, INF);
                naive += free(n, eagerSaves) ? 0 : bytes(n);
            }
        }
        net.maxFlow(source, sink);
        boolean[] sourceSide = net.reachableFromSource(source);

        Set<Node> cut = new HashSet<>();
        for (Node n : forward) {
            int i = index.get(n);
            if (sourceSide[2 * i] && !sourceSide[2 * i + 1]) cut.add(n);
        }
        // recomputed: needed values on the sink side, with their sink-side ancestors; saved: the cut values they (or backward) read
        Set<Node> recompute = new HashSet<>();
        Set<Node> read = new HashSet<>(needed);
        ArrayDeque<Node> work = new ArrayDeque<>();
        for (Node n : needed) if (!cut.contains(n)) work.add(n);
        while (!work.isEmpty()) {
            Node n = work.pop();
            if (cut.contains(n) || !recompute.add(n)) continue;
            for (Node in : n.allInputNodes()) {
                if (!forwardSet.contains(in)) continue;
                read.add(in);
                if (!cut.contains(in)) work.add(in);
            }
        }
        // the saved values a recomputed value other than a view of them is computed from (through views)
        Set<Node> readByRecompute = new HashSet<>();
        for (Node r : recompute) {
            if (viewedBase(r) != null) continue;   // a view shares its base's version counter, as eager's saved view would
            for (Node in : r.allInputNodes()) {
                Node m = in;
                while (recompute.contains(m) && viewedBase(m) != null) m = viewedBase(m);
                if (cut.contains(m)) readByRecompute.add(m);
            }
        }
        List<Saved> saved = new ArrayList<>();
        long savedBytes = 0;
        for (Node n : forward) {
            if (cut.contains(n) && read.contains(n)) {
                saved.add(new Saved(n, savedAsCopy(n, eagerSaves, forwardOutputs), false));
                if (!free(n, eagerSaves)) savedBytes += bytes(n);
                // saved twice: itself for the derivatives eager runs, a copy for the recomputation (twinForRecompute)
                if (twinForRecompute(n, eagerSaves, forwardOutputs, readByRecompute)) {
                    saved.add(new Saved(n, true, true));
                    savedBytes += bytes(n);
                }
            }
        }
        List<Node> recomputed = new ArrayList<>();
        for (Node n : forward) if (recompute.contains(n)) recomputed.add(n);

        // the forward graph: its outputs, then the saved values
        Graph fg = new Graph();
        Map<Node, Node> fenv = new HashMap<>();
        for (Node n : forward) fenv.put(n, fg.nodeCopy(n, fenv::get));
        List<Object> forwardResult = new ArrayList<>();
        for (Object o : joint.outputs) forwardResult.add(o instanceof Node n ? fenv.get(n) : o);
        for (Saved s : saved) forwardResult.add(s.copied() ? fg.callFunction(ShapeOps.CLONE, fenv.get(s.value())) : fenv.get(s.value()));
        fg.output(forwardResult);
        fg.eliminateDeadCode();

        // the backward graph: saved values and tangents in, recomputation, then the backward nodes
        Graph bg = new Graph();
        Map<Node, Node> benv = new HashMap<>();
        Map<Node, Node> twinCopies = new HashMap<>();
        for (Saved s : saved) (s.forRecompute() ? twinCopies : benv).put(s.value(), bg.placeholder(s.name(), s.value().val()));
        for (Node t : joint.tangents) benv.put(t, bg.placeholder(t.name(), t.val()));
        for (Node n : recomputed) benv.put(n, bg.nodeCopy(n, in -> twinCopies.getOrDefault(in, benv.get(in))));
        for (Node n : nodes) if (backward.contains(n)) benv.put(n, bg.nodeCopy(n, benv::get));
        List<Object> backwardResult = new ArrayList<>();
        for (Object g : gradOutputs) backwardResult.add(g instanceof Node n ? benv.get(n) : g);
        bg.output(backwardResult);
        bg.eliminateDeadCode();

        GraphModule gm = joint.module;
        GraphModule f = new GraphModule(gm.className() + "Forward", fg, gm.attributes(), gm.submodules());
        GraphModule b = new GraphModule(gm.className() + "Backward", bg, gm.attributes(), gm.submodules());
        return new Result(f, b, saved, recomputed, savedBytes, naive);
    }

    /**
     * An input saved as itself: it is alive anyway. Only one eager saves too ({@code eagerSaves}: a
     * derivative reads it or a view of it), so that a write by the caller before backward trips the
     * version check in both alike; and not one the graph writes ({@link Functionalize#MUTATED_INPUT}),
     * whose new value backward would read. Any other input costs its bytes like a computed value,
     * and is saved as a copy ({@link #savedAsCopy}).
     */
    private static boolean free(Node n, Set<Node> eagerSaves) { return n.kind() == NodeKind.PLACEHOLDER && !mutated(n) && eagerSaves.contains(n); }

    /**
     * Whether the forward saves a copy of {@code n} rather than {@code n} itself: an input the graph
     * writes, or a value the caller can write before backward (an input, an output, or a view of
     * one) that eager does not save, the cut having chosen it to recompute others from. Eager saves
     * only what its derivatives read; saved as itself, such a value would make the compiled backward
     * refuse a write that eager allows, or read the written value (the fuzzer's seeds 53938, 270826,
     * 290152: {@code where(v0 > 0.15, a0, v0)} saved {@code v0} to recompute its mask, and the
     * caller's {@code v0.slice(…).relu_()} then failed the version check).
     */
    private static boolean savedAsCopy(Node n, Set<Node> eagerSaves, Set<Node> forwardOutputs) {
        if (mutated(n)) return true;
        return !eagerSaves.contains(n) && callerCanWrite(n, forwardOutputs);
    }

    /** An input, an output, or a view of one: a tensor the caller holds and can write before backward. */
    private static boolean callerCanWrite(Node n, Set<Node> forwardOutputs) {
        for (Node v = n; v != null; v = viewedBase(v)) {
            if (v.kind() == NodeKind.PLACEHOLDER || forwardOutputs.contains(v)) return true;
        }
        return false;
    }

    /**
     * Whether {@code n}, saved as itself because eager saves it too (a derivative reads it), is also
     * read by the recomputation of a value that is not a view of it, while the caller can write it
     * before backward (an input, an output, or a view of one): then the recomputation reads a copy
     * saved beside it. (A view recomputed from {@code n}, a weight's transpose say, stands for a view
     * eager saved, which shares {@code n}'s version counter: no copy.) Eager reads such a value
     * only in the derivatives that save it, and checks its version only when one of them runs; the
     * recomputation stands for values eager saved instead (fuzzer seed 463913: {@code v3 = sigmoid(a0)}
     * was saved for sigmoid's derivative and to recompute {@code maskedFill}'s mask {@code v3 > 0.15};
     * the caller's {@code v3.clamp_(…)} then failed the version check in the mask's recomputation,
     * where eager, which saved the mask, ran no derivative that reads {@code v3}).
     */
    private static boolean twinForRecompute(Node n, Set<Node> eagerSaves, Set<Node> forwardOutputs, Set<Node> readByRecompute) {
        return readByRecompute.contains(n) && !savedAsCopy(n, eagerSaves, forwardOutputs) && callerCanWrite(n, forwardOutputs);
    }

    /**
     * The tensor {@code n} is a view of (its first argument), or null when {@code n} is no view op.
     * {@code reshape} and {@code _unsafe_view} count where their input's strides allow a view (a
     * contiguous input, linear's reshape of it, which eager saves as a view sharing the input's
     * version counter) and not where they copy: eager then saves the copy, which the caller cannot
     * write (fuzzer seeds 1001654, 1001278: an LSTM's input projection reshaped a transposed input,
     * and taking the copy for a view saved the input itself, so the caller's {@code a0.mul_(0.5)}
     * after the forward failed only the compiled backward's version check).
     */
    private static Node viewedBase(Node n) {
        if (!(n.target() instanceof OpOverload op)) return null;
        String name = op.schema().name();
        boolean reshaping = name.equals("reshape") || name.equals("_unsafe_view");
        if (!(op.hasTag(Tag.VIEW) || name.equals("expand") || reshaping)) return null;
        if (n.args().isEmpty() || !(n.arg(0) instanceof Node base)) return null;
        if (reshaping && base.val() instanceof Tensor in && n.val() instanceof Tensor out
                && ShapeOps.viewStrides(in.shape(), in.strides(), out.shape()) == null) return null;
        return base;
    }

    /** An input the caller writes after the graph: saved for backward as a copy the forward graph makes, never as itself. */
    static boolean mutated(Node n) { return n.kind() == NodeKind.PLACEHOLDER && Boolean.TRUE.equals(n.meta().get(Functionalize.MUTATED_INPUT)); }

    /** Cheap to run again in backward: pointwise ops and views (never random ones). */
    private static boolean recomputable(Node n) {
        if (n.kind() == NodeKind.PLACEHOLDER) return false;
        if (n.target() == BuiltinFunctions.GETITEM) return true;
        if (!(n.target() instanceof OpOverload op)) return false;
        if (op.hasTag(Tag.NONDETERMINISTIC)) return false;
        return op.hasTag(Tag.POINTWISE) || op.hasTag(Tag.VIEW) || op.hasTag(Tag.FACTORY)
                || op.schema().name().equals("reshape") || op.schema().name().equals("_unsafe_view") || op.schema().name().equals("expand");
    }

    private static long bytes(Node n) {
        if (n.val() instanceof Tensor t) return (long) Math.max(1, t.numel()) * t.dtype().itemSize();
        return 8;
    }

    private static String describe(Node n) { return n.val() instanceof Tensor t ? t.meta().describe() : String.valueOf(n.val()); }

    private static String what(Node n) {
        if (n.kind() == NodeKind.PLACEHOLDER) return "input";
        return String.valueOf(n.target());
    }

    /** A small max-flow (Edmonds–Karp: shortest augmenting paths) over long capacities. */
    private static final class FlowNetwork {
        private final int n;
        private final List<int[]> edges = new ArrayList<>();      // {from, to}
        private final List<long[]> capacity = new ArrayList<>();  // residual capacity per edge; edge i^1 is its reverse
        private final List<List<Integer>> adjacent;

        FlowNetwork(int n) {
            this.n = n;
            adjacent = new ArrayList<>(n);
            for (int i = 0; i < n; i++) adjacent.add(new ArrayList<>());
        }

        void add(int from, int to, long cap) {
            adjacent.get(from).add(edges.size());
            edges.add(new int[] {from, to});
            capacity.add(new long[] {cap});
            adjacent.get(to).add(edges.size());
            edges.add(new int[] {to, from});
            capacity.add(new long[] {0});
        }

        void maxFlow(int s, int t) {
            int[] via = new int[n];
            while (true) {
                Arrays.fill(via, -1);
                ArrayDeque<Integer> queue = new ArrayDeque<>();
                queue.add(s);
                boolean[] seen = new boolean[n];
                seen[s] = true;
                while (!queue.isEmpty() && !seen[t]) {
                    int u = queue.poll();
                    for (int e : adjacent.get(u)) {
                        int v = edges.get(e)[1];
                        if (!seen[v] && capacity.get(e)[0] > 0) {
                            seen[v] = true;
                            via[v] = e;
                            queue.add(v);
                        }
                    }
                }
                if (!seen[t]) return;
                long push = INF;
                for (int v = t; v != s; v = edges.get(via[v])[0]) push = Math.min(push, capacity.get(via[v])[0]);
                if (push >= INF) throw new IllegalStateException("partitioner: a value backward needs cannot be saved (infinite cut)");
                for (int v = t; v != s; v = edges.get(via[v])[0]) {
                    capacity.get(via[v])[0] -= push;
                    capacity.get(via[v] ^ 1)[0] += push;
                }
            }
        }

        boolean[] reachableFromSource(int s) {
            boolean[] seen = new boolean[n];
            ArrayDeque<Integer> queue = new ArrayDeque<>();
            queue.add(s);
            seen[s] = true;
            while (!queue.isEmpty()) {
                int u = queue.poll();
                for (int e : adjacent.get(u)) {
                    int v = edges.get(e)[1];
                    if (!seen[v] && capacity.get(e)[0] > 0) {
                        seen[v] = true;
                        queue.add(v);
                    }
                }
            }
            return seen;
        }
    }
}
