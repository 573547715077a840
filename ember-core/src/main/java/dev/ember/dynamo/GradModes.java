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

    private static void switchTo(TraceContext ctx, boolean enabled) {
        if (ctx.gradEnabled == enabled) return;
        ctx.gradEnabled = enabled;
        ctx.graph.callFunction(BuiltinFunctions.SET_GRAD_ENABLED, List.of(enabled), null, ctx.currentLocation());
    }
}
