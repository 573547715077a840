package dev.ember.dynamo;

import dev.ember.Fn0;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Fn4;
import dev.ember.Fn5;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.ListVariable;
import dev.ember.dynamo.variables.MethodTarget;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.UserObjectVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.events.UserFrame;
import dev.ember.fx.GraphFunction;
import dev.ember.fx.Node;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Functions the translator never inlines but records as one call_function node:
 * {@code Ember.allowInGraph(fn)} (the function itself runs on fake tensors while tracing, like
 * {@code torch._dynamo.allow_in_graph}) and {@code Ember.leafFunction(fn, fake)} (its fake
 * implementation gives the output metadata, so the function may read data, call anything, even
 * break the graph if it were traced). At run time the node calls the function on real values.
 */
public final class InGraphFunctions {
    private static final Map<String, InGraphFunction> REGISTERED = new ConcurrentHashMap<>();

    private InGraphFunctions() {}

    /** A registered function as a graph target; {@code fake} is null when the function itself runs on fakes. */
    record InGraphFunction(MethodTarget method, Object fn, Object fake) implements GraphFunction {
        @Override
        public String name() { return method.name(); }

        @Override
        public String qualifiedName() { return ClassFiles.origin(method.owner()).getSimpleName() + "." + method.name(); }

        @Override
        public Object apply(List<Object> args, Map<String, Object> kwargs) { return call(fn, args.toArray()); }

        @Override
        public Object applyFake(List<Object> args, Map<String, Object> kwargs) { return call(fake != null ? fake : fn, args.toArray()); }

        @Override
        public String toString() { return qualifiedName(); }
    }

    /** See {@code Ember.allowInGraph}. */
    public static void allowInGraph(Serializable fn) { register(fn, null); }

    /** See {@code Ember.leafFunction}. */
    public static void leafFunction(Serializable fn, Serializable fake) { register(fn, java.util.Objects.requireNonNull(fake, "fake")); }

    private static void register(Serializable fn, Object fake) {
        FunctionTarget t = FunctionTarget.of(fn);
        if (t.captured().length > 0) {
            throw new IllegalArgumentException("pass a reference to a static method (MyClass::helper) or a lambda that captures nothing; "
                    + t.method() + " captures " + t.captured().length + " value(s)");
        }
        REGISTERED.put(t.method().toString(), new InGraphFunction(t.method(), fn, fake));
    }

    static InGraphFunction lookup(ClassFiles.Resolved r) {
        if (REGISTERED.isEmpty()) return null;
        return REGISTERED.get(r.declaringClass().getName() + "." + r.method().methodName().stringValue() + r.method().methodType().stringValue());
    }

    /** The call as one node: arguments become nodes and constants, the output metadata comes from a call on fake tensors. */
    static VariableTracker trace(TraceContext ctx, InGraphFunction f, List<VariableTracker> args) {
        List<Object> graphArgs = new ArrayList<>(), fakeArgs = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            Class<?> type = Values.resolve(f.method().type().parameterType(i), f.method().owner());
            switch (args.get(i)) {
                case TensorVariable t -> {
                    graphArgs.add(t.node());
                    fakeArgs.add(t.fake());
                }
                case ConstantVariable c -> {
                    Object v = Values.fromStack(c.value(), type);
                    graphArgs.add(v);
                    fakeArgs.add(v);
                }
                case UserObjectVariable u when !u.isFresh() -> {
                    graphArgs.add(u.value());
                    fakeArgs.add(u.value());
                }
                case VariableTracker v -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND,
                        "cannot pass " + v.describe() + " to " + f.qualifiedName() + " (in-graph functions take tensors and constants)");
            }
        }
        Object out;
        try {
            out = call(f.fake() != null ? f.fake() : f.fn(), fakeArgs.toArray());
        } catch (RuntimeException e) {
            throw ctx.unsupported(GraphBreakType.OP_FAILED_ON_FAKES, f.qualifiedName() + " failed on fake tensors: " + e.getMessage(), e);
        }
        UserFrame loc = ctx.currentLocation();
        if (out instanceof Tensor t) {
            FakeTensor fake = FakeTensor.like(t);
            return new TensorVariable(ctx.graph.callFunction(f, graphArgs, fake, loc), fake, null);
        }
        if (out instanceof List<?> list && list.stream().allMatch(x -> x instanceof Tensor)) {
            List<Object> fakes = new ArrayList<>();
            for (Object x : list) fakes.add(FakeTensor.like((Tensor) x));
            Node node = ctx.graph.callFunction(f, graphArgs, fakes, loc);
            List<VariableTracker> items = new ArrayList<>();
            for (int i = 0; i < fakes.size(); i++) {
                FakeTensor fk = (FakeTensor) fakes.get(i);
                items.add(new TensorVariable(ctx.graph.getItem(node, i, fk, loc), fk, null));
            }
            return new ListVariable(items, false, null);
        }
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_RETURN, f.qualifiedName() + " returned " + out + " on fake tensors; in-graph functions return a Tensor or a List of Tensors");
    }

    @SuppressWarnings("unchecked")
    private static Object call(Object fn, Object[] a) {
        return switch (fn) {
            case Fn0<?> f -> f.apply();
            case Fn1<?, ?> f -> ((Fn1<Object, Object>) f).apply(a[0]);
            case Fn2<?, ?, ?> f -> ((Fn2<Object, Object, Object>) f).apply(a[0], a[1]);
            case Fn3<?, ?, ?, ?> f -> ((Fn3<Object, Object, Object, Object>) f).apply(a[0], a[1], a[2]);
            case Fn4<?, ?, ?, ?, ?> f -> ((Fn4<Object, Object, Object, Object, Object>) f).apply(a[0], a[1], a[2], a[3]);
            case Fn5<?, ?, ?, ?, ?, ?> f -> ((Fn5<Object, Object, Object, Object, Object, Object>) f).apply(a[0], a[1], a[2], a[3], a[4]);
            default -> throw new IllegalArgumentException("in-graph functions are Fn0…Fn5 lambdas or method references, got " + fn.getClass().getName());
        };
    }
}
