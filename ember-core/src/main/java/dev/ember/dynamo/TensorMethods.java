package dev.ember.dynamo;

import dev.ember.dynamo.variables.ArrayVariable;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.SymSizeVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.SymInt;
import dev.ember.tensor.SymShape;
import dev.ember.tensor.Tensor;

import java.lang.constant.MethodTypeDesc;
import java.util.List;
import java.util.Set;

/**
 * Tensor methods while tracing: metadata (shape, size, dim, dtype, …) is a constant read from the
 * fake tensor (the tensor's TENSOR_MATCH guard keeps it valid); methods that read data break the
 * graph; every other method is inlined (it names an op, and the op call becomes a node).
 */
final class TensorMethods {
    private TensorMethods() {}

    private static final Set<String> DATA_READS = Set.of("item", "longItem", "get", "toFloatArray", "toDoubleArray", "toIntArray",
            "toLongArray", "toBooleanArray", "sameData");
    private static final Set<String> STORAGE = Set.of("storage", "version", "viewAs", "hashCode");

    /** Methods whose answer is made of sizes but is no number the trace can carry symbolically: a symbolic tensor specializes. */
    private static final Set<String> SPECIALIZING = Set.of("meta", "describe", "storageOffset");
    private static final Set<String> SIZE_READS = Set.of("shape", "strides", "numel", "size", "stride", "meta", "describe", "storageOffset");

    /** A size the trace knows: a constant, or a {@link SymSizeVariable} where it depends on symbols. */
    private static VariableTracker size(SymInt expr, int hint) {
        return expr.isConstant() ? ConstantVariable.of(hint) : new SymSizeVariable(expr, hint, int.class);
    }

    private static ArrayVariable sizes(SymInt[] exprs, int[] hints) {
        List<VariableTracker> items = new java.util.ArrayList<>(hints.length);
        for (int i = 0; i < hints.length; i++) items.add(size(exprs[i], hints[i]));
        return new ArrayVariable(int.class, items, null);
    }

