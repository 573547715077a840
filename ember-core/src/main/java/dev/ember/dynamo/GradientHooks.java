package dev.ember.dynamo;

import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.LambdaVariable;
import dev.ember.dynamo.variables.ModuleVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.UserObjectVariable;
import dev.ember.dynamo.variables.VariableTracker;

import java.util.List;

/**
 * {@code x.registerHook(hook)} on a graph input, traced as Dynamo traces {@code register_hook} on
 * an input: the registration is a side effect, made on the caller's tensor after the graph has
 * run. The graph's backward sends the gradient of every use of the input in the graph to that
 * tensor's gradient edge, where the hook then sees it, as in eager. The returned handle is a value
 * of the trace until the graph has run: {@code remove()} on it is recorded in order with the
 * registrations, and a handle that leaves the trace (returned, stored, live across a break) is the
 * one the replayed registration returned.
 *
 * <p>A hook on a tensor the graph computes still runs as one eager call (a graph break): the graph's
 * backward would send that tensor's gradient past a hook put on it afterwards.
 */
final class GradientHooks {
    private GradientHooks() {}

    private static final String REGISTER = "dev.ember.autograd.Autograd.registerHook";

    /** A hook registration made in the trace, what the trace holds for the handle it returns (in a {@link ConstantVariable}). */
    static final class Pending {
        final TensorVariable tensor;
        final VariableTracker hook;

        Pending(TensorVariable tensor, VariableTracker hook) {
            this.tensor = tensor;
            this.hook = hook;
        }

        @Override
        public String toString() { return "the handle of a hook on " + tensor.source().name(); }
    }

    /** A registration or a removal, replayed in the order the trace made them. */
    record Op(Pending registration, boolean remove) {}

    /**
     * The handle of {@code Autograd.registerHook(tensor, hook)} when it is recorded (a graph input
     * that requires grad, a hook that can be made again after the graph), or null when the call runs
     * as one eager call instead.
     */
    static VariableTracker record(TraceContext ctx, ClassFiles.Resolved r, List<VariableTracker> args) {
        if (!(r.declaringClass().getName() + "." + r.method().methodName().stringValue()).equals(REGISTER) || args.size() != 2) return null;
        if (!(args.get(0) instanceof TensorVariable t) || t.source() == null || t.node() == null
                || t.node().kind() != dev.ember.fx.NodeKind.PLACEHOLDER) return null;
        if (!Boolean.TRUE.equals(TracedGrad.requiresGrad(ctx, t.node()))) return null;   // eager's refusal, from the eager call
        if (!remadeAfterTheGraph(args.get(1))) return null;
        Pending p = new Pending(t, args.get(1));
        ctx.sideEffects.hookOp(new Op(p, false));
        return ConstantVariable.of(p);
    }

    /** Whether the rebuilders can make the hook again after the graph: a lambda or method reference, or an object from the inputs. */
    private static boolean remadeAfterTheGraph(VariableTracker hook) {
        return switch (hook) {
            case LambdaVariable l -> l.source() != null || l.site() != null;
            case UserObjectVariable u -> u.source() != null;
            case ModuleVariable m -> m.source() != null;
            default -> false;
        };
    }

    /** A method of the handle of a registration made in this trace. */
    static VariableTracker handleMethod(TraceContext ctx, Pending p, String name, List<VariableTracker> args) {
        if (name.equals("remove") && args.isEmpty()) {
            ctx.sideEffects.hookOp(new Op(p, true));
            return null;
        }
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "calling " + name + "() on " + p + " (only remove() is traced)");
    }
}
