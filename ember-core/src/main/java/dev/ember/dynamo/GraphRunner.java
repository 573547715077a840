package dev.ember.dynamo;

import dev.ember.ops.OpOverload;
import dev.ember.tensor.Tensor;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/** Runs an {@link OutputGraph} node by node with the eager ops. */
final class GraphRunner {
    private GraphRunner() {}

    static CompiledGraph of(OutputGraph graph) {
        List<OutputGraph.Node> nodes = graph.nodes();
        List<OutputGraph.Node> outputs = graph.outputs();
        Map<String, Object> modules = graph.modules();
        return inputs -> {
            Map<OutputGraph.Node, Object> env = new IdentityHashMap<>();
            int in = 0;
            for (OutputGraph.Node n : nodes) {
                Object value = switch (n.kind) {
                    case "placeholder" -> inputs[in++];
                    case "call_function" -> n.target instanceof OpOverload op
                            ? op.call(resolve(n.args, env).toArray())
                            : ((List<?>) env.get((OutputGraph.Node) n.args.get(0))).get((Integer) n.args.get(1));
                    case "call_module" -> forward(modules.get((String) n.target), resolve(n.args, env));
                    default -> throw new IllegalStateException("node kind " + n.kind);
                };
                env.put(n, value);
            }
            Object[] out = new Object[outputs.size()];
            for (int i = 0; i < out.length; i++) out[i] = env.get(outputs.get(i));
            return out;
        };
    }

    private static List<Object> resolve(List<Object> args, Map<OutputGraph.Node, Object> env) {
        List<Object> out = new ArrayList<>(args.size());
        for (Object a : args) {
            if (a instanceof OutputGraph.Node n) out.add(env.get(n));
            else if (a instanceof List<?> l) out.add(resolve(new ArrayList<>(l), env));
            else out.add(a);
        }
        return out;
    }

    private static Object forward(Object module, List<Object> args) {
        try {
            Class<?>[] types = new Class<?>[args.size()];
            java.util.Arrays.fill(types, Tensor.class);
            Method m = module.getClass().getMethod("forward", types);
            return m.invoke(module, args.toArray());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("calling forward of " + module + " failed", e);
        }
    }
}
