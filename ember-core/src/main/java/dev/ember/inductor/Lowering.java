package dev.ember.inductor;

import dev.ember.fx.BuiltinFunctions;
import dev.ember.fx.CompilerSteps;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.SizeSymbols;
import dev.ember.fx.SymbolicShapes;
import dev.ember.inductor.ir.Affine;
import dev.ember.inductor.ir.Buffer;
import dev.ember.inductor.ir.Expr;
import dev.ember.inductor.ir.Sizes;
import dev.ember.inductor.ir.Stage;
import dev.ember.inductor.ir.Value;
import dev.ember.ops.OpOverload;
import dev.ember.ops.Schema;
import dev.ember.tensor.DType;
import dev.ember.tensor.SymInt;
import dev.ember.tensor.SymShape;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a graph (decomposed to the core opset, nodes carrying fake values) into buffers and
 * {@link Stage}s: pointwise ops become {@link Value.Computed} expressions that consumers inline,
 * views re-index instead of copying, reductions and GEMMs become stages, and every op without a
 * lowering runs its eager kernel as an {@link Stage.Extern} (noted as a perf hint, never wrong).
 * Each op call's lowering is one {@link CompilerSteps} step: skipped, the op runs its eager kernel.
 */
public final class Lowering {

    /**
     * The lowered graph: what to allocate, what to run, and what to return; {@code sizeSymbols} are
     * the symbols its sizes depend on (null for a static graph).
     */
    public record Result(List<Buffer> buffers, List<Stage> stages, List<TensorMeta> inputMetas,
                         List<String> attributePaths, Object output, List<String> perfHints, SizeSymbols sizeSymbols) {}

    /** Thrown for graphs the compiler does not take at all (then the graph runs in the interpreter). */
    public static final class Unsupported extends RuntimeException {
        Unsupported(String reason) { super(reason); }
    }

    /**
     * Thrown for a graph generic in some input sizes when part of it can only be compiled for
     * particular sizes; the caller compiles the graph specialized to its example sizes instead
     * (as for any {@link SymbolicShapes.NotGeneric}). The message names the node and why.
     */
    public static final class NotSizeGeneric extends SymbolicShapes.NotGeneric {
        NotSizeGeneric(Node n, String reason) {
            this("'" + n.name() + "' (" + n.target() + ") cannot be compiled for every size: " + reason
                    + (n.sourceLocation() == null ? "" : " [" + n.sourceLocation().fileAndLine() + "]"));
        }

        NotSizeGeneric(String message) { super(message); }
    }

    /** Inline a shared pointwise value into each user only while it is this small (in expression nodes). */
    private static final int RECOMPUTE_LIMIT = 12;
    /** Beyond this size an expression is stored, whatever its users, to keep kernels bounded. */
    private static final int INLINE_LIMIT = 160;

    private final GraphModule gm;
    private final List<Buffer> buffers = new ArrayList<>();
    private final List<Stage> stages = new ArrayList<>();
    private final List<TensorMeta> inputMetas = new ArrayList<>();
    private final List<String> attributePaths = new ArrayList<>();
    private final List<String> perfHints = new ArrayList<>();
    private final Map<Node, Object> env = new IdentityHashMap<>();
    /** Computed values already stored ({@link #realize}), by identity. */
    private final Map<Value, Value.Stored> realized = new IdentityHashMap<>();

    /**
     * Final values of inputs the caller writes back ({@link dev.ember.aot.Functionalize#WRITTEN_BACK_FROM_OUTPUT}):
     * stored where they are computed, so their users read the stored value rather than recompute it
     * from the input's old value — which lets {@link InputWriteBack} store them in the input's memory.
     */
    private final java.util.Set<Node> writtenBack = java.util.Collections.newSetFromMap(new IdentityHashMap<>());

    private Lowering(GraphModule gm) {
        this.gm = gm;
        Node output = gm.graph().outputNode();
        if (output != null && output.arg(0) instanceof List<?> outs) {
            for (Node p : gm.graph().placeholders()) {
                if (p.meta().get(dev.ember.aot.Functionalize.WRITTEN_BACK_FROM_OUTPUT) instanceof Integer j && j < outs.size() && outs.get(j) instanceof Node v) {
                    writtenBack.add(v);
                }
            }
        }
    }

    public static Result lower(GraphModule gm) {
        Lowering l = new Lowering(gm);
        Object out = l.run();
        return new Result(l.buffers, l.stages, l.inputMetas, l.attributePaths, out, l.perfHints, gm.sizeSymbols());
    }

