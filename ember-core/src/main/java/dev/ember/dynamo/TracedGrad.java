package dev.ember.dynamo;

import dev.ember.fx.BuiltinFunctions;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.Tensor;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Whether a tensor the trace computed requires grad, by autograd's rules applied to the graph: it
 * does when it is a floating-point result of ops recorded with grad mode on, on a differentiable
 * path from an input that requires grad ({@code detach}, integer results, non-differentiable
 * outputs and arguments cut the path). Eagerly {@code y.requiresGrad()} answers the same.
 */
final class TracedGrad {
    private TracedGrad() {}

    /**
     * True or false where autograd's rules decide it from the graph; null where they cannot: a
     * path from an input that requires grad in a trace whose grad mode changed (a scope opened or
     * closed), since which ops recorded then depends on where each ran.
     */
    static Boolean requiresGrad(TraceContext ctx, Node n) {
        Boolean input = ctx.inputRequiresGrad.get(n);
        if (input != null) return input;
        if (!floating(n)) return false;
        if (!reachesInputRequiringGrad(ctx, n)) return false;
        boolean modeNeverChanged = ctx.gradEnabled == ctx.gradEnabledAtEntry
                && ctx.graph.graph().nodes().stream().noneMatch(x -> x.target() == BuiltinFunctions.SET_GRAD_ENABLED);
        return modeNeverChanged ? ctx.gradEnabledAtEntry : null;
    }

    private static boolean floating(Node n) { return n.val() instanceof Tensor t && t.dtype().isFloatingPoint(); }

    private static boolean reachesInputRequiringGrad(TraceContext ctx, Node start) {
        ArrayDeque<Node> work = new ArrayDeque<>(List.of(start));
        Set<Node> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        while (!work.isEmpty()) {
            Node n = work.pop();
            if (!seen.add(n)) continue;
            Boolean input = ctx.inputRequiresGrad.get(n);
            if (input != null) {
                if (input) return true;
                continue;
            }
            // a constant held by the graph: its flag as captured (a tensor literal's is false)
            if (n.kind() == NodeKind.GET_ATTR && n.val() instanceof Tensor t && t.requiresGrad()) return true;
            if (n.kind() == NodeKind.PLACEHOLDER || n.kind() == NodeKind.GET_ATTR) continue;
            if (n.target() == BuiltinFunctions.GETITEM) {
                if (n.arg(0) instanceof Node of && of.target() instanceof OpOverload op && n.arg(1) instanceof Number i && !op.differentiableOutput(i.intValue())) continue;
                if (!floating(n) && !(n.val() instanceof List<?>)) continue;
                if (n.arg(0) instanceof Node of) work.push(of);
                continue;
            }
            if (n.target() instanceof OpOverload op) {
                if (n.val() instanceof Tensor && (!floating(n) || !op.differentiableOutput(0))) continue;
                for (int i = 0; i < n.args().size(); i++) {
                    if (!op.differentiableArgument(i)) continue;
                    Object a = n.arg(i);
                    if (a instanceof Node in) work.push(in);
                    else if (a instanceof List<?> l) for (Object x : l) if (x instanceof Node in) work.push(in);
                }
                continue;
            }
            work.addAll(n.allInputNodes());
        }
        return false;
    }
}
