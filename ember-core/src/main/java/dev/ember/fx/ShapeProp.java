package dev.ember.fx;

import dev.ember.ops.OpOverload;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Fills every node's {@code meta("val")} with its fake value by running the graph on fake tensors:
 * ATen calls run only their meta functions (so even factories like {@code zeros} compute nothing),
 * other nodes run on fake arguments. FX's {@code ShapeProp}, with fake tensors as in Dynamo.
 */
public final class ShapeProp extends Interpreter {

    private ShapeProp(GraphModule module) { super(module); }

    /**
     * Propagates from example inputs (real tensors are replaced by fakes of the same metadata;
     * scalars stay as they are) and returns the fake output.
     */
    public static Object propagate(GraphModule module, Object... inputs) {
        Object[] fakes = new Object[inputs.length];
        for (int i = 0; i < inputs.length; i++) fakes[i] = toFake(inputs[i]);
        return new ShapeProp(module).run(fakes);
    }

    /** Propagates from the fake values the placeholders already hold. */
    public static Object propagate(GraphModule module) {
        List<Node> params = module.graph().placeholders();
        Object[] inputs = new Object[params.size()];
        for (int i = 0; i < inputs.length; i++) {
            Node p = params.get(i);
            if (p.val() == null) throw new IllegalArgumentException("placeholder '" + p + "' has no meta val; pass example inputs to ShapeProp.propagate");
            inputs[i] = p.val();
        }
        return propagate(module, inputs);
    }

    @Override
    protected Object runNode(Node n) {
        Object value = toFake(super.runNode(n));
        n.setVal(value);
        return value;
    }

    @Override
    protected Object getAttr(Node n) { return FakeTensor.like(module.attribute((String) n.target())); }

    @Override
    protected Object callFunction(Node n, List<Object> args, Map<String, Object> kwargs) {
        if (n.target() instanceof GraphFunction f) return f.applyFake(args, kwargs);
        if (!(n.target() instanceof OpOverload op)) return super.callFunction(n, args, kwargs);
        var bound = op.bind(OpCallArgs.positional(op, args, kwargs));
        Object meta = op.inferMeta(bound);
        if (op.writtenArg() >= 0) return bound.tensor(op.writtenArg());
        if (op.returnsNothing()) return null;
        return fakeOf(meta, op);
    }

    private static Object fakeOf(Object meta, OpOverload op) {
        if (meta instanceof TensorMeta m) return new FakeTensor(m);
        if (meta instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            for (Object m : list) out.add(fakeOf(m, op));
            return List.copyOf(out);
        }
        throw new IllegalStateException(op.name() + ": meta function returned " + meta);
    }

    /** Real tensors (also inside lists) replaced by fakes; everything else unchanged. */
    static Object toFake(Object v) {
        return switch (v) {
            case Tensor t when !t.isFake() -> FakeTensor.like(t);
            case List<?> l -> {
                List<Object> out = new ArrayList<>(l.size());
                for (Object x : l) out.add(toFake(x));
                yield java.util.Collections.unmodifiableList(out);
            }
            case null, default -> v;
        };
    }
}