    private Object run() {
        for (Node n : gm.graph().nodes()) {
            switch (n.kind()) {
                case PLACEHOLDER -> env.put(n, input(symShape(n, tensorVal(n)), tensorVal(n)));
                case GET_ATTR -> {
                    attributePaths.add((String) n.target());
                    Tensor attribute = gm.attribute((String) n.target());
                    env.put(n, input(SymShape.of(attribute.meta()), attribute));
                }
                case CALL_FUNCTION -> env.put(n, callFunction(n));
                case OUTPUT -> { return output(n.arg(0)); }
                default -> throw new Unsupported(n.kind() + " node '" + n + "' (only ATen calls are compiled)");
            }
        }
        throw new IllegalStateException("graph has no output node");
    }

    private Value input(SymShape layout, Tensor example) {
        TensorMeta m = example.meta();
        Buffer b = newBuffer(Buffer.Kind.INPUT, m.dtype(), Sizes.ZERO, inputMetas.size());
        inputMetas.add(m);
        return new Value.Stored(b, m.dtype(), layout.sizes(), layout.strides(), Sizes.ZERO);
    }

    /** The layout of the node's tensor value {@code val}: its symbolic metadata in a graph generic in sizes, else {@code val}'s. */
    static SymShape symShape(Node n, Tensor val) {
        return n.symVal() instanceof SymShape s ? s : SymShape.of(val.meta());
    }

    /** {@link #symShape} of element {@code i} of a node whose value is a list of tensors. */
    private static SymShape symShape(Node n, int i, Tensor val) {
        return n.symVal() instanceof List<?> l && l.get(i) instanceof SymShape s ? s : SymShape.of(val.meta());
    }

    private static Tensor tensorVal(Node n) {
        if (n.val() instanceof Tensor t) return t;
        throw new Unsupported("input '" + n + "' is not a tensor (" + n.val() + ")");
    }

    private Object callFunction(Node n) {
        if (n.target() == BuiltinFunctions.GETITEM) {
            Object list = env.get((Node) n.arg(0));
            if (!(list instanceof List<?> l)) throw new Unsupported("getitem on a non-list value at '" + n + "'");
            return l.get(((Number) n.arg(1)).intValue());
        }
        // generated code records no autograd history: switching grad mode changes nothing in it
        if (n.target() == BuiltinFunctions.SET_GRAD_ENABLED) return null;
        if (!(n.target() instanceof OpOverload op)) throw new Unsupported("call of " + n.target());
        // its in-place writes are invisible to values already computed from the statistics: op by op keeps eager's order
        String inPlace = dev.ember.aot.Functionalize.inPlaceStatisticsNotLowered(n);
        if (inPlace != null) throw new Unsupported("batch_norm in training at '" + n + "' " + inPlace);
        List<Object> args = new ArrayList<>();
        for (Object a : positional(op, n)) args.add(resolve(a));
        if (!CompilerSteps.apply(CompilerSteps.Kind.LOWERING, () -> CompilerSteps.describe(n))) {
            return extern(n, op, args, "lowering skipped (" + CompilerSteps.LIMIT_ENV + ", ember bisect)");
        }
        // an op returning nothing (an assert) has no value to compute: it is an eager call by design, no perf hint
        if (op.returnsNothing()) return extern(n, op, args, null);
        Object lowered = Rules.lower(this, n, op, args);
        if (lowered != null) return lowered;
        return extern(n, op, args, (Rules.isDeclaredFallback(op) ? "a declared fallback: " : "no lowering for ") + op.name());
    }

    private Object resolve(Object a) {
        return switch (a) {
            case Node x -> env.get(x);
            case List<?> l -> l.stream().map(this::resolve).toList();
            case null, default -> a;
        };
    }

    private Object output(Object out) {
        return switch (out) {
            case Node x -> {
                Object v = env.get(x);
                yield v instanceof Value.Computed c ? realize(c, x) : v;
            }
            case List<?> l -> l.stream().map(this::output).toList();
            case null, default -> out;
        };
    }

    // ------------------------------------------------------------------ services for the rules

    Buffer newBuffer(Buffer.Kind kind, DType dtype, SymInt size, int inputIndex) {
        Buffer b = new Buffer(buffers.size(), kind, dtype, size, inputIndex);
        buffers.add(b);
        return b;
    }

