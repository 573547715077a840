package dev.ember.dynamo;

import dev.ember.dynamo.guards.Guard;
import dev.ember.dynamo.source.Source;
import dev.ember.events.UserFrame;
import dev.ember.fx.BuiltinFunctions;
import dev.ember.fx.CallableModule;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphFunction;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.fx.SourceLocation;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The FX graph a trace builds, with the sources of its inputs (in placeholder order), the
 * submodules its call_module nodes call, and the guards installed so far. All graph building of
 * the translator goes through here.
 */
public final class OutputGraph {
    private final Graph graph = new Graph();
    private final List<Source> inputSources = new ArrayList<>();
    private final List<FakeTensor> exampleInputs = new ArrayList<>();
    private final Map<String, Guard> guards = new LinkedHashMap<>();
    private final Map<String, CallableModule> submodules = new LinkedHashMap<>();
    private final Map<String, Tensor> attributes = new LinkedHashMap<>();
    private dev.ember.fx.SizeSymbols sizeSymbols;

    /**
     * A graph input, placed after the inputs made so far and before every other node, as FX keeps
     * placeholders and as Dynamo inserts them: arguments are wrapped when the trace first reads
     * them, after nodes already recorded, and a pass that lifts constants into inputs (or anything
     * that reads the placeholders in node order) must see them in {@link #inputSources}' order.
     */
    public Node placeholder(String name, FakeTensor fake, Source source) {
        inputSources.add(source);
        exampleInputs.add(fake);
        Node firstOther = null;
        for (Node n : graph.nodes()) {
            if (n.kind() != dev.ember.fx.NodeKind.PLACEHOLDER) {
                firstOther = n;
                break;
            }
        }
        if (firstOther == null) return graph.placeholder(name, fake);
        try (var at = graph.insertingBefore(firstOther)) {
            return graph.placeholder(name, fake);
        }
    }

    public Node callFunction(OpOverload op, List<Object> args, Object fake, UserFrame location) {
        return located(graph.callFunction(op, args, Map.of()).setVal(fake), location);
    }

    /** A call of a non-ATen function (an in-graph function, a higher-order op) on graph values. */
    public Node callFunction(GraphFunction fn, List<Object> args, Object fake, UserFrame location) {
        return located(graph.callFunction(fn, args, Map.of()).setVal(fake), location);
    }

    public Node getItem(Node list, int index, Object fake, UserFrame location) {
        return located(graph.callFunction(BuiltinFunctions.GETITEM, List.of(list, index), Map.of()).setVal(fake), location);
    }

    /** A call of a built-in layer; the module object becomes the GraphModule's submodule at {@code path}. */
    public Node callModule(String path, Object module, List<Object> args, Object fake, UserFrame location) {
        submodules.putIfAbsent(path, forwardOf(module));
        return located(graph.callModule(path, args, Map.of()).setVal(fake), location);
    }

    /** A tensor made from constants while tracing (e.g. {@code Tensor.of(1f, 2f)}): a get_attr of the graph module. */
    public Node constantTensor(Tensor value, UserFrame location) {
        String name = "_tensor_constant" + attributes.size();
        attributes.put(name, value);
        return located(graph.getAttr(name, FakeTensor.like(value)), location);
    }

    public void output(List<Node> values) { graph.output(List.copyOf(values)); }

    /** Meta key of nodes that compute a Java number from tensor data ({@code item()}) or from other such numbers. */
    static final String SCALAR_COMPUTE = "scalar_compute";

    /**
     * Removes the number computations nothing uses (an {@code item()} whose value the code dropped,
     * and its cast), last to first, so they never reach a backend. As Dynamo, which removes unused
     * symbolic-number and get_attr nodes, this leaves every other op in place, used or not: the
     * graph holds what the code computed, and op counts stay PyTorch's.
     */
    void removeUnusedScalarCompute() {
        List<Node> nodes = new ArrayList<>(graph.nodes());
        for (int i = nodes.size() - 1; i >= 0; i--) {
            Node n = nodes.get(i);
            if (n.users().isEmpty() && !n.isImpure() && Boolean.TRUE.equals(n.meta().get(SCALAR_COMPUTE))) graph.eraseNode(n);
        }
    }

