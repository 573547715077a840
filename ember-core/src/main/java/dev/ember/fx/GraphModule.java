package dev.ember.fx;

import dev.ember.tensor.Tensor;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link Graph} with what its nodes refer to: tensors read by {@code get_attr} (parameters,
 * buffers, constants) and modules called by {@code call_module}, each under its dotted path. This
 * is what every stage of the compiler passes on. {@link #run} interprets the graph;
 * {@link #code()} and {@link #tabular()} print it.
 */
public final class GraphModule {
    private final String className;
    private final Graph graph;
    private final Map<String, Tensor> attributes = new LinkedHashMap<>();
    private final Map<String, CallableModule> submodules = new LinkedHashMap<>();
    private SizeSymbols sizeSymbols;

    public GraphModule(Graph graph) { this("GraphModule", graph, Map.of(), Map.of()); }

    public GraphModule(Graph graph, Map<String, Tensor> attributes, Map<String, CallableModule> submodules) {
        this("GraphModule", graph, attributes, submodules);
    }

    /** {@code className} names the module in printed code ({@code class GraphModule {…}}). */
    public GraphModule(String className, Graph graph, Map<String, Tensor> attributes, Map<String, CallableModule> submodules) {
        this.className = Objects.requireNonNull(className, "className");
        this.graph = Objects.requireNonNull(graph, "graph");
        attributes.forEach(this::setAttribute);
        submodules.forEach(this::setSubmodule);
    }

    public String className() { return className; }

    public Graph graph() { return graph; }

    /**
     * The size symbols the graph is generic in (its nodes then carry {@link Node#SYM_VAL}), or
     * null for a graph specialized to its example sizes.
     */
    public SizeSymbols sizeSymbols() { return sizeSymbols; }

    /** A copy with its own graph (nodes and meta copied), the same attributes, submodules and size symbols. */
    public GraphModule copy() {
        GraphModule gm = new GraphModule(className, graph.copy(), attributes, submodules);
        gm.setSizeSymbols(sizeSymbols);
        return gm;
    }

    public void setSizeSymbols(SizeSymbols symbols) { this.sizeSymbols = symbols == null || symbols.size() == 0 ? null : symbols; }

    /** Path → tensor, for {@code get_attr} nodes (unmodifiable, in registration order). */
    public Map<String, Tensor> attributes() { return Collections.unmodifiableMap(attributes); }

    /** Path → module, for {@code call_module} nodes (unmodifiable, in registration order). */
    public Map<String, CallableModule> submodules() { return Collections.unmodifiableMap(submodules); }

    public void setAttribute(String path, Tensor value) { attributes.put(checkPath(path), Objects.requireNonNull(value, "value")); }

    public void setSubmodule(String path, CallableModule module) { submodules.put(checkPath(path), Objects.requireNonNull(module, "module")); }

    /** The tensor at {@code path}, or an error naming the attributes there are. */
    public Tensor attribute(String path) {
        Tensor t = attributes.get(path);
        if (t == null) throw new IllegalArgumentException("GraphModule has no attribute '" + path + "'; it has " + attributes.keySet());
        return t;
    }

    /** The module at {@code path}, or an error naming the submodules there are. */
    public CallableModule submodule(String path) {
        CallableModule m = submodules.get(path);
        if (m == null) throw new IllegalArgumentException("GraphModule has no submodule '" + path + "'; it has " + submodules.keySet());
        return m;
    }

    /** Runs the graph on {@code inputs} (one per placeholder) with the {@link Interpreter}. */
    public Object run(Object... inputs) { return new Interpreter(this).run(inputs); }

    /** {@link Graph#lint()}, and every {@code get_attr}/{@code call_module} target exists here. */
    public void lint() {
        graph.lint();
        for (Node n : graph.nodes()) {
            if (n.kind() == NodeKind.GET_ATTR && !attributes.containsKey((String) n.target())) {
                throw new IllegalStateException("GraphModule lint failed: node '" + n + "' reads attribute '" + n.target()
                        + "', which the module does not have; it has " + attributes.keySet());
            }
            if (n.kind() == NodeKind.CALL_MODULE && !submodules.containsKey((String) n.target())) {
                throw new IllegalStateException("GraphModule lint failed: node '" + n + "' calls submodule '" + n.target()
                        + "', which the module does not have; it has " + submodules.keySet());
            }
        }
    }

    /**
     * The module {@code text} prints ({@link #code()}), with its class name and no attributes or
     * submodules: add those a {@code get_attr} or {@code call_module} node needs with
     * {@link #setAttribute}/{@link #setSubmodule} before running it. A graph whose inputs have
     * symbolic sizes ({@code f32[s0, 4]}) gets size symbols read from those inputs, so it runs on
     * inputs of any size. See {@link Graph#parse}.
     */
    public static GraphModule parse(String text) {
        ReadableParser.Parsed p = ReadableParser.parse(text);
        GraphModule gm = new GraphModule(p.className(), p.graph(), Map.of(), Map.of());
        gm.setSizeSymbols(ReadableParser.sizeSymbols(p.graph()));
        return gm;
    }

    /** The graph as readable Java-like code (torch's {@code print_readable}). */
    public String code() { return ReadablePrinter.print(graph, className); }

    /** The graph as a table (FX's {@code print_tabular}, plus each value's type). */
    public String tabular() { return FxPrinter.tabular(graph); }

    @Override
    public String toString() { return code(); }

    private static String checkPath(String path) {
        if (path == null || path.isEmpty() || path.startsWith(".") || path.endsWith(".") || path.contains("..")) {
            throw new IllegalArgumentException("not a dotted path: '" + path + "'");
        }
        return path;
    }
}
