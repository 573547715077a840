package dev.ember.dynamo;

import dev.ember.dynamo.guards.IdMatch;
import dev.ember.dynamo.variables.ModuleVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * With inlining of built-in layers switched off ({@link Modules#INLINE_PROPERTY}), a built-in layer's forward becomes one call_module node. Its fake output
 * comes from running the layer's forward on fake inputs (its ops then run only their meta functions).
 * The layer object is part of the graph, so its identity is guarded.
 */
final class ModuleCalls {
    private ModuleCalls() {}

    static VariableTracker callModule(TraceContext ctx, ModuleVariable m, List<VariableTracker> args) {
        List<Object> graphArgs = new ArrayList<>();
        Object[] fakes = new Object[args.size()];
        Class<?>[] types = new Class<?>[args.size()];
        for (int i = 0; i < args.size(); i++) {
            if (!(args.get(i) instanceof TensorVariable t)) {
                throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "calling the layer " + m.describe() + " with " + args.get(i).describe());
            }
            graphArgs.add(t.node());
            fakes[i] = t.fake();
            types[i] = Tensor.class;
        }
        Object out;
        try {
            Method forward = m.module().getClass().getMethod("forward", types);
            out = forward.invoke(m.module(), fakes);
        } catch (InvocationTargetException e) {
            throw ctx.unsupported(GraphBreakType.OP_FAILED_ON_FAKES, m.describe() + ".forward failed on fake tensors: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "cannot call forward of " + m.describe() + ": " + e, e);
        }
        if (!(out instanceof FakeTensor fake)) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, m.describe() + ".forward returned " + out + " on fake inputs");
        }
        if (m.source() != null) ctx.graph.addGuard(new IdMatch(m.source(), m.module()));
        String path = m.path().isEmpty() ? "self" : m.path();
        return new TensorVariable(ctx.graph.callModule(path, m.module(), graphArgs, fake, ctx.currentLocation()), fake, null);
    }
}
