package dev.ember.dynamo;

import dev.ember.dynamo.guards.Guard;
import dev.ember.dynamo.source.Source;
import dev.ember.ops.OpOverload;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The graph a trace builds, with the sources of its inputs and the guards installed so far.
 * All graph building goes through here.
 */
public final class OutputGraph {

    /** A value of the graph being built. */
    public static final class Node {
        final String kind;
        final String name;
        final Object target;
        final List<Object> args;
        final Object fake;
        final UserFrame location;

        Node(String kind, String name, Object target, List<Object> args, Object fake, UserFrame location) {
            this.kind = kind;
            this.name = name;
            this.target = target;
            this.args = args;
            this.fake = fake;
            this.location = location;
        }

        public String name() { return name; }

        @Override
        public String toString() { return name; }
    }

    /** {@code getitem(list, i)} on an op's list of outputs. */
    public record GetItem() {}

    private final List<Node> nodes = new ArrayList<>();
    private final List<Source> inputSources = new ArrayList<>();
    private final Map<String, Integer> nameCounts = new HashMap<>();
    private final Map<String, Guard> guards = new LinkedHashMap<>();
    private final Map<String, Object> modules = new LinkedHashMap<>();
    private List<Node> outputs;

    public Node placeholder(String name, Object fake, Source source) {
        Node n = new Node("placeholder", unique(name), name, List.of(), fake, null);
        nodes.add(n);
        inputSources.add(source);
        return n;
    }

    public Node callFunction(OpOverload op, List<Object> args, Object fake, UserFrame location) {
        String base = op.schema().name();
        Node n = new Node("call_function", unique(base), op, args, fake, location);
        nodes.add(n);
        return n;
    }

    public Node getItem(Node list, int index, Object fake, UserFrame location) {
        Node n = new Node("call_function", unique("getitem"), new GetItem(), List.of(list, index), fake, location);
        nodes.add(n);
        return n;
    }

    public Node callModule(String path, Object module, List<Object> args, Object fake, UserFrame location) {
        modules.put(path, module);
        Node n = new Node("call_module", unique(path.replace('.', '_')), path, args, fake, location);
        nodes.add(n);
        return n;
    }

    public void output(List<Node> values) { this.outputs = List.copyOf(values); }

    /** Adds a guard unless an identical one exists. */
    public void addGuard(Guard g) { guards.putIfAbsent(g.describe(), g); }

    public List<Guard> guards() { return List.copyOf(guards.values()); }

    public List<Source> inputSources() { return List.copyOf(inputSources); }

    public List<Node> nodes() { return List.copyOf(nodes); }

    public List<Node> outputs() { return outputs; }

    public Map<String, Object> modules() { return modules; }

    /** call_function and call_module nodes, as Dynamo's CompileCounter counts them. */
    public int opCount() {
        int n = 0;
        for (Node node : nodes) if (node.kind.startsWith("call")) n++;
        return n;
    }

    private String unique(String base) {
        String clean = base.replaceAll("[^A-Za-z0-9_]", "_");
        int k = nameCounts.merge(clean, 1, Integer::sum) - 1;
        return k == 0 ? clean : clean + "_" + k;
    }
}