    /**
     * Drops the floating-point Java-number inputs (0-d placeholders read from a double) no node
     * uses, as Dynamo's remove_unused_graphargs does: a number the trace only handed on (to a
     * constructor, a field, the next resume method) is read from its source when needed, never
     * from the graph, so passing it in would only cost the backend an input. A resume method whose
     * stack held an {@code item()} result for a constructor had such an unused f64 input. Run when
     * the trace ends, before the rebuilders number the graph's inputs; only numbers read from a
     * frame's own argument, which a rebuilder reads from that argument, never from the graph; and
     * only a double or float: an int input may be a size symbol, which the sizes read from it.
     */
    void removeUnusedScalarInputs() {
        List<Node> placeholders = graph.nodes().stream().filter(n -> n.kind() == dev.ember.fx.NodeKind.PLACEHOLDER).toList();
        for (int i = placeholders.size() - 1; i >= 0; i--) {
            Node p = placeholders.get(i);
            if (p.users().isEmpty() && inputSources.get(i) instanceof dev.ember.dynamo.source.ScalarTensorSource scalar
                    && scalar.base() instanceof dev.ember.dynamo.source.LocalSource && scalar.dtype().isFloatingPoint()) {
                graph.eraseNode(p);
                inputSources.remove(i);
                exampleInputs.remove(i);
            }
        }
    }

    private static final dev.ember.logging.Log TRACE_CALL = dev.ember.logging.Log.of("trace_call");

    private static Node located(Node n, UserFrame f) {
        if (n.kind() == NodeKind.CALL_FUNCTION || n.kind() == NodeKind.CALL_MODULE) {
            TRACE_CALL.info(() -> "TRACE FX call " + n.name() + " from " + (f == null ? "<unknown>" : f)
                    + (f == null || f.sourceText() == null ? "" : "\n    " + f.sourceText().strip())
                    + "\n    " + n.format());
        }
        if (f != null) n.setSourceLocation(new SourceLocation(f.className(), f.methodName(), f.fileName(), f.line(), f.bci(), f.sourceText()));
        return n;
    }

    /** Adds a guard unless an identical one exists. */
    public void addGuard(Guard g) { guards.putIfAbsent(g.describe(), g); }

    public List<Guard> guards() { return List.copyOf(guards.values()); }

    public List<Source> inputSources() { return List.copyOf(inputSources); }

    public List<FakeTensor> exampleInputs() { return List.copyOf(exampleInputs); }

    public Graph graph() { return graph; }

    /** The graph with its submodules, ready for a backend. */
    public GraphModule toGraphModule() { return toGraphModule(graph); }

    /** {@code g} (this graph or a copy of it) with this graph's submodules and attributes. */
    GraphModule toGraphModule(Graph g) {
        GraphModule gm = new GraphModule(g, attributes, submodules);
        gm.setSizeSymbols(sizeSymbols);
        return gm;
    }

    /** The size symbols the graph is generic in (set when the trace ends), or null. */
    void setSizeSymbols(dev.ember.fx.SizeSymbols symbols) { this.sizeSymbols = symbols; }

    /** call_function, call_method and call_module nodes, as Dynamo's CompileCounter counts them. */
    public static int opCount(Graph g) {
        int n = 0;
        for (Node node : g.nodes()) {
            if (node.kind() == NodeKind.CALL_FUNCTION || node.kind() == NodeKind.CALL_METHOD || node.kind() == NodeKind.CALL_MODULE) n++;
        }
        return n;
    }

    public int opCount() { return opCount(graph); }

    private static CallableModule forwardOf(Object module) {
        return args -> {
            Class<?>[] types = new Class<?>[args.length];
            Arrays.fill(types, Tensor.class);
            try {
                Method m = module.getClass().getMethod("forward", types);
                return m.invoke(module, args);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof RuntimeException r) throw r;
                throw new IllegalStateException(e.getCause());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot call forward of " + module.getClass().getName(), e);
            }
        };
    }
}
