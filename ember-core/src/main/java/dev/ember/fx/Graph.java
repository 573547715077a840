package dev.ember.fx;

import dev.ember.ops.OpOverload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * Ember's IR, after FX: an ordered list of {@link Node}s forming one straight-line function —
 * placeholders (inputs), calls, attribute reads, and one output. Builders append at the current
 * insertion point (the end unless {@link #insertingBefore}/{@link #insertingAfter} moved it); the
 * surgery primitives ({@link #replaceAllUsesWith}, {@link #eraseNode}, {@link #eliminateDeadCode},
 * {@link Node#setArgs}, {@link Node#prepend}) keep every node's users consistent; {@link #lint()}
 * checks the invariants. {@link #toString()} prints FX's {@code Graph.__str__} form.
 */
public final class Graph {
    /** Sentinel of the circular node list: root.next is the first node, root.prev the last. */
    final Node root;
    private final Namespace names = new Namespace();
    private int size;
    private Anchor insertAt = null;

    /** Where builders insert: before or after {@code node}; null means at the end. */
    private record Anchor(Node node, boolean after) {}

    public Graph() {
        root = new Node(this, "", NodeKind.OUTPUT, "root", List.of(), Map.of());
        root.prev = root;
        root.next = root;
    }

    /** The nodes in order (a snapshot: changing the graph while iterating over it is safe). */
    public List<Node> nodes() {
        List<Node> out = new ArrayList<>(size);
        for (Node n = root.next; n != root; n = n.next) out.add(n);
        return out;
    }

    public int size() { return size; }

    /** Nodes of this kind (and, when {@code target} is not null, this target), in order. */
    public List<Node> findNodes(NodeKind kind, Object target) {
        List<Node> out = new ArrayList<>();
        for (Node n = root.next; n != root; n = n.next) {
            if (n.kind() == kind && (target == null || target.equals(n.target()))) out.add(n);
        }
        return out;
    }

    /** The placeholders, in order: the graph's parameters. */
    public List<Node> placeholders() { return findNodes(NodeKind.PLACEHOLDER, null); }

    /** The output node; fails when the graph has none. */
    public Node outputNode() {
        for (Node n = root.prev; n != root; n = n.prev) if (n.kind() == NodeKind.OUTPUT) return n;
        throw new IllegalStateException("graph has no output node");
    }

    // ------------------------------------------------------------------ builders

    /** An input named {@code name} with fake value {@code val} (may be null). */
    public Node placeholder(String name, Object val) {
        return createNode(NodeKind.PLACEHOLDER, name, List.of(), Map.of(), nameCandidate(name)).setVal(val);
    }

    /** A read of the module attribute at {@code path} (e.g. {@code linear.weight}) with fake value {@code val}. */
    public Node getAttr(String path, Object val) {
        return createNode(NodeKind.GET_ATTR, path, List.of(), Map.of(), nameCandidate(path)).setVal(val);
    }

    /** A call of an ATen op; the node is named after the op ({@code add}, {@code add_1}, …). */
    public Node callFunction(OpOverload op, List<?> args, Map<String, ?> kwargs) {
        return createNode(NodeKind.CALL_FUNCTION, op, args, kwargs, nameCandidate(op));
    }

    /** {@link #callFunction(OpOverload, List, Map)} with positional arguments only. */
    public Node callFunction(OpOverload op, Object... args) {
        return callFunction(op, Arrays.asList(args), Map.of());
    }

    /** A call of a non-ATen function such as {@link BuiltinFunctions#GETITEM}. */
    public Node callFunction(GraphFunction fn, List<?> args, Map<String, ?> kwargs) {
        return createNode(NodeKind.CALL_FUNCTION, fn, args, kwargs, nameCandidate(fn));
    }

    public Node callFunction(GraphFunction fn, Object... args) {
        return callFunction(fn, Arrays.asList(args), Map.of());
    }

    /** A call of the Tensor method {@code method} on {@code args[0]} (args include the receiver). */
    public Node callMethod(String method, List<?> args, Map<String, ?> kwargs) {
        if (args.isEmpty()) throw new IllegalArgumentException("call_method '" + method + "' needs its receiver as args[0]");
        return createNode(NodeKind.CALL_METHOD, method, args, kwargs, nameCandidate(method));
    }

    /** A call of the submodule at {@code path}; args exclude the module itself. */
    public Node callModule(String path, List<?> args, Map<String, ?> kwargs) {
        return createNode(NodeKind.CALL_MODULE, path, args, kwargs, nameCandidate(path));
    }

    /**
     * The graph's result. A {@code List} is returned as a tuple of values (Dynamo's graphs return
     * {@code (add,)}); a single node is returned as itself.
     */
    public Node output(Object value) {
        return createNode(NodeKind.OUTPUT, "output", Arrays.asList(value), Map.of(), nameCandidate("output"));
    }

    /**
     * A copy of {@code node} (from this or another graph) inserted here, its node arguments mapped
     * through {@code argTransform}; meta is copied shallowly and the name is kept when free.
     */
    public Node nodeCopy(Node node, Function<Node, Object> argTransform) {
        List<Object> args = ArgTrees.mapList(node.args(), argTransform);
        Map<String, Object> kwargs = ArgTrees.mapMap(node.kwargs(), argTransform);
        Node copy = createNode(node.kind(), node.target(), args, kwargs, node.name());
        copy.meta().putAll(node.meta());
        return copy;
    }

    /** What a new node is named after: the op ({@code add} for {@code aten.add.Tensor}), function, method, path or input name. */
    static String nameCandidate(Object target) {
        return switch (target) {
            case OpOverload op -> op.schema().name();
            case GraphFunction fn -> fn.name();
            default -> target.toString();
        };
    }

    /**
     * Renames {@code node} after {@code candidate}, made unique like every name (so the result may
     * carry a suffix); returns the new name.
     */
    public String rename(Node node, String candidate) {
        checkOwned(node, "rename");
        if (candidate.equals(node.name)) return node.name;
        node.name = names.create(candidate);
        return node.name;
    }

    /** Package-private for {@link GraphText}, which creates each node under the name its text gives. */
    Node createNode(NodeKind kind, Object target, List<?> args, Map<String, ?> kwargs, String nameCandidate) {
        Node n = new Node(this, names.create(nameCandidate), kind, target, args, kwargs);
        insert(n);
        if (target instanceof OpOverload op) op.enteredGraph();   // a GEMM starts the native BLAS loading while the graph is built
        return n;
    }

    private void insert(Node n) {
        Anchor at = insertAt;
        if (at == null) {
            link(n, root.prev, root);
        } else {
            if (at.node.erased) throw new IllegalStateException("the insertion point, node '" + at.node + "', was erased");
            if (at.after) {
                link(n, at.node, at.node.next);
                insertAt = new Anchor(n, true);     // keep creation order: the next node goes after this one
            } else {
                link(n, at.node.prev, at.node);
            }
        }
        size++;
    }

    void link(Node n, Node before, Node after) {
        n.prev = before;
        n.next = after;
        before.next = n;
        after.prev = n;
    }

    // ------------------------------------------------------------------ insertion point

    /**
     * Makes builders insert before {@code node} until the returned point is closed (use it in a
     * try-with-resources block; closing restores the previous point).
     */
    public InsertPoint insertingBefore(Node node) { return moveInsertPoint(node, false); }

    /**
     * Makes builders insert after {@code node}, in creation order (unlike FX, whose repeated
     * inserts after one node come out reversed), until the returned point is closed.
     */
    public InsertPoint insertingAfter(Node node) { return moveInsertPoint(node, true); }

    private InsertPoint moveInsertPoint(Node node, boolean after) {
        checkOwned(node, "insert next to");
        Anchor previous = insertAt;
        insertAt = new Anchor(node, after);
        return () -> insertAt = previous;
    }

    // ------------------------------------------------------------------ surgery

    /** Makes every user of {@code old} use {@code replacement}; returns the users changed. */
    public List<Node> replaceAllUsesWith(Node old, Node replacement) {
        checkOwned(old, "replace");
        checkOwned(replacement, "replace with");
        return old.replaceAllUsesWith(replacement);
    }

    /** Removes {@code node}, which must have no users. */
    public void eraseNode(Node node) {
        checkOwned(node, "erase");
        if (node.erased) throw new IllegalStateException("node '" + node + "' was already erased");
        if (!node.users.isEmpty()) {
            throw new IllegalStateException("cannot erase node '" + node + "': it still has " + node.users.size() + " user(s) "
                    + node.users + "; replace its uses first (Graph.replaceAllUsesWith)");
        }
        node.unlink();
        node.erased = true;
        node.clearArgs();
        size--;
    }

    /**
     * Erases {@code node} if nothing uses it and it is pure ({@link Node#isImpure()}), then, in
     * turn, the inputs that left unused: what a rewrite calls on the nodes it replaced, so that it
     * cleans up after itself and nothing else.
     */
    public void eraseIfUnused(Node node) {
        checkOwned(node, "erase");
        if (node.erased || !node.users.isEmpty() || node.isImpure()) return;
        List<Node> inputs = node.allInputNodes();
        eraseNode(node);
        for (Node in : inputs) eraseIfUnused(in);
    }

    /**
     * Removes nodes whose values nobody uses, last to first, keeping impure ones ({@link Node#isImpure()}:
     * in-place and random ops, module calls, inputs, the output). Returns whether anything was removed.
     * The graph is linted first, as DCE is only sound on a well-formed graph.
     */
    public boolean eliminateDeadCode() {
        lint();
        boolean changed = false;
        for (Node n = root.prev; n != root; ) {
            Node prev = n.prev;
            if (n.users.isEmpty() && !n.isImpure()) {
                eraseNode(n);
                changed = true;
            }
            n = prev;
        }
        return changed;
    }

    // ------------------------------------------------------------------ checks and copies

    /**
     * Checks that the graph is well-formed: every node argument is a live node of this graph defined
     * before its use, users and arguments agree, names are unique, and there is exactly one output,
     * at the end. Throws {@link IllegalStateException} naming the first problem and printing the graph.
     */
    public void lint() {
        Set<Node> seen = new HashSet<>();
        Map<String, Node> byName = new HashMap<>();
        List<Node> outputs = new ArrayList<>();
        for (Node n = root.next; n != root; n = n.next) {
            if (n.graph != this) fail("node '" + n + "' does not belong to this graph");
            if (n.erased) fail("node '" + n + "' is erased but still in the graph");
            for (Node in : n.inputSet()) {
                String ctx = "argument '" + in + "' of node '" + n + "'";
                if (in.graph != this) fail(ctx + " belongs to another graph; map arguments when copying nodes between graphs (Graph.nodeCopy)");
                if (in.erased) fail(ctx + " was erased from the graph");
                if (!seen.contains(in)) fail(ctx + " is used before it is defined; nodes must be in topological order");
                if (!in.users.contains(n)) fail("node '" + in + "' is an argument of '" + n + "' but does not list it among its users " + in.users);
            }
            for (Node user : n.users) {
                if (!user.inputSet().contains(n)) fail("node '" + n + "' lists '" + user + "' as a user, but '" + user + "' does not use it");
                if (user.erased || user.graph != this) fail("node '" + n + "' lists '" + user + "' as a user, but '" + user + "' is not in this graph");
            }
            Node dup = byName.put(n.name, n);
            if (dup != null) fail("two nodes are named '" + n.name + "'");
            if (n.kind() == NodeKind.OUTPUT) outputs.add(n);
            seen.add(n);
        }
        if (outputs.isEmpty()) fail("graph has no output node");
        if (outputs.size() > 1) fail("graph has " + outputs.size() + " output nodes " + outputs + "; it must have exactly one");
        if (root.prev.kind() != NodeKind.OUTPUT) fail("the output node '" + outputs.get(0) + "' must be the last node, but '" + root.prev + "' follows it");
    }

    private void fail(String problem) {
        throw new IllegalStateException("Graph lint failed: " + problem + "\n" + this);
    }

    /** A deep copy: new nodes with the same names, targets, arguments and (shallowly copied) meta. */
    public Graph copy() {
        Graph g = new Graph();
        Map<Node, Node> map = new HashMap<>();
        for (Node n = root.next; n != root; n = n.next) {
            map.put(n, g.nodeCopy(n, old -> Objects.requireNonNull(map.get(old),
                    () -> "node '" + old + "' is used before it is defined")));
        }
        return g;
    }

    private void checkOwned(Node n, String what) {
        Objects.requireNonNull(n, "node");
        if (n.graph != this) throw new IllegalArgumentException("cannot " + what + " node '" + n + "': it belongs to another graph");
    }

    /** FX's {@code Graph.__str__}: {@code graph():} and one {@link Node#format()} line per node. */
    @Override
    public String toString() { return FxPrinter.formatGraph(this); }

    /**
     * The graph {@code text} prints: the readable form of {@link GraphModule#code()}, as the logs
     * ({@code graph_code}, {@code aot_graphs}, …) and {@code fx_graph_readable.txt} show it. The
     * result prints the same text again ({@link GraphModule#parse} keeps the class name too), and
     * runs when every call in it is an op or a builtin function; see docs/logging.md.
     *
     * @throws GraphText.ParseError naming the line and column, e.g. {@code line 3, col 21: unknown op aten.foo.bar}
     */
    public static Graph parse(String text) { return ReadableParser.parse(text).graph(); }
}
