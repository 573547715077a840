package dev.ember.dynamo;

import dev.ember.dynamo.variables.ArrayVariable;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.StreamVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.UserObjectVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.ops.ShapeOps;

import dev.ember.fx.Node;
import dev.ember.ops.OpOverload;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.TensorMeta;

import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Set;

/**
 * Printing and logging calls while tracing ({@code System.out/err.print…}, {@code System.Logger},
 * {@code java.util.logging.Logger}): dropped when the user lists them in
 * {@code Options.ignoreLogging}; recorded and replayed after the graph when reorderable logging is
 * on and every argument is a constant or a tensor (PyTorch's reorderable logging functions);
 * otherwise a graph break (GB0005).
 */
final class LoggingCalls {
    private LoggingCalls() {}

    private static final Set<String> PRINT = Set.of("print", "println", "printf", "format");
    private static final Set<String> JUL = Set.of("severe", "warning", "info", "config", "fine", "finer", "finest", "log");

    /** Whether {@code receiver.name(…)} is a call of a logging function. */
    static boolean isLogging(VariableTracker receiver, String name) {
        Object value = switch (receiver) {
            case StreamVariable s -> { yield PRINT.contains(name) ? s : null; }
            case UserObjectVariable u -> u.value();
            case ConstantVariable c -> c.value();
            default -> null;
        };
        return value instanceof StreamVariable
                || (value instanceof System.Logger && name.equals("log"))
                || (value instanceof java.util.logging.Logger && JUL.contains(name));
    }

    /** Handles a call {@link #isLogging} accepted: its result while tracing (the receiver for printf/format, null for void). */
    static VariableTracker call(TraceContext ctx, Class<?> owner, String name, MethodTypeDesc type, VariableTracker receiver,
                                List<VariableTracker> args) {
        Class<?> api = receiver instanceof StreamVariable ? java.io.PrintStream.class
                : value(receiver) instanceof System.Logger ? System.Logger.class : java.util.logging.Logger.class;
        String who = (receiver instanceof StreamVariable s ? s.name() : api.getSimpleName()) + "." + name;
        VariableTracker result = type.returnType().equals(ConstantDescs.CD_void) ? null : receiver;
        if (ctx.options.getIgnoredLogging().contains(api.getName() + "." + name)) return result;
        if (!ctx.options.isReorderableLogging()) {
            throw ctx.unsupported(GraphBreakType.PRINT, "call to " + who + "() (reorderable logging is off)");
        }
        for (VariableTracker a : args) {
            if (!recordable(a)) {
                throw ctx.unsupported(GraphBreakType.PRINT, "call to " + who + "() with " + a.describe()
                        + ": only calls whose arguments are constants or tensors are replayed after the graph");
            }
        }
        Class<?>[] params = new Class<?>[type.parameterCount()];
        for (int i = 0; i < params.length; i++) params[i] = Values.resolve(type.parameterType(i), owner);
        Method m;
        try {
            m = api.getMethod(name, params);
        } catch (NoSuchMethodException e) {
            throw ctx.unsupported(GraphBreakType.PRINT, "call to " + who + type.descriptorString() + " (no such public method)", e);
        }
        OutputRebuilder target = receiver instanceof StreamVariable s ? new OutputRebuilder.Stream(s.name()) : new OutputRebuilder.Constant(value(receiver));
        List<dev.ember.fx.Node> nodes = ctx.graph.graph().nodes();
        dev.ember.events.UserFrame site = ctx.currentLocation();
        Method replayed = api == java.util.logging.Logger.class && site != null ? withCallSite(m) : null;
        if (replayed != null) {
            args = argsWithCallSite(name, args, site);
            m = replayed;
        }
        ctx.sideEffects.logged(new SideEffects.LogCall(target, m, List.copyOf(args), nodes.isEmpty() ? null : nodes.getLast()));
        return result;
    }

    /**
     * The {@code Logger.logp} overload that makes the same record as {@code m} with its source given,
     * or null for {@code log(LogRecord)}, whose record the caller built. A replayed call left to
     * itself would infer {@code SideEffect$Log} as its source from the stack.
     */
    private static Method withCallSite(Method m) {
        List<Class<?>> params = new java.util.ArrayList<>(List.of(m.getParameterTypes()));
        if (JUL.contains(m.getName()) && !m.getName().equals("log")) params.addFirst(java.util.logging.Level.class);
        if (params.getFirst() != java.util.logging.Level.class) return null;
        params.addAll(1, List.of(String.class, String.class));
        try {
            return java.util.logging.Logger.class.getMethod("logp", params.toArray(Class<?>[]::new));
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("java.util.logging.Logger has no logp overload for " + m, e);
        }
    }

    /** {@link #withCallSite(Method)}'s arguments: the level, then the user's class and method where the call was traced. */
    private static List<VariableTracker> argsWithCallSite(String name, List<VariableTracker> args, dev.ember.events.UserFrame site) {
        List<VariableTracker> out = new java.util.ArrayList<>(args);
        if (!name.equals("log")) out.addFirst(ConstantVariable.of(java.util.logging.Level.parse(name.toUpperCase(java.util.Locale.ROOT))));
        out.addAll(1, List.of(ConstantVariable.of(site.className()), ConstantVariable.of(ResumeCodegen.userMethod(site.methodName()))));
        return out;
    }

    /**
     * The call's arguments as the replay must print them: when an in-place op runs later in the
     * graph, each tensor argument is replaced by a clone taken right where the call was made, so
     * the replay prints the values eager printed.
     */
    static List<VariableTracker> snapshotArgs(TraceContext ctx, SideEffects.LogCall call) {
        if (call.lastNode() == null || !mutatesAfter(call.lastNode())) return call.args();
        List<VariableTracker> out = new java.util.ArrayList<>();
        for (VariableTracker a : call.args()) out.add(snapshot(ctx, call.lastNode(), a));
        return out;
    }

    private static boolean mutatesAfter(Node last) {
        for (Node n = last.next(); n != null; n = n.next()) {
            if (n.target() instanceof OpOverload op && op.writtenArg() >= 0) return true;
        }
        return false;
    }

    private static VariableTracker snapshot(TraceContext ctx, Node at, VariableTracker v) {
        return switch (v) {
            case TensorVariable t -> {
                try (var point = ctx.graph.graph().insertingAfter(at)) {
                    FakeTensor fake = new FakeTensor(TensorMeta.contiguous(t.fake().dtype(), t.fake().shape()));
                    Node clone = ctx.graph.graph().callFunction(ShapeOps.CLONE, t.node()).setVal(fake);
                    yield new TensorVariable(clone, fake, null);
                }
            }
            case ArrayVariable a -> new ArrayVariable(a.componentType(), a.items().stream().map(x -> snapshot(ctx, at, x)).toList(), null);
            default -> v;
        };
    }

    private static Object value(VariableTracker v) {
        return switch (v) {
            case UserObjectVariable u -> u.value();
            case ConstantVariable c -> c.value();
            default -> null;
        };
    }

    private static boolean recordable(VariableTracker v) {
        return switch (v) {
            case ConstantVariable c -> true;
            case TensorVariable t -> true;
            case ArrayVariable a -> a.items().stream().allMatch(LoggingCalls::recordable);
            default -> false;
        };
    }
}
