package dev.ember.dynamo;

import dev.ember.autograd.GradMode;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.fx.BuiltinFunctions;

import java.util.List;
import java.util.Set;

/**
 * Grad-mode scopes while tracing, without a graph break: {@code Ember.noGrad()},
 * {@code enableGrad()}, {@code inferenceMode()} (and {@code GradMode}'s own) put a
 * {@code _set_grad_enabled} node in the graph where the mode changes and where the scope's
 * {@code close()} changes it back, as Dynamo's {@code GradModeVariable} does. The scope value is a
 * real {@link GradMode.Scope} that restores the mode it found when closed, so code resumed after a
 * graph break inside the scope closes it correctly.
 */
final class GradModes {
    private GradModes() {}

    private static final Set<String> STATIC = Set.of("noGrad", "enableGrad", "inferenceMode", "isEnabled", "setEnabled");

    static boolean handles(String name) { return STATIC.contains(name); }

    static VariableTracker invokeStatic(TraceContext ctx, String name, List<VariableTracker> args) {
        return switch (name) {
            case "isEnabled" -> ConstantVariable.of(ctx.gradEnabled ? 1 : 0);
            case "setEnabled" -> {
                if (!(args.getFirst() instanceof ConstantVariable c && c.value() instanceof Number n)) {
                    throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "GradMode.setEnabled with a value only known at run time (" + args.getFirst().describe() + ")");
                }
                switchTo(ctx, n.intValue() != 0);
                yield null;
            }
            default -> {
                boolean before = ctx.gradEnabled;
                switchTo(ctx, name.equals("enableGrad"));
                yield ConstantVariable.of(GradMode.restoring(before, name));
            }
        };
    }

    /** {@code close()} puts the mode back; {@code wasEnabled()} is a constant; nothing else is traced. */
    static VariableTracker scopeMethod(TraceContext ctx, GradMode.Scope scope, String name) {
        return switch (name) {
            case "close" -> {
                switchTo(ctx, scope.wasEnabled());
                yield null;
            }
            case "wasEnabled" -> ConstantVariable.of(scope.wasEnabled() ? 1 : 0);
            case "toString" -> ConstantVariable.of(scope.toString());
            default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "calling " + name + "() on a grad-mode scope");
        };
    }

    /**
     * At the start of a trace: a frame handed the grad-mode scopes it runs inside (a resume method
     * starting in a block an earlier frame opened; the outermost scope is the first, as its local
     * was declared first) begins its graph by setting the mode in force, when that differs from the
     * mode outside them all, as Dynamo's resumed graphs do.
     */
    static void enterScopesInForce(TraceContext ctx, Object[] frame) {
        for (Object v : frame) {
            if (v instanceof GradMode.Scope outermost) {
                ctx.gradEnabledOutsideScopes = outermost.wasEnabled();
                if (ctx.gradEnabled != outermost.wasEnabled()) {
                    ctx.graph.callFunction(BuiltinFunctions.SET_GRAD_ENABLED, List.of(ctx.gradEnabled), null, null);
                }
                return;
            }
        }
    }

    /** At a graph break inside a scope: the graph ends by restoring the mode outside it (the code after the graph sets the scope's mode again). */
    static void leaveScopesAtBreak(TraceContext ctx) {
        if (ctx.gradEnabled != ctx.gradEnabledOutsideScopes) {
            ctx.graph.callFunction(BuiltinFunctions.SET_GRAD_ENABLED, List.of(ctx.gradEnabledOutsideScopes), null, ctx.currentLocation());
        }
    }

    /** A graph whose only nodes switch grad mode computes nothing: it loses them, and is not compiled. */
    static void dropIfAlone(TraceContext ctx) {
        List<dev.ember.fx.Node> nodes = ctx.graph.graph().nodes();
        boolean alone = true;
        for (dev.ember.fx.Node n : nodes) {
            if (n.kind() == dev.ember.fx.NodeKind.CALL_FUNCTION && n.target() != BuiltinFunctions.SET_GRAD_ENABLED
                    || n.kind() == dev.ember.fx.NodeKind.CALL_METHOD || n.kind() == dev.ember.fx.NodeKind.CALL_MODULE) alone = false;
        }
        if (!alone) return;
        for (dev.ember.fx.Node n : nodes) if (n.target() == BuiltinFunctions.SET_GRAD_ENABLED) ctx.graph.graph().eraseNode(n);
    }

    private static void switchTo(TraceContext ctx, boolean enabled) {
        if (ctx.gradEnabled == enabled) return;
        ctx.gradEnabled = enabled;
        ctx.graph.callFunction(BuiltinFunctions.SET_GRAD_ENABLED, List.of(enabled), null, ctx.currentLocation());
    }
}
