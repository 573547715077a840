package dev.ember.aot;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.InsertPoint;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.ops.OpOverload;
import dev.ember.ops.OpRegistry;
import dev.ember.ops.Schema;
import dev.ember.ops.ShapeOps;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Removes in-place and out= ops from a graph, as AOTAutograd's functionalization does, for the
 * mutations a compiler can rewrite without changing what anyone observes: {@code b = a.add_(1)} on
 * an intermediate {@code a} becomes the functional {@code b = add(a, 1)} (cast back to {@code a}'s
 * dtype when the functional op would promote), and every later use of {@code a} reads {@code b};
 * {@code add.out(x, y, out=o)} on an intermediate {@code o} becomes {@code add(x, y)} (cast to
 * {@code o}'s dtype) in the same way.
 *
 * <p>A mutation the caller or another tensor can see — of a graph input, a parameter or buffer, a
 * view, or a tensor that a view shares memory with — is not rewritten: {@link #run} throws
 * {@link NotFunctional} naming the op and its source line, and the caller runs the graph as it is
 * (the interpreter mutates memory exactly as eager does). Nodes must carry fake values.
 */
public final class Functionalize {
    private Functionalize() {}

    /** A mutation this pass cannot rewrite; the message says which op, where, and why. */
    public static final class NotFunctional extends RuntimeException {
        NotFunctional(String message) { super(message); }
    }

    /**
     * Rewrites each batch_norm in training mode that updates running statistics (its schema does
     * not say it writes them, ATen's own {@code native_batch_norm} does) into
     * {@code _batch_norm_functional} and two {@code copy_}s of the new statistics into the old, which
     * the in-place rewrites below then treat as any other mutation. Without it a batch_norm whose
     * output nobody reads was removed as dead code with its update, and a compiler free to move the
     * reads of a statistic could read it after the update (fuzzer seeds 80031, 82657).
     */
    public static void functionalBatchNorm(Graph graph, java.util.function.Predicate<Node> mayRewrite) {
        for (Node n : graph.nodes()) {
            List<Object> stats = n.writtenStatistics();
            if (stats.size() != 2 || !(stats.get(0) instanceof Node mean) || !(stats.get(1) instanceof Node var)) continue;
            Object[] args = DecomposePass.positional(dev.ember.ops.NormOps.BATCH_NORM, n);
            if (statisticsShareMemory(n) || !mayRewrite.test(mean) || !mayRewrite.test(var)) continue;
            if (!(mean.val() instanceof Tensor) || !(var.val() instanceof Tensor) || !(n.val() instanceof Tensor)) continue;
            Node value;
            try (InsertPoint ignored = graph.insertingBefore(n)) {
                Node functional = call(graph, n, dev.ember.ops.NormOps.BATCH_NORM_FUNCTIONAL, new ArrayList<>(java.util.Arrays.asList(args)), Map.of());
                value = getitem(graph, functional, 0, n);
                call(graph, n, ShapeOps.COPY_, List.of(mean, getitem(graph, functional, 1, n)), Map.of());
                call(graph, n, ShapeOps.COPY_, List.of(var, getitem(graph, functional, 2, n)), Map.of());
            }
            n.replaceAllUsesWith(value);
            graph.eraseNode(n);
        }
    }

    /**
     * Whether a batch_norm in training writes a running statistic that shares memory with the other
     * statistic, its input, its weight or its bias (the same tensor, or views of one). Such a call
     * stays as it is, in place: one tensor as both statistics is written twice in one kernel, and a
     * statistic that is also the weight or bias is read by the kernel after its update (eager's
     * order, ATen's too), which a functional rewrite would read before (fuzzer seed 600315).
     */
    public static boolean statisticsShareMemory(Node n) {
        List<Object> stats = n.writtenStatistics();
        if (stats.size() != 2 || !(stats.get(0) instanceof Node mean) || !(stats.get(1) instanceof Node var)) return false;
        if (sameMemory(mean, var)) return true;
        Object[] args = DecomposePass.positional(dev.ember.ops.NormOps.BATCH_NORM, n);
        for (int i = 0; i <= 2; i++) {
            if (args[i] instanceof Node read && (sameMemory(read, mean) || sameMemory(read, var))) return true;
        }
        return false;
    }

    /**
     * Why inductor cannot lower this batch_norm, which still writes its running statistics in place
     * after functionalization, or null (not such a call, or both statistics graph inputs, which the
     * input write-back orders): a statistic shared with another argument ({@link #statisticsShareMemory}),
     * or one the graph computed, whose later readers would recompute it from values the update may
     * have changed (fuzzer seed 613256).
     */
    public static String inPlaceStatisticsNotLowered(Node n) {
        List<Object> stats = n.writtenStatistics();
        if (stats.isEmpty()) return null;
        if (statisticsShareMemory(n)) return "writes a running statistic that is also another of its arguments";
        if (stats.stream().anyMatch(s -> !(s instanceof Node x && x.kind() == NodeKind.PLACEHOLDER))) {
            return "writes, in place, a running statistic the graph computed";
        }
        return null;
    }

    /** Whether two values are the same tensor or views of one (each followed back through the views that made it). */
    private static boolean sameMemory(Node a, Node b) { return viewBase(a) == viewBase(b); }

    private static Node viewBase(Node n) {
        while (n.aliasesFirstArgument() && n.args().getFirst() instanceof Node in) n = in;
        return n;
    }

    /**
     * A batch_norm in training that still writes its running statistics in place after
     * {@link #functionalBatchNorm} (one tensor as both statistics, or a statistic that is also its input, weight or bias; statistics that require grad
     * never reach here, see AotAutograd), described for the log; null when there is none. A joint
     * graph would take it for a pure op, its update lost or moved (fuzzer seed 101628).
     */
    public static String batchNormUpdatingInPlace(Graph graph) {
        for (Node n : graph.nodes()) {
            if (!n.writtenStatistics().isEmpty()) {
                String why = inPlaceStatisticsNotLowered(n);
                // statistics that are graph inputs: capture rewrites such writes before AOT (dynamo's InputMutations); a graph handed to AOT directly keeps them
                if (why == null) why = "writes running statistics that are graph inputs, in place";
                return "batch_norm in training (" + n.name() + (n.sourceLocation() == null ? "" : ", " + n.sourceLocation()) + ") updates its running statistics in place: it " + why;
            }
        }
        return null;
    }

    private static Node getitem(Graph graph, Node of, int i, Node at) {
        Node g = graph.callFunction(dev.ember.fx.BuiltinFunctions.GETITEM, List.of(of, i), Map.of());
        g.setSourceLocation(at.sourceLocation());
        g.setVal(((List<?>) of.val()).get(i));
        return g;
    }

    /** Rewrites every in-place and out= call; returns how many were rewritten. */
    public static int run(GraphModule gm) {
        Graph graph = gm.graph();
        // statistics that are graph inputs were rewritten with the inputs' other writes, or stay written in place (see InputMutations)
        functionalBatchNorm(graph, stat -> stat.kind() != NodeKind.PLACEHOLDER);
        int rewritten = 0;
        for (Node n : graph.nodes()) {
            if (n.kind() != NodeKind.CALL_FUNCTION || !(n.target() instanceof OpOverload op) || op.writtenArg() < 0) continue;
            if (!(DecomposePass.positional(op, n)[op.writtenArg()] instanceof Node self)) throw notFunctional(n, op, "an argument that is not a graph value");
            String aliasing = aliasing(self, n);
            if (aliasing != null) throw notFunctional(n, op, aliasing);
            Node result;
            try (InsertPoint ignored = graph.insertingBefore(n)) {
                result = functionalCall(graph, n, op, self);
            }
            for (Node user : List.copyOf(self.users())) {
                if (user != n && comesAfter(user, n)) user.replaceInputWith(self, result);
            }
            n.replaceAllUsesWith(result);
            graph.eraseNode(n);
            rewritten++;
        }
        return rewritten;
    }

    /**
     * Rewrites the in-place and out= calls that write a graph input directly (not through a view)
     * into functional ops, and returns each mutated input with the node holding its final value: the
     * caller copies that value back into the input after the graph runs (Dynamo's side effect), as
     * AOTAutograd's runtime wrapper does for mutated inputs. Inputs that a view op also reads stay
     * mutated in place (a view would see the old value), as do those {@code mayRewrite} refuses
     * (e.g. an input sharing memory with another). Nodes must carry fake values.
     */
    /**
     * The meta key marking a graph input that {@link #rewriteInputMutations} rewrote: the caller
     * writes its final value back after the graph, so its value changes when the graph has run, and
     * backward must not read it then (the partitioner saves a copy, or the values computed from it).
     */
    public static final String MUTATED_INPUT = "mutated_input";

    /**
     * The meta key on a graph input whose final value the graph returns as output {@code j} (an
     * Integer), for the caller to copy into the input after the graph: a compiler may instead store
     * that value in the input's own memory and return the input itself (inductor does, when the
     * kernel computing it is the input's last reader and reads it element for element), and the
     * caller then has nothing to copy.
     */
    public static final String WRITTEN_BACK_FROM_OUTPUT = "written_back_from_output";

    public static java.util.LinkedHashMap<Node, Node> rewriteInputMutations(Graph graph, java.util.function.Predicate<Node> mayRewrite) {
        return rewriteInputMutations(graph, mayRewrite, mayRewrite);
    }

    /**
     * {@link #rewriteInputMutations(Graph, java.util.function.Predicate)}, rewriting batch_norm's
     * update of statistics that are graph inputs only where {@code statisticsMayBeRewritten} allows:
     * not for statistics that require grad, whose later reads eager differentiates into the
     * statistics themselves (their update is no part of their history), which a functional value
     * cannot say.
     */
    public static java.util.LinkedHashMap<Node, Node> rewriteInputMutations(Graph graph, java.util.function.Predicate<Node> mayRewrite,
                                                                           java.util.function.Predicate<Node> statisticsMayBeRewritten) {
        functionalBatchNorm(graph, stat -> stat.kind() != NodeKind.PLACEHOLDER || statisticsMayBeRewritten.test(stat));
        java.util.LinkedHashMap<Node, Node> finalValues = new java.util.LinkedHashMap<>();
        for (Node n : graph.nodes()) {
            if (n.kind() != NodeKind.CALL_FUNCTION || !(n.target() instanceof OpOverload op) || op.writtenArg() < 0) continue;
            if (!(DecomposePass.positional(op, n)[op.writtenArg()] instanceof Node written)) continue;
            Node input = finalValues.entrySet().stream().filter(e -> e.getValue() == written).map(java.util.Map.Entry::getKey).findFirst()
                    .orElse(written.kind() == NodeKind.PLACEHOLDER ? written : null);
            if (input == null || !(written.val() instanceof Tensor) || !mayRewrite.test(input) || readByAView(input) || readByAView(written)) continue;
            Node result;
            try (InsertPoint ignored = graph.insertingBefore(n)) {
                result = functionalCall(graph, n, op, written);
            }
            for (Node user : List.copyOf(written.users())) {
                if (user != n && comesAfter(user, n)) user.replaceInputWith(written, result);
            }
            n.replaceAllUsesWith(result);
            graph.eraseNode(n);
            finalValues.put(input, result);
            input.meta().put(MUTATED_INPUT, Boolean.TRUE);
        }
        return finalValues;
    }

    private static boolean readByAView(Node value) {
        for (Node user : value.users()) {
            if (user.aliasesFirstArgument()) return true;
        }
        return false;
    }

    /** Why mutating {@code self} would be seen outside the value itself; null when it would not. */
    private static String aliasing(Node self, Node mutation) {
        switch (self.kind()) {
            case PLACEHOLDER -> { return "the graph input '" + self.name() + "'"; }
            case GET_ATTR -> { return "the parameter or buffer '" + self.target() + "'"; }
            case CALL_FUNCTION -> { }
            default -> { return "'" + self.name() + "', the result of a " + self.kind() + " node"; }
        }
        if (!(self.target() instanceof OpOverload producer)) return "'" + self.name() + "', the result of " + self.target();
        if (self.aliasesFirstArgument()) return "'" + self.name() + "', a view made by " + producer.name();
        for (Node user : self.users()) {
            if (user != mutation && user.aliasesFirstArgument()) {
                return "'" + self.name() + "', which the view '" + user.name() + "' shares memory with";
            }
        }
        return null;
    }

    private static Node functionalCall(Graph graph, Node n, OpOverload op, Node self) {
        Tensor before = (Tensor) self.val();
        Node result;
        if (op == ShapeOps.COPY_) {
            Node src = (Node) n.arg(1);
            boolean sameShape = java.util.Arrays.equals(((Tensor) src.val()).shape(), before.shape());
            result = sameShape ? src : call(graph, n, ShapeOps.EXPAND, List.of(src, before.shape()), Map.of());
        } else if (op.schema().kind() == Schema.Kind.OUT) {
            OpOverload functional = OpRegistry.functionalOf(op);
            if (functional == null) throw notFunctional(n, op, "an op with no functional variant");
            List<Object> args = new ArrayList<>(java.util.Arrays.asList(DecomposePass.positional(op, n)));   // None defaults are nulls
            args.remove(op.writtenArg());
            result = call(graph, n, functional, args, Map.of());
        } else {
            OpOverload functional = OpRegistry.functionalOf(op);
            if (functional == null) throw notFunctional(n, op, "an op with no functional variant");
            result = call(graph, n, functional, n.args(), n.kwargs());
        }
        if (((Tensor) result.val()).dtype() != before.dtype() || op == ShapeOps.COPY_) {
            result = call(graph, n, ShapeOps.TO_COPY, List.of(result, before.dtype()), Map.of());
        }
        return result;
    }

    /** A new node calling {@code op}, with its fake value and the mutation's source line. */
    private static Node call(Graph graph, Node at, OpOverload op, List<Object> args, Map<String, Object> kwargs) {
        Node node = graph.callFunction(op, args, kwargs);
        node.setSourceLocation(at.sourceLocation());
        Object[] fakeArgs = java.util.Arrays.stream(DecomposePass.positional(op, node)).map(Functionalize::fakeOf).toArray();
        node.setVal(op.call(fakeArgs));
        return node;
    }

    /** A graph argument's fake value (to run the functional op's meta function on). */
    private static Object fakeOf(Object arg) {
        return switch (arg) {
            case Node x -> x.val();
            case List<?> l -> l.stream().map(Functionalize::fakeOf).toList();
            case null, default -> arg;
        };
    }

    private static boolean comesAfter(Node user, Node mutation) {
        for (Node x = mutation.next(); x != null; x = x.next()) if (x == user) return true;
        return false;
    }

    private static NotFunctional notFunctional(Node n, OpOverload op, String what) {
        String where = n.sourceLocation() == null ? "" : " at " + n.sourceLocation().fileAndLine();
        return new NotFunctional(op.name() + " ('" + n.name() + "'" + where + ") mutates " + what);
    }
}