    private static int[] symbolsOf(SymShape s) {
        java.util.TreeSet<Integer> ids = new java.util.TreeSet<>();
        for (SymInt x : s.sizes()) for (int id : x.symbols()) ids.add(id);
        for (SymInt x : s.strides()) for (int id : x.symbols()) ids.add(id);
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * {@code t.grad()}: of an input tensor, its real gradient becomes a graph input read from
     * {@code source.grad} on every call, as Dynamo traces {@code p.grad} (guarded: null, or a tensor
     * of the traced dtype and shape; in-place writes to it reach the real gradient as other input
     * mutations do). The graph cannot change it: backward() and setGrad() break the graph. A tensor
     * the graph computes may be an input returned by an in-place op, whose gradient the trace cannot
     * tell, so that read breaks.
     */
    private static VariableTracker gradOf(TraceContext ctx, TensorVariable t, String who) {
        Tensor real = ctx.inputTensorOf.get(t.node());
        if (t.source() == null || real == null) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_TENSOR_METHOD, "Tensor.grad() on " + who + " (" + t.describe()
                    + "), a tensor the graph computes: only the gradient of an input or parameter becomes a graph input. "
                    + "Read .grad() of the parameters themselves (module.parameters(), or a list passed in)");
        }
        return ctx.builder.wrap(real.grad(), new dev.ember.dynamo.source.GradSource(t.source()), Tensor.class);
    }

    static VariableTracker invoke(TraceContext ctx, TensorVariable t, String name, MethodTypeDesc type, List<VariableTracker> args) {
        FakeTensor fake = t.fake();
        String who = t.source() != null ? t.source().name() : "a tensor";
        SymShape symbolic = SIZE_READS.contains(name) ? ctx.shapes.shapeOf(ctx.graph, t.node(), ctx.currentLocation()) : null;
        if (symbolic != null && symbolic.isSymbolic() && SPECIALIZING.contains(name)) {
            throw new SpecializeAndRestart(ctx.shapes.sourcesOf(symbolsOf(symbolic)), "Tensor." + name + "() on " + who + ", whose sizes are symbolic",
                    ctx.currentLocation());
        }
        switch (name) {
            case "shape": return symbolic == null ? Fields.intArray(fake.shape()) : sizes(symbolic.sizes(), fake.shape());
            case "strides": return symbolic == null ? Fields.intArray(fake.strides()) : sizes(symbolic.strides(), fake.strides());
            case "dim": return ConstantVariable.of(fake.dim());
            case "numel": return symbolic == null ? ConstantVariable.of(fake.numel()) : size(symbolic.numel(), fake.numel());
            case "dtype": return ConstantVariable.of(fake.dtype());
            case "device": return ConstantVariable.of(fake.device());
            case "storageOffset": return ConstantVariable.of(fake.storageOffset());
            case "isContiguous": return ConstantVariable.of(fake.isContiguous() ? 1 : 0);
            case "isFake": return ConstantVariable.of(0);
            case "meta": return ConstantVariable.of(fake.meta());
            case "getClass": return ConstantVariable.of(Tensor.class);
            case "describe": return ConstantVariable.of("Tensor " + fake.meta().describe() + (fake.isContiguous() ? "" : " (non-contiguous)"));
            default: break;
        }
        if ((name.equals("size") || name.equals("stride")) && args.size() == 1) {
            // the dimension picks which size is read: a dynamic int is specialized (guarded), never read as 0
            VariableTracker dim = args.getFirst();
            if (dim instanceof dev.ember.dynamo.variables.SymSizeVariable) throw SymSizes.specialize(ctx, dim, null, "choosing the dimension of Tensor." + name + "(dim)");
            if (dim instanceof dev.ember.dynamo.variables.SymScalarVariable s) throw SymScalars.dataDependent(ctx, s, "choosing the dimension of Tensor." + name + "(dim)");
            if (!(dim instanceof ConstantVariable c && c.value() instanceof Integer)) {
                throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "Tensor." + name + "(dim) with a dimension not known while tracing: " + dim.describe());
            }
            int d = (Integer) ((ConstantVariable) dim).value();
            try {
                int w = Shapes.wrapDim(name, d, fake.dim());
                int hint = name.equals("size") ? fake.shape()[w] : fake.strides()[w];
                return symbolic == null ? ConstantVariable.of(hint) : size((name.equals("size") ? symbolic.sizes() : symbolic.strides())[w], hint);
            } catch (RuntimeException e) {
                throw Exceptions.raise(ctx, e, GraphBreakType.EXCEPTION_THROWN, "the traced path throws " + e);
            }
        }
        // .data() is detach() in a graph (as Dynamo traces PyTorch's .data); its own version counter is an eager matter
        if ((name.equals("detach") || name.equals("data")) && args.isEmpty()) return OpCalls.call(ctx, dev.ember.ops.ShapeOps.DETACH, List.of(t));
        if (name.equals("requiresGrad") && args.isEmpty()) {
            // an input's flag is its real tensor's (and TENSOR_MATCH guards it); a computed tensor's follows
            // autograd's rules from the graph, where they decide it; where they cannot, break rather than guess
            Boolean requires = TracedGrad.requiresGrad(ctx, t.node());
            if (requires != null) return ConstantVariable.of(requires ? 1 : 0);
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_TENSOR_METHOD, "Tensor.requiresGrad() on " + who
                    + ", a tensor the graph computes from an input that requires grad while grad mode changed in the trace");
        }
        if (name.equals("grad") && args.isEmpty()) return gradOf(ctx, t, who);
        if (name.equals("asBoolean")) {
            VariableTracker passes = TensorAsserts.rewrite(ctx, t);
            if (passes != null) return passes;
            throw ctx.unsupported(GraphBreakType.DATA_DEPENDENT_BRANCH, "Tensor.asBoolean() on " + who + " (" + t.describe() + ") decides a branch on tensor data");
        }
        if ((name.equals("item") || name.equals("longItem")) && args.isEmpty() && ctx.options.isCaptureScalarOutputs()) {
            return SymScalars.item(ctx, t, name.equals("longItem"), who);
        }
        if (DATA_READS.contains(name)) {
            throw ctx.unsupported(GraphBreakType.TENSOR_DATA_ACCESS, "Tensor." + name + "() on " + who + " (" + t.describe() + ") reads tensor data");
        }
        if (name.equals("toString")) {
            throw ctx.unsupported(GraphBreakType.TENSOR_TO_STRING, "Tensor.toString() on " + who + " (" + t.describe() + ")");
        }
        if (STORAGE.contains(name) || name.equals("requiresGrad")) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_TENSOR_METHOD, "Tensor." + name + "() on " + who);
        }
        ClassFiles.Resolved r = ClassFiles.virtual(Tensor.class, name, type);
        if (r == null) throw ctx.unsupported(GraphBreakType.NO_BYTECODE, "no Tensor method " + name + type.descriptorString());
        return Invoker.inline(ctx, r, Invoker.prepend(t, args));
    }
}
