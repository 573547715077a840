package dev.ember.dynamo;

import dev.ember.events.UserFrame;
import dev.ember.fx.Node;
import dev.ember.dynamo.variables.ArrayVariable;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.ListVariable;
import dev.ember.dynamo.variables.OpOverloadVariable;
import dev.ember.dynamo.variables.SymScalarVariable;
import dev.ember.dynamo.variables.SymSizeVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.UserObjectVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.ops.Args;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.TensorMeta;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code OpOverload.call/callTensor/callList} on a known op: a call_function node whose fake value
 * comes from the op's meta function on the fake arguments (never its kernel).
 */
final class OpCalls {
    private OpCalls() {}

    static VariableTracker call(TraceContext ctx, OpOverload op, List<VariableTracker> args) {
        boolean dynamicShape = op.hasTag(dev.ember.ops.Tag.DYNAMIC_OUTPUT_SHAPE);
        // an op whose every call's shape needs values breaks here; one that says for which arguments, once they are known
        if (dynamicShape && (!op.dynamicOutputShapeDependsOnArguments() || SymScalars.firstIn(args) != null)) throw dynamicOutputShape(ctx, op);
        args = sizesOfSymbolicInts(ctx, op, args);
        SymScalarVariable sym = SymScalars.firstIn(args);
        if (sym != null) return SymScalars.opCall(ctx, op, args, sym);
        List<Object> graphArgs = new ArrayList<>(args.size());
        Object[] fakeArgs = new Object[args.size()];
        for (int i = 0; i < args.size(); i++) {
            Converted c = convert(ctx, op, args.get(i));
            graphArgs.add(c.graph);
            fakeArgs[i] = c.fake;
        }
        if (dynamicShape && op.outputShapeNeedsValues(fakeArgs)) throw dynamicOutputShape(ctx, op);
        Object meta;
        try {
            Args bound = op.bind(fakeArgs);
            meta = op.inferMeta(bound);
        } catch (RuntimeException e) {
            throw Exceptions.fromOp(ctx, e, op.name() + " failed on fake tensors: " + e.getMessage());
        }
        UserFrame loc = ctx.currentLocation();
        if (op.writtenArg() >= 0) {
            // in place (add_) or out= (add.out): the node mutates that argument, which is the result
            TensorVariable written = (TensorVariable) args.get(op.writtenArg());
            if (ctx.gradEnabled && op.hasTag(dev.ember.ops.Tag.INPLACE) && ctx.inputLeavesRequiringGrad.contains(written.node())) {
                // eager's autograd refuses the write: the program throws here, and so does the compiled call
                IllegalStateException refused = dev.ember.autograd.Autograd.leafInPlace(op, written.fake().meta().describe());
                throw Exceptions.raise(ctx, refused, GraphBreakType.OP_FAILED_ON_FAKES, refused.getMessage());
            }
            String base = ctx.viewsRefusingInPlace.get(written.node());
            if (ctx.gradEnabled && op.hasTag(dev.ember.ops.Tag.INPLACE) && base != null) {
                IllegalStateException refused = dev.ember.autograd.Autograd.viewOfLeafInPlace(op, written.fake().meta().describe(), base);
                throw Exceptions.raise(ctx, refused, GraphBreakType.OP_FAILED_ON_FAKES, refused.getMessage());
            }
            ctx.graph.callFunction(op, graphArgs, written.fake(), loc);
            return written;
        }
        if (op.returnsNothing()) {
            // an assert: a node kept for its effect, with no value
            ctx.graph.callFunction(op, graphArgs, null, loc);
            return ConstantVariable.NULL;
        }
        if (meta instanceof TensorMeta m) {
            FakeTensor fake = new FakeTensor(m);
            dev.ember.fx.Node node = ctx.graph.callFunction(op, graphArgs, fake, loc);
            if (ctx.gradEnabled && node.aliasesFirstArgument() && args.getFirst() instanceof TensorVariable in) {
                String base = ctx.viewBasesRefusingInPlace.getOrDefault(in.node(), ctx.viewsRefusingInPlace.get(in.node()));
                if (base != null) {
                    ctx.viewsRefusingInPlace.put(node, base);
                    ctx.viewBasesRefusingInPlace.put(node, base);
                }
            }
            return new TensorVariable(node, fake, null);
        }
        if (meta instanceof List<?> metas) {
            List<Object> fakes = new ArrayList<>();
            for (Object m : metas) fakes.add(new FakeTensor((TensorMeta) m));
            Node node = ctx.graph.callFunction(op, graphArgs, fakes, loc);
            List<VariableTracker> items = new ArrayList<>();
            for (int i = 0; i < fakes.size(); i++) {
                FakeTensor f = (FakeTensor) fakes.get(i);
                items.add(new TensorVariable(ctx.graph.getItem(node, i, f, loc), f, null));
            }
            return new ListVariable(items, true, null);
        }
        throw new IllegalStateException(op.name() + ": meta function returned " + meta);
    }