    /**
     * Stores a computed value in a new contiguous buffer, once: a value stored for one user (an
     * extern's operand) is the same buffer for the next (the graph's output), not computed again.
     */
    Value.Stored realize(Value v, Node node) {
        if (v instanceof Value.Stored s) return s;
        Value.Stored done = realized.get(v);
        if (done != null) return done;
        SymInt[] shape = v.shape();
        Buffer b = newBuffer(Buffer.Kind.COMPUTED, v.dtype(), Sizes.numel(shape), -1);
        stages.add(new Stage.Pointwise(node, b, shape, v.load(vars(shape.length))));
        Value.Stored stored = new Value.Stored(b, v.dtype(), shape, Sizes.contiguousStrides(shape), Sizes.ZERO);
        realized.put(v, stored);
        return stored;
    }

    /** A pointwise result: kept as an expression, or stored when its users would recompute too much. */
    Value pointwise(Node n, Value.Computed c) {
        int size = Expr.size(c.load(vars(c.shape().length)));
        if (size > INLINE_LIMIT || (n.users().size() > 1 && size > RECOMPUTE_LIMIT) || n.users().size() > 1 && writtenBack.contains(n)) return realize(c, n);
        return c;
    }

    void addStage(Stage s) { stages.add(s); }

    static Affine[] vars(int n) {
        Affine[] v = new Affine[n];
        for (int i = 0; i < n; i++) v[i] = Affine.var(i);
        return v;
    }

    /**
     * Runs {@code op} by its eager kernel; tensor arguments are stored first. {@code reason} says why
     * the op has no generated code (a perf hint), or is null for ops that are extern by design (conv).
     */
    Object extern(Node n, OpOverload op, List<Object> args, String reason) {
        if (reason != null) {
            perfHints.add(n.name() + " (" + op.name() + "): " + reason + "; it runs its eager kernel"
                    + (n.sourceLocation() == null ? "" : " [" + n.sourceLocation().fileAndLine() + "]"));
        }
        List<Object> operands = new ArrayList<>();
        for (Object a : args) operands.add(operand(a, n));
        List<Buffer> outs = new ArrayList<>();
        Object result;
        if (op.returnsNothing()) {
            result = null;      // an assert: a stage with no output, kept in order by the scheduler as every extern is
        } else if (n.val() instanceof Tensor t) {
            result = externOut(outs, t.dtype(), symShape(n, t).sizes());
        } else if (n.val() instanceof List<?> list && list.stream().allMatch(x -> x instanceof Tensor)) {
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                Tensor t = (Tensor) list.get(i);
                values.add(externOut(outs, t.dtype(), symShape(n, i, t).sizes()));
            }
            result = values;
        } else {
            throw new Unsupported("op " + op.name() + " at '" + n + "' returns " + n.val() + ", not tensors");
        }
        stages.add(new Stage.Extern(n, op, operands, outs, reason));
        return result;
    }

    /** A buffer for an extern kernel's (contiguous) result, added to {@code outs}, as a value. */
    private Value.Stored externOut(List<Buffer> outs, DType dtype, SymInt[] shape) {
        Buffer b = newBuffer(Buffer.Kind.EXTERN, dtype, Sizes.numel(shape), -1);
        outs.add(b);
        return new Value.Stored(b, dtype, shape, Sizes.contiguousStrides(shape), Sizes.ZERO);
    }

    private Object operand(Object a, Node n) {
        return switch (a) {
            case Value v -> {
                Value.Stored s = realize(v, n);
                yield new Stage.Operand(s.buffer(), s.shape(), s.strides(), s.offset());
            }
            case List<?> l -> l.stream().map(x -> operand(x, n)).toList();
            case null, default -> a;
        };
    }

    /** The node's arguments in schema order, keyword arguments placed and defaults filled in. */
    static Object[] positional(OpOverload op, Node n) {
        List<Object> values = new ArrayList<>(n.args());
        List<Schema.Param> params = op.schema().params();
        boolean[] given = new boolean[params.size()];
        for (int i = 0; i < values.size() && i < given.length; i++) given[i] = true;
        for (var kw : n.kwargs().entrySet()) {
            int i = 0;
            while (i < params.size() && !params.get(i).name().equals(kw.getKey())) i++;
            if (i == params.size()) throw new Unsupported(op.name() + " has no argument '" + kw.getKey() + "'");
            while (values.size() <= i) values.add(null);
            values.set(i, kw.getValue());
            given[i] = true;
        }
        for (int i = 0; i < values.size(); i++) if (!given[i]) values.set(i, params.get(i).defaultValue());
        return op.bind(values.toArray()).toArray();
    }
}
