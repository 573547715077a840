package dev.ember.fx;

import dev.ember.ops.OpOverload;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs a {@link GraphModule}'s graph node by node: placeholders take the inputs in order, ATen
 * calls go through {@link OpOverload#call}, method calls through the Tensor API, attribute reads
 * and module calls to the module's maps. A value is dropped right after its last use, so memory
 * stays that of the live values. Subclasses change what a kind of node does by overriding its
 * method (FX's {@code Interpreter}), e.g. {@link ShapeProp}.
 *
 * <p>An exception thrown by a node keeps its type and message and gains a suppressed
 * {@link NodeFailure} naming the node and its source line (Python's exception notes).
 */
public class Interpreter {
    protected final GraphModule module;
    private final List<Node> nodes;
    /** For each node, the values whose last use it is. */
    private final Map<Node, List<Node>> freedAfter = new HashMap<>();
    private final Map<Node, Object> env = new HashMap<>();
    /** The size symbols' values in this run's inputs (a graph generic in sizes), else null. */
    private long[] symbolValues;
    private Object[] inputs;
    private int nextInput;

    public Interpreter(GraphModule module) {
        this.module = module;
        this.nodes = module.graph().nodes();
        Set<Node> used = new HashSet<>();
        for (int i = nodes.size() - 1; i >= 0; i--) {
            Node user = nodes.get(i);
            for (Node in : user.allInputNodes()) {
                if (used.add(in)) freedAfter.computeIfAbsent(user, k -> new ArrayList<>()).add(in);
            }
        }
    }

    /** Runs the graph on one value per placeholder and returns what its output node returns. */
    public Object run(Object... inputs) {
        List<Node> params = module.graph().placeholders();
        if (inputs.length != params.size()) {
            throw new IllegalArgumentException("the graph takes " + params.size() + " input(s) " + params + ", but " + inputs.length + " were given");
        }
        this.inputs = inputs;
        this.nextInput = 0;
        SizeSymbols symbols = module.sizeSymbols();
        this.symbolValues = symbols == null ? null : symbols.valuesIn(inputs);
        env.clear();
        boolean gradMode = dev.ember.autograd.GradMode.isEnabled();   // _set_grad_enabled nodes switch it while the graph runs
        try {
            for (Node n : nodes) {
                Object value;
                try {
                    value = runNode(n);
                } catch (RuntimeException e) {
                    e.addSuppressed(new NodeFailure(n));
                    throw e;
                }
                if (n.kind() == NodeKind.OUTPUT) return value;
                env.put(n, value);
                for (Node dead : freedAfter.getOrDefault(n, List.of())) env.remove(dead);
            }
            throw new IllegalStateException("graph has no output node");
        } finally {
            env.clear();
            this.inputs = null;
            dev.ember.autograd.GradMode.setEnabled(gradMode);
        }
    }

    /** A {@link dev.ember.tensor.SymInt} argument's value in this run; other values unchanged. */
    private Object sizeOf(Object v) { return v instanceof dev.ember.tensor.SymInt s ? s.evalInt(symbolValues) : v; }

    /** Computes one node's value from the values of its arguments. */
    @SuppressWarnings("unchecked")
    protected Object runNode(Node n) {
        List<Object> args = ArgTrees.mapList(n.args(), this::valueOf);
        Map<String, Object> kwargs = ArgTrees.mapMap(n.kwargs(), this::valueOf);
        if (symbolValues != null) {
            args = (List<Object>) ArgTrees.mapLeaves(args, this::sizeOf);
            Map<String, Object> sized = new java.util.LinkedHashMap<>();
            kwargs.forEach((k, v) -> sized.put(k, ArgTrees.mapLeaves(v, this::sizeOf)));
            kwargs = sized;
        }
        return switch (n.kind()) {
            case PLACEHOLDER -> placeholder(n, inputs[nextInput++]);
            case GET_ATTR -> getAttr(n);
            case CALL_FUNCTION -> callFunction(n, args, kwargs);
            case CALL_METHOD -> callMethod(n, args, kwargs);
            case CALL_MODULE -> callModule(n, args, kwargs);
            case OUTPUT -> output(n, args.get(0));
        };
    }

    private Object valueOf(Node n) {
        if (!env.containsKey(n)) throw new IllegalStateException("node '" + n + "' has no value yet: it is used before it is defined, or was freed too early");
        return env.get(n);
    }

    /** The value of an input. */
    protected Object placeholder(Node n, Object input) { return input; }

    protected Object getAttr(Node n) { return module.attribute((String) n.target()); }

    protected Object callFunction(Node n, List<Object> args, Map<String, Object> kwargs) {
        return switch (n.target()) {
            case OpOverload op -> op.call(OpCallArgs.positional(op, args, kwargs));
            case GraphFunction fn -> fn.apply(args, kwargs);
            default -> throw new IllegalStateException("call_function target " + n.target());
        };
    }

    protected Object callMethod(Node n, List<Object> args, Map<String, Object> kwargs) {
        if (!kwargs.isEmpty()) {
            throw new IllegalArgumentException("call_method '" + n.target() + "': Tensor methods take no keyword arguments, got " + kwargs.keySet());
        }
        return TensorMethods.invoke((String) n.target(), args);
    }

    protected Object callModule(Node n, List<Object> args, Map<String, Object> kwargs) {
        if (!kwargs.isEmpty()) {
            throw new IllegalArgumentException("call_module '" + n.target() + "': modules take no keyword arguments, got " + kwargs.keySet());
        }
        return module.submodule((String) n.target()).forward(args.toArray());
    }

    /** The graph's result: a value, or for a tuple output an unmodifiable list of values. */
    protected Object output(Node n, Object value) { return value; }

    /**
     * Attached (suppressed) to an exception thrown while running a node: which node, and from
     * which line of user code.
     */
    public static final class NodeFailure extends RuntimeException {
        NodeFailure(Node n) {
            super(describe(n), null, false, false);
        }

        private static String describe(Node n) {
            SourceLocation loc = n.sourceLocation();
            String where = loc == null ? "" : "\n  from user code at " + loc.fileAndLine() + " in " + loc.className() + (loc.methodName() == null ? "" : "." + loc.methodName())
                    + (loc.sourceText() == null ? "" : ": " + loc.sourceText().strip());
            return "While executing " + n.format() + where;
        }
    }
}
