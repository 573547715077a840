package dev.ember.fx;

import dev.ember.ops.OpOverload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The eager backend: the graph's nodes run op by op with the eager kernels, like the FX
 * {@link Interpreter}, but prepared once — each node's arguments become slot references into one
 * value array — so a call costs the ops and little else. Compiled with {@link NanAsserts} on, it
 * checks the output of every op call.
 */
public final class PreparedGraph implements CompiledGraph {
    /** A reference to the value of node {@code slot} inside an argument template. */
    private record Slot(int slot) {}

    private record Step(Node node, NodeKind kind, Object target, Object[] args, int slot) {}

    private final int size;
    private final int inputs;
    private final Step[] steps;
    private final Object[] output;
    /** The size symbols whose values {@link dev.ember.tensor.SymInt} arguments take from the inputs, or null. */
    private final SizeSymbols symbols;
    /** The graph as a NaN assert names it, or null when values are not checked. */
    private final String nanAssertsGraph;

    /** Its ops run one by one, through the op table: autograd records them. */
    @Override
    public boolean recordsAutograd() { return true; }

    /** True when a node switches grad mode (a traced noGrad() scope). */
    private final boolean switchesGradMode;

    public PreparedGraph(GraphModule gm) {
        List<Node> nodes = gm.graph().nodes();
        this.switchesGradMode = nodes.stream().anyMatch(n -> n.target() == BuiltinFunctions.SET_GRAD_ENABLED);
        Map<Node, Integer> slots = new HashMap<>();
        List<Step> steps = new ArrayList<>();
        Object[] out = null;
        int placeholders = 0;
        // Inputs take the first slots in placeholder order, wherever the placeholders sit in the graph.
        for (Node n : nodes) if (n.kind() == NodeKind.PLACEHOLDER) slots.put(n, placeholders++);
        for (Node n : nodes) {
            switch (n.kind()) {
                case PLACEHOLDER -> { }
                case OUTPUT -> out = template(n.args(), slots);
                default -> {
                    int slot = slots.size();
                    Object target = switch (n.kind()) {
                        case CALL_MODULE -> gm.submodule((String) n.target());
                        case GET_ATTR -> gm.attribute((String) n.target());
                        default -> n.target();
                    };
                    if (!n.kwargs().isEmpty() || n.kind() == NodeKind.CALL_METHOD) {
                        throw new IllegalArgumentException("the eager backend runs call_function/call_module/get_attr nodes with positional arguments; got " + n.format());
                    }
                    steps.add(new Step(n, n.kind(), target, template(n.args(), slots), slot));
                    slots.put(n, slot);
                }
            }
        }
        this.size = slots.size();
        this.inputs = placeholders;
        this.steps = steps.toArray(Step[]::new);
        this.output = out;
        this.nanAssertsGraph = NanAsserts.enabled() ? NanAsserts.graphLabel(gm) : null;
        this.symbols = gm.sizeSymbols();
    }

    private static Object[] template(List<Object> args, Map<Node, Integer> slots) {
        Object[] t = new Object[args.size()];
        for (int i = 0; i < t.length; i++) t[i] = templateOf(args.get(i), slots);
        return t;
    }

    private static Object templateOf(Object a, Map<Node, Integer> slots) {
        if (a instanceof Node n) return new Slot(slots.get(n));
        if (a instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            for (Object x : l) out.add(templateOf(x, slots));
            return out;
        }
        return a;
    }

    @Override
    public Object[] run(Object[] in) {
        if (!switchesGradMode) return runSteps(in);
        // the graph's _set_grad_enabled nodes switch the thread's mode while it runs; the caller's mode comes back after
        boolean mode = dev.ember.autograd.GradMode.isEnabled();
        try {
            return runSteps(in);
        } finally {
            dev.ember.autograd.GradMode.setEnabled(mode);
        }
    }

    private Object[] runSteps(Object[] in) {
        if (in.length != inputs) throw new IllegalArgumentException("the graph takes " + inputs + " inputs, got " + in.length);
        Object[] env = new Object[size];
        System.arraycopy(in, 0, env, 0, inputs);
        long[] sizes = symbols == null ? null : symbols.valuesIn(in);
        for (Step s : steps) {
            env[s.slot] = switch (s.kind) {
                case CALL_FUNCTION -> s.target instanceof OpOverload op ? op.call(resolve(s.args, env, sizes))
                        : ((GraphFunction) s.target).apply(Arrays.asList(resolve(s.args, env, sizes)), Map.of());
                case CALL_MODULE -> ((CallableModule) s.target).forward(resolve(s.args, env, sizes));
                case GET_ATTR -> s.target;
                default -> throw new IllegalStateException(s.kind.toString());
            };
            if (nanAssertsGraph != null && s.kind != NodeKind.GET_ATTR) NanAsserts.check(env[s.slot], s.node, nanAssertsGraph);
        }
        return (Object[]) resolveValue(output[0] instanceof List<?> ? output[0] : List.of(output[0]), env, sizes, true);
    }

    private static Object[] resolve(Object[] template, Object[] env, long[] sizes) {
        Object[] out = new Object[template.length];
        for (int i = 0; i < out.length; i++) out[i] = resolveValue(template[i], env, sizes, false);
        return out;
    }

    private static Object resolveValue(Object t, Object[] env, long[] sizes, boolean asArray) {
        if (t instanceof Slot s) return env[s.slot];
        if (t instanceof dev.ember.tensor.SymInt s) return s.evalInt(sizes);
        if (t instanceof List<?> l) {
            Object[] items = new Object[l.size()];
            for (int i = 0; i < items.length; i++) items[i] = resolveValue(l.get(i), env, sizes, false);
            return asArray ? items : Arrays.asList(items);
        }
        return t;
    }
}
