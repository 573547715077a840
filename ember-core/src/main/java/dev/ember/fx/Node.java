package dev.ember.fx;

import dev.ember.ops.OpOverload;
import dev.ember.ops.Tag;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One value of a {@link Graph}: an input, an op call, an attribute read or the output. Its
 * {@link #args()} and {@link #kwargs()} hold other nodes and constants (numbers, booleans, strings,
 * dtypes, {@code int[]}, nested lists); {@link #users()} — the nodes that read this one — is kept up
 * to date by every change of arguments. Create nodes through the graph's builders.
 *
 * <p>{@link #meta()} carries what passes learn about the node; by convention {@code "val"} holds its
 * fake value (a {@link dev.ember.tensor.FakeTensor}, a list of them, or a constant) and
 * {@code "source_location"} the {@link SourceLocation} it was traced from.
 */
public final class Node {
    /** Meta key of the node's fake value. */
    public static final String VAL = "val";
    /**
     * Meta key of the node's symbolic metadata in a graph made generic in some input sizes: a
     * {@link dev.ember.tensor.SymShape} (or a list of them, null for non-tensors) whose value at
     * the trace's example sizes is {@link #VAL}'s. Absent in a graph specialized to its sizes.
     */
    public static final String SYM_VAL = "sym_val";
    /** Meta key of the node's {@link SourceLocation}. */
    public static final String SOURCE_LOCATION = "source_location";

    final Graph graph;
    String name;
    private final NodeKind kind;
    private final Object target;
    private List<Object> args;
    private Map<String, Object> kwargs;
    /** Nodes reading this one, in the order they started to. */
    final Set<Node> users = new LinkedHashSet<>();
    /** The distinct nodes among args and kwargs, in order. */
    private Set<Node> inputs = new LinkedHashSet<>();
    private final Map<String, Object> meta = new LinkedHashMap<>();
    Node prev, next;
    boolean erased;

    Node(Graph graph, String name, NodeKind kind, Object target, List<?> args, Map<String, ?> kwargs) {
        this.graph = graph;
        this.name = name;
        this.kind = kind;
        this.target = checkTarget(kind, target);
        updateArgsKwargs(ArgTrees.freezeList(args), ArgTrees.freezeMap(kwargs));
    }

    private static Object checkTarget(NodeKind kind, Object target) {
        Objects.requireNonNull(target, "a node's target must not be null");
        boolean ok = switch (kind) {
            case CALL_FUNCTION -> target instanceof OpOverload || target instanceof GraphFunction;
            default -> target instanceof String;
        };
        if (!ok) {
            String expected = kind == NodeKind.CALL_FUNCTION ? "an OpOverload or a GraphFunction" : "a String";
            throw new IllegalArgumentException(kind + " node target must be " + expected + ", got "
                    + target.getClass().getSimpleName() + " " + target);
        }
        return target;
    }

    public Graph graph() { return graph; }

    /** Unique in its graph; also the node's variable name in printed code. */
    public String name() { return name; }

    public NodeKind kind() { return kind; }

    /**
     * For {@code CALL_FUNCTION} an {@link OpOverload} or a {@link GraphFunction}; for {@code CALL_METHOD}
     * a Tensor method name; for {@code CALL_MODULE} and {@code GET_ATTR} a dotted path; for
     * {@code PLACEHOLDER} the parameter name; for {@code OUTPUT} {@code "output"}.
     */
    public Object target() { return target; }

    /** Positional arguments (unmodifiable). */
    public List<Object> args() { return args; }

    public Object arg(int i) { return args.get(i); }

    /** Keyword arguments in their order (unmodifiable). */
    public Map<String, Object> kwargs() { return kwargs; }

    /** The nodes that use this node's value, in the order they started to (unmodifiable). */
    public Set<Node> users() { return Collections.unmodifiableSet(users); }

    /** The distinct nodes among this node's arguments, in order of appearance. */
    public List<Node> allInputNodes() { return List.copyOf(inputs); }

    /** The same distinct input nodes, as a live set (for the graph's own checks). */
    Set<Node> inputSet() { return inputs; }

    /**
     * Whether removing this node could change what the program does even when its value is unused:
     * inputs, the output, ops that write an argument (in place or out=) or are tagged
     * {@link Tag#NONDETERMINISTIC}, ops that return nothing (asserts: called for their effect), in-place Tensor methods ({@code add_}) and module calls (a
     * module may update its own state).
     */
    public boolean isImpure() {
        return switch (kind) {
            case PLACEHOLDER, OUTPUT, CALL_MODULE -> true;
            case GET_ATTR -> false;
            case CALL_METHOD -> ((String) target).endsWith("_");
            case CALL_FUNCTION -> target == BuiltinFunctions.SET_GRAD_ENABLED
                    || target instanceof OpOverload op && (op.writtenArg() >= 0 || op.hasTag(Tag.NONDETERMINISTIC) || op.returnsNothing())
                    || !writtenStatistics().isEmpty();
        };
    }

    /**
     * The running statistics (arguments 3 and 4, nodes or tensors) a batch_norm call in training
     * writes in place; empty for any other node. batch_norm's schema does not say it writes them
     * (ATen's {@code native_batch_norm} marks them {@code (a!)}), so this is where every pass that
     * asks what a node writes learns it.
     */
    public List<Object> writtenStatistics() {
        if (kind != NodeKind.CALL_FUNCTION || target != dev.ember.ops.NormOps.BATCH_NORM) return List.of();
        if (!Boolean.TRUE.equals(argument(5, "training"))) return List.of();
        List<Object> stats = new java.util.ArrayList<>(2);
        for (Object s : new Object[] {argument(3, "running_mean"), argument(4, "running_var")}) if (s != null) stats.add(s);
        return stats;
    }

    /** Argument {@code i}, given by position or by {@code name}; null when not given. */
    private Object argument(int i, String name) { return i < args.size() ? args.get(i) : kwargs.get(name); }

    /** Mutable metadata for passes. */
    public Map<String, Object> meta() { return meta; }

    /** The fake value ({@code meta("val")}), or null when not known. */
    /**
     * Whether this node's result shares memory with its first argument: a view op's always; reshape's
     * and flatten's only when the input's strides let them view it (else they copy, as their eager
     * kernels do), which the argument's and the result's metadata say; false for every other node.
     */
    public boolean aliasesFirstArgument() {
        if (kind != NodeKind.CALL_FUNCTION || !(target instanceof OpOverload op) || !op.returnsAlias() || args.isEmpty()) return false;
        if ((op == dev.ember.ops.ShapeOps.RESHAPE || op == dev.ember.ops.ShapeOps.FLATTEN)
                && args.getFirst() instanceof Node in && in.val() instanceof dev.ember.tensor.Tensor x && val() instanceof dev.ember.tensor.Tensor y) {
            return dev.ember.ops.ShapeOps.viewStrides(x.shape(), x.strides(), y.shape()) != null;
        }
        return true;
    }

    public Object val() { return meta.get(VAL); }

    public Node setVal(Object val) {
        meta.put(VAL, val);
        return this;
    }

    /** The symbolic metadata ({@code meta("sym_val")}), or null in a graph with static sizes. */
    public Object symVal() { return meta.get(SYM_VAL); }

    public Node setSymVal(Object symVal) {
        if (symVal == null) meta.remove(SYM_VAL);
        else meta.put(SYM_VAL, symVal);
        return this;
    }

    /** Where the node came from in user code, or null. */
    public SourceLocation sourceLocation() { return (SourceLocation) meta.get(SOURCE_LOCATION); }

    public Node setSourceLocation(SourceLocation location) {
        meta.put(SOURCE_LOCATION, location);
        return this;
    }

    /** The node before this one in its graph (null for the first). */
    public Node prev() { return prev == graph.root ? null : prev; }

    /** The node after this one in its graph (null for the last). */
    public Node next() { return next == graph.root ? null : next; }

    /** True once {@link Graph#eraseNode} removed this node. */
    public boolean isErased() { return erased; }

    /** Replaces the positional arguments; users of old and new inputs are updated. */
    public void setArgs(List<?> newArgs) { updateArgsKwargs(ArgTrees.freezeList(newArgs), kwargs); }

    /** Replaces the keyword arguments; users of old and new inputs are updated. */
    public void setKwargs(Map<String, ?> newKwargs) { updateArgsKwargs(args, ArgTrees.freezeMap(newKwargs)); }

    public void updateArg(int i, Object value) {
        List<Object> a = new ArrayList<>(args);
        a.set(i, value);
        setArgs(a);
    }

    public void updateKwarg(String key, Object value) {
        Map<String, Object> k = new LinkedHashMap<>(kwargs);
        k.put(key, value);
        setKwargs(k);
    }

    /** Replaces every use of {@code old} among this node's arguments by {@code replacement}. */
    public void replaceInputWith(Node old, Node replacement) {
        java.util.function.Function<Node, Object> swap = n -> n == old ? replacement : n;
        updateArgsKwargs(ArgTrees.mapList(args, swap), ArgTrees.mapMap(kwargs, swap));
    }

    /**
     * Makes every user of this node use {@code replacement} instead; returns the users changed.
     * Afterwards this node has no users (and can be erased).
     */
    public List<Node> replaceAllUsesWith(Node replacement) {
        Objects.requireNonNull(replacement, "replacement");
        if (replacement == this) return List.of();
        List<Node> changed = new ArrayList<>(users);
        for (Node user : changed) user.replaceInputWith(this, replacement);
        return changed;
    }

    /** Moves {@code x} (a node of the same graph) to just before this node. */
    public void prepend(Node x) {
        if (x.graph != graph) throw new IllegalArgumentException("cannot move node '" + x + "' of another graph before '" + this + "'");
        if (x == this) return;
        x.unlink();
        graph.link(x, prev, this);
    }

    /** Moves {@code x} (a node of the same graph) to just after this node. */
    public void append(Node x) {
        if (x == this) return;
        next.prepend(x);
    }

    void unlink() {
        prev.next = next;
        next.prev = prev;
    }

    /** Drops every argument: what erasing does, so inputs forget this node as a user. */
    void clearArgs() { updateArgsKwargs(ArgTrees.mapList(args, n -> null), ArgTrees.mapMap(kwargs, n -> null)); }

    private void updateArgsKwargs(List<Object> newArgs, Map<String, Object> newKwargs) {
        for (Node old : inputs) old.users.remove(this);
        this.args = newArgs;
        this.kwargs = newKwargs;
        Set<Node> in = new LinkedHashSet<>();
        ArgTrees.forEachNode(newArgs, in::add);
        for (Object v : newKwargs.values()) ArgTrees.forEachNode(v, in::add);
        this.inputs = in;
        for (Node n : in) n.users.add(this);
    }

    /** FX's {@code format_node}: {@code %add : f32[3, 4] [num_users=1] = call_function[target=aten.add.Tensor](args = (%x, %y), kwargs = {})}. */
    public String format() { return FxPrinter.formatNode(this); }

    /** The node's name, as FX's {@code repr(node)}. */
    @Override
    public String toString() { return name; }
}