    /** {@code args} with each symbolic int passed where the op takes an int (a size, a dim) made a symbolic size. */
    private static List<VariableTracker> sizesOfSymbolicInts(TraceContext ctx, OpOverload op, List<VariableTracker> args) {
        List<VariableTracker> out = null;
        var params = op.schema().params();
        for (int i = 0; i < args.size() && i < params.size(); i++) {
            String type = params.get(i).type().replace("?", "");
            if (args.get(i) instanceof SymScalarVariable s && (type.equals("int") || type.equals("SymInt"))) {
                if (out == null) out = new ArrayList<>(args);
                out.set(i, SymScalars.asSize(ctx, s, "passing it to " + op.name() + " as " + params.get(i).name()));
            }
        }
        return out == null ? args : out;
    }

    /** An argument as the graph stores it (nodes inside) and as the meta function sees it (fakes inside). */
    private record Converted(Object graph, Object fake) {}

    /** Shown as Dynamo words it ("dynamic shape operator: aten.nonzero.default"); the op runs eagerly between two graphs. */
    private static RuntimeException dynamicOutputShape(TraceContext ctx, OpOverload op) {
        return ctx.unsupported(GraphBreakType.DYNAMIC_OUTPUT_SHAPE, op.name()
                + "; its output's shape depends on the input's values, which a graph traced from fake tensors does not know");
    }

    private static Converted convert(TraceContext ctx, OpOverload op, VariableTracker v) {
        return switch (v) {
            case TensorVariable t -> new Converted(t.node(), t.fake());
            case ConstantVariable c -> new Converted(c.value(), c.value());
            // a symbolic size: the graph keeps its polynomial, the meta function computes with its value in this trace
            case SymSizeVariable s -> new Converted(s.expr(), s.hintValue());
            // a symbolic int in a list of sizes
            case SymScalarVariable s -> convert(ctx, op, SymScalars.asSize(ctx, s, "passing it to " + op.name() + " in a list"));
            case ArrayVariable a when a.componentType().isPrimitive() -> {
                Object arr = Array.newInstance(a.componentType(), a.items().size());
                List<Object> symbolic = new ArrayList<>();
                boolean anySymbolic = false;
                for (int i = 0; i < a.items().size(); i++) {
                    VariableTracker item = a.items().get(i);
                    if (item instanceof SymScalarVariable s) item = SymScalars.asSize(ctx, s, "passing it to " + op.name() + " in an int array");
                    Object hint = switch (item) {
                        case ConstantVariable c -> c.value();
                        case SymSizeVariable s -> s.hintValue();
                        default -> throw badArg(ctx, op, v);
                    };
                    Array.set(arr, i, Values.fromStack(hint, a.componentType()));
                    anySymbolic |= item instanceof SymSizeVariable;
                    symbolic.add(item instanceof SymSizeVariable s ? s.expr() : Array.get(arr, i));
                }
                yield new Converted(anySymbolic ? symbolic : arr, arr);
            }
            case ArrayVariable a -> listOf(ctx, op, a.items());
            case ListVariable l -> listOf(ctx, op, l.items());
            case OpOverloadVariable o -> new Converted(o.op(), o.op());
            case UserObjectVariable u when !u.isFresh() -> new Converted(u.value(), u.value());
            default -> throw badArg(ctx, op, v);
        };
    }

    private static Converted listOf(TraceContext ctx, OpOverload op, List<VariableTracker> items) {
        List<Object> g = new ArrayList<>(), f = new ArrayList<>();
        for (VariableTracker item : items) {
            Converted c = convert(ctx, op, item);
            g.add(c.graph);
            f.add(c.fake);
        }
        return new Converted(g, f);
    }

    private static Unsupported badArg(TraceContext ctx, OpOverload op, VariableTracker v) {
        return ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "cannot pass " + v.describe() + " to " + op.name());
    }
}
