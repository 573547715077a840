package dev.ember.autograd;

import dev.ember.ops.Args;
import dev.ember.ops.OpEmitter;
import dev.ember.ops.OpOverload;
import dev.ember.ops.OpRegistry;
import dev.ember.ops.ShapeOps;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorScope;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Eager autograd: recording op calls into the autograd graph, and the front door of backward.
 *
 * <p>{@link OpOverload#call} hands a call here when grad mode is on and an argument requires grad.
 * A functional op with a {@link dev.ember.ops.Derivative} runs its kernel and records one node; one
 * without a formula but with a decomposition runs the decomposition, whose ops record themselves
 * (PyTorch's CompositeImplicitAutograd); one with neither records a node that refuses backward with
 * ATen's "the derivative for … is not implemented". An in-place op records its functional op's
 * derivative and moves the tensor's history onto it; an out= op refuses, as ATen does.
 */
public final class Autograd {
    private Autograd() {}

    /** True when this call must be recorded: grad mode is on and a tensor argument requires grad. */
    public static boolean records(Args args) {
        boolean any = false;
        for (int i = 0, n = args.size(); i < n && !any; i++) {
            Object v = args.get(i);
            if (v instanceof Tensor t) any = requiresGrad(t);
            else if (v instanceof List<?> l) for (Object x : l) if (x instanceof Tensor t && requiresGrad(t)) { any = true; break; }
        }
        return any && GradMode.isEnabled();
    }

    /** Whether {@code t} requires grad, counting a view whose base got a history through an in-place write since the view was made. */
    private static boolean requiresGrad(Tensor t) {
        if (t.requiresGrad()) return true;
        if (!t.isDifferentiableView() || t.viewVersion() == t.version() || !GradMode.isEnabled()) return false;
        ViewHistory.refresh(t);
        return t.requiresGrad();
    }

    /** Runs a call that {@link #records} said must be recorded. */
    public static Object call(OpOverload op, Args args, Object meta) {
        for (int i = 0; op.hasNonDifferentiableArguments() && i < args.size(); i++) {
            if (!op.differentiableArgument(i) && args.get(i) instanceof Tensor t && t.requiresGrad()) {
                throw new IllegalArgumentException("The function '" + op.schema().name() + "' is not differentiable with respect to argument '"
                        + op.schema().params().get(i).name() + "'. This input cannot have requires_grad True. (" + t.meta().describe()
                        + "; a BatchNorm's running statistics are buffers: detach() them, or keep them out of the parameters)");
            }
        }
        return switch (op.schema().kind()) {
            case OUT -> throw new IllegalArgumentException(op.name() + "(): functions with out=... arguments don't support automatic differentiation, "
                    + "but one of the arguments requires grad. Call the functional form (" + functionalName(op) + ") or run the call inside Ember.noGrad().");
            case INPLACE -> callInPlace(op, args, meta);
            case FUNCTIONAL -> callFunctional(op, args, meta);
        };
    }

    private static Object callFunctional(OpOverload op, Args args, Object meta) {
        if (op.derivative() == null && op.decomposition() != null) {
            Object out = op.decomposition().apply(OpEmitter.EAGER, args.toArray());
            if (out != null) return ownResults(op, out, args.toArray());
        }
        Object out;
        try (var unused = GradMode.noGrad()) {
            out = op.runKernel(args, meta);
            // a kernel that ends in a view of its own temporary (embedding's reshape) returns a fresh tensor all the same:
            // only view ops make differentiable views, whose in-place writes autograd checks (seed 130865)
            out = ownResults(op, out, args.toArray());
        }
        return record(op, args.toArray(), out);
    }

    /**
     * An op's results as its own ({@link #ownResult}) where it returns no alias: its one tensor, or
     * each tensor of the several it returns (mode's values, a reshape of the kernel's own gather:
     * seed 954323, where an in-place write of them was refused as one on a view of a leaf).
     */
    private static Object ownResults(OpOverload op, Object out, Object[] values) {
        if (op.returnsAlias()) return out;
        if (out instanceof Tensor t) return t.isView() ? ownResult(t, values) : t;
        if (!(out instanceof List<?> list)) return out;
        List<Object> own = null;
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof Tensor t) || !t.isView()) continue;
            if (own == null) own = new ArrayList<>(list);
            own.set(i, ownResult(t, values));
        }
        return own == null ? out : java.util.Collections.unmodifiableList(own);
    }

    /**
     * A decomposition's result as the op's own (the op returns a fresh tensor, and views follow
     * autograd's rules for in-place writes): a copy when it aliases one of the op's inputs, else the
     * temporary it views seen without a base ({@code _unsafe_view}), as DecomposePass does in graphs.
     */
    private static Tensor ownResult(Tensor result, Object[] values) {
        for (Object v : values) {
            // an operand in a list (einsum's) is an input as well: a view of it is no temporary (seed 820251)
            for (Object x : v instanceof List<?> list ? list : java.util.Collections.singletonList(v)) {
                if (x instanceof Tensor in && (in == result.viewBase() || in.viewBase() != null && in.viewBase() == result.viewBase())) {
                    return ShapeOps.CLONE.callTensor(result);
                }
            }
        }
        return ShapeOps.UNSAFE_VIEW.callTensor(result, result.shape());
    }

    /**
     * Records {@code op}'s call on {@code values} that produced {@code out}: the outputs that can
     * carry gradients (floating point) get a node naming the inputs that require grad. Returns the
     * outputs (an output that is one of the inputs itself comes back as a fresh view of it, so the
     * input's own history is untouched).
     */
    static Object record(OpOverload op, Object[] values, Object out) {
        List<Tensor> results = out instanceof Tensor t ? new ArrayList<>(List.of(t)) : new ArrayList<>(castList(out));
        boolean differentiable = false;
        for (int k = 0; k < results.size(); k++) {
            Tensor r = results.get(k);
            if (isInput(r, values)) results.set(k, r = r.viewAs(r.meta()));
            differentiable |= r.dtype().isFloatingPoint() && op.differentiableOutput(k);
        }
        if (!differentiable) return out;
        Object[] shapes = new Object[values.length];
        int[] firstEdge = new int[values.length];
        boolean[] needs = new boolean[values.length];
        List<Node.Edge> edges = new ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            firstEdge[i] = -1;
            Object v = values[i];
            if (v instanceof Tensor t) {
                shapes[i] = t.meta();
                firstEdge[i] = edges.size();
                needs[i] = t.requiresGrad();
                edges.add(t.requiresGrad() ? gradientEdge(t) : null);
            } else if (v instanceof List<?> l && !l.isEmpty() && l.stream().allMatch(x -> x instanceof Tensor)) {   // a Tensor?[] with nulls (index_put's indices) is kept as it is
                List<dev.ember.tensor.TensorMeta> metas = new ArrayList<>(l.size());
                firstEdge[i] = edges.size();
                for (Object x : l) {
                    Tensor t = (Tensor) x;
                    metas.add(t.meta());
                    needs[i] |= t.requiresGrad();
                    edges.add(t.requiresGrad() ? gradientEdge(t) : null);
                }
                shapes[i] = metas;
            } else {
                shapes[i] = v instanceof int[] a ? a.clone() : v;
            }
        }
        OpNode node = new OpNode(op, values, shapes, edges.toArray(Node.Edge[]::new), firstEdge, needs, results.toArray());
        for (int k = 0; k < results.size(); k++) {
            Tensor r = results.get(k);
            if (!r.dtype().isFloatingPoint() || !op.differentiableOutput(k)) continue;
            r.requiresGrad(true);
            AutogradMeta m = r.autogradMeta();
            m.gradFn = node;
            m.outputNr = k;
        }
        return out instanceof Tensor ? results.getFirst() : List.copyOf(results);
    }

    private static boolean isInput(Tensor r, Object[] values) {
        for (Object v : values) {
            if (v == r) return true;
            if (v instanceof List<?> l) for (Object x : l) if (x == r) return true;
        }
        return false;
    }

    @SuppressWarnings("unchecked")
    private static List<Tensor> castList(Object out) { return (List<Tensor>) out; }

    /** ATen's refusal of an in-place op on a leaf that requires grad ({@code described}: the tensor, {@code f32[2, 3]}); capture raises the same. */
    public static IllegalStateException leafInPlace(Object op, String described) {
        return new IllegalStateException("a leaf Variable that requires grad is being used in an in-place operation. (" + op + " on "
                + described + "; update parameters inside Ember.noGrad(), or clone() the tensor first)");
    }

    /** ATen's refusal of an in-place op on a view of a leaf that requires grad; capture raises the same. */
    public static IllegalStateException viewOfLeafInPlace(Object op, String described, String baseDescribed) {
        return new IllegalStateException("a view of a leaf Variable that requires grad is being used in an in-place operation. (" + op + " on "
                + described + ", a view of " + baseDescribed + "; write it inside Ember.noGrad(), or clone() the leaf first)");
    }

    /**
     * An in-place op under recording: the functional op computes the gradient path on a copy of
     * {@code self}'s old value that carries its old history, the in-place kernel writes {@code self}
     * as it always does, and {@code self}'s history moves onto the functional op's node.
     */
    private static Object callInPlace(OpOverload op, Args args, Object meta) {
        Tensor self = args.tensor(0);
        if (self.requiresGrad() && self.isLeaf()) throw leafInPlace(op, self.meta().describe());
        // ATen's check_inplace: the view requires grad and its root has no history, though the root itself may not require
        // grad (a view of an input view that was made to require grad, seed 121960)
        if (self.isDifferentiableView() && self.requiresGrad() && self.viewBase().isLeaf()) {
            throw viewOfLeafInPlace(op, self.meta().describe(), self.viewBase().meta().describe());
        }
        ViewHistory.refresh(self);
        OpOverload functional = OpRegistry.functionalOf(op);
        if (functional == null && op != ShapeOps.COPY_) {
            throw new UnsupportedOperationException(op + " has no functional form Ember can differentiate; use an out-of-place op, or run it inside Ember.noGrad()");
        }
        if (op == ShapeOps.COPY_) return copyInPlace(op, args, meta);
        Tensor before;
        try (var unused = GradMode.noGrad()) {
            before = ShapeOps.CLONE.callTensor(self);
        }
        if (self.requiresGrad()) {
            before.requiresGrad(true);
            AutogradMeta m = before.autogradMeta();
            m.gradFn = self.gradFn();
            m.outputNr = self.autogradMeta().outputNr;
        }
        Object[] values = args.toArray();
        for (int i = 0; i < values.length; i++) if (values[i] == self) values[i] = before;   // x.mul_(x) reads x's old value twice
        return writeAndMoveHistory(op, args, meta, self, (Tensor) functional.call(values));
    }

    /**
     * Runs the in-place kernel (unrecorded) and moves {@code self}'s history onto the recorded
     * functional result; returns what the kernel returned. When the result carries no gradient,
     * a non-leaf {@code self} becomes a constant: its old history no longer says how it was made.
     */
    private static Object writeAndMoveHistory(OpOverload op, Args args, Object meta, Tensor self, Tensor functionalResult) {
        Object written;
        try (var unused = GradMode.noGrad()) {
            written = op.runKernel(args, meta);
        }
        if (functionalResult.gradFn() instanceof OpNode node) node.savedResultIsNow(functionalResult, self);
        if (self.isDifferentiableView() && self.dtype().isFloatingPoint()) {
            ViewHistory.writeThroughView(self, functionalResult);
        } else if (functionalResult.requiresGrad() && self.dtype().isFloatingPoint()) {
            self.requiresGrad(true);
            AutogradMeta m = self.autogradMeta();
            m.gradFn = functionalResult.gradFn();
            m.outputNr = functionalResult.autogradMeta().outputNr;
        } else if (self.requiresGrad() && !self.isLeaf()) {
            self.autogradMeta().gradFn = null;
            self.requiresGrad(false);
        }
        return written;
    }

    /** {@code self.copy_(src)}: self's old history gets nothing; src gets the gradient (summed where it was broadcast, cast back). */
    private static Object copyInPlace(OpOverload op, Args args, Object meta) {
        Tensor self = args.tensor(0), src = args.tensor(1);
        return writeAndMoveHistory(op, args, meta, self, ShapeOps.EXPAND.callTensor(ShapeOps.TO_COPY.callTensor(src, self.dtype()), self.shape()));
    }

    private static String functionalName(OpOverload op) {
        OpOverload f = OpRegistry.functionalOf(op);
        return f == null ? op.name() : f.name();
    }

    /** Where a gradient for {@code t} goes: the node that made it, or its leaf accumulator. */
    static Node.Edge gradientEdge(Tensor t) {
        ViewHistory.refresh(t);
        AutogradMeta m = t.autogradMeta();
        if (m.gradFn != null) return new Node.Edge(m.gradFn, m.outputNr);
        if (m.accumulator == null) m.accumulator = new AccumulateGrad(t);
        return new Node.Edge(m.accumulator, 0);
    }

    // ------------------------------------------------------------------ functions with a whole backward

    /** A whole computation's backward: the gradients of its inputs (null: none) from its outputs' (null: unused output). */
    @FunctionalInterface
    public interface Backward {
        Tensor[] apply(Tensor[] gradOutputs);
    }

    /**
     * A backward whose gradients are tensors it made for the caller alone, never kept or shared
     * (a compiled graph's backward): a leaf may take such a gradient as its {@code .grad} without
     * a copy. A user's custom backward is not assumed to be one.
     */
    @FunctionalInterface
    public interface FreshBackward extends Backward {}

    /**
     * Records a computation that ran as one piece (a compiled forward graph, or a custom function
     * like PyTorch's {@code autograd.Function}): its floating point {@code outputs} get one node
     * named {@code name} whose backward is {@code backward}, with an edge to each input that requires
     * grad. Returns the outputs to hand out: an output that is one of the inputs comes back as a
     * fresh view. Does nothing (returns the outputs) when grad mode is off or no input requires grad.
     */
    public static List<Tensor> function(String name, List<Tensor> inputs, List<Tensor> outputs, Backward backward) {
        return function(name, inputs, outputs, null, null, backward);
    }

    /**
     * {@link #function(String, List, List, Backward)} where only the outputs {@code differentiable}
     * marks carry gradients (null: every float output), and only the inputs {@code readByBackward}
     * marks are version-checked at backward (null: all): those the backward reads.
     */
    public static List<Tensor> function(String name, List<Tensor> inputs, List<Tensor> outputs, boolean[] differentiable, boolean[] readByBackward,
                                        Backward backward) {
        boolean any = false;
        for (Tensor t : inputs) any |= t.requiresGrad();
        if (!any || !GradMode.isEnabled()) return outputs;
        Node.Edge[] edges = new Node.Edge[inputs.size()];
        for (int i = 0; i < edges.length; i++) edges[i] = inputs.get(i).requiresGrad() ? gradientEdge(inputs.get(i)) : null;
        FunctionNode node = new FunctionNode(name, inputs, readByBackward, outputs.size(), backward, edges);
        List<Tensor> out = new ArrayList<>(outputs.size());
        for (int k = 0; k < outputs.size(); k++) {
            Tensor r = outputs.get(k);
            if (r != null && isInput(r, inputs.toArray())) r = r.viewAs(r.meta());
            if (r != null && r.dtype().isFloatingPoint() && (differentiable == null || differentiable[k])) {
                r.requiresGrad(true);
                AutogradMeta m = r.autogradMeta();
                m.gradFn = node;
                m.outputNr = k;
            }
            out.add(r);
        }
        return out;
    }

    // ------------------------------------------------------------------ the public API

    /**
     * Computes the gradients of {@code roots} (each given its gradient, or scalars with none) and
     * adds them into every leaf's {@link Tensor#grad()}: PyTorch's {@code torch.autograd.backward}.
     * Leaves change only when the whole backward succeeded.
     */
    public static void backward(List<Tensor> roots, List<Tensor> gradients, boolean retainGraph, boolean createGraph) {
        Engine.run(roots, gradients, retainGraph, createGraph, null, false);
    }

    /**
     * The gradients of {@code outputs} with respect to {@code inputs}, returned rather than
     * accumulated ({@code torch.autograd.grad}); no leaf's {@code grad()} changes. An input the
     * outputs do not depend on is an error unless {@code allowUnused} (its gradient is then null).
     */
    public static List<Tensor> grad(List<Tensor> outputs, List<Tensor> inputs, List<Tensor> gradOutputs,
                                    boolean retainGraph, boolean createGraph, boolean allowUnused) {
        for (int i = 0; i < inputs.size(); i++) {
            if (!inputs.get(i).requiresGrad()) throw new IllegalArgumentException("One of the differentiated Tensors does not require grad (input " + i + ": " + inputs.get(i).meta().describe() + ")");
        }
        return Engine.run(outputs, gradOutputs, retainGraph, createGraph, inputs, allowUnused);
    }

    /** {@link #grad(List, List, List, boolean, boolean, boolean)} of one scalar output. */
    public static List<Tensor> grad(Tensor output, Tensor... inputs) {
        return grad(List.of(output), List.of(inputs), null, false, false, false);
    }

    /** Tensor.setGrad's implementation. */
    public static void setGrad(Tensor t, Tensor g) {
        if (g != null) {
            if (!Arrays.equals(g.shape(), t.shape())) {
                throw new IllegalArgumentException("assigned grad has data of a different size: " + Shapes.format(g.shape()) + " for a tensor of " + Shapes.format(t.shape()));
            }
            if (g.dtype() != t.dtype()) throw new IllegalArgumentException("assigned grad has data of a different type: " + g.dtype() + " for a tensor of " + t.dtype());
        }
        t.autogradMeta().grad = TensorScope.escape(g);
    }

    /** What {@link #registerHook} returns: {@code remove()} takes the hook off. */
    public interface HookHandle {
        void remove();
    }

    /**
     * Tensor.registerHook's implementation: {@code hook} sees the gradient with respect to {@code t}
     * each time a backward computes it, before it is used (a leaf's {@code grad()} accumulates what
     * the hooks return); returning a tensor replaces the gradient (same shape), null keeps it.
     */
    public static HookHandle registerHook(Tensor t, java.util.function.UnaryOperator<Tensor> hook) {
        if (hook == null) throw new NullPointerException("registerHook: the hook is null");
        if (!t.requiresGrad()) throw new IllegalStateException("cannot register a hook on a tensor that doesn't require gradient (" + t.meta().describe() + ")");
        Node.Edge edge = gradientEdge(t);
        edge.node().addGradientHook(edge.inputNr(), hook);
        return () -> edge.node().gradientHooks[edge.inputNr()].remove(hook);
    }

    /** Tensor.retainGrad's implementation. */
    public static void retainGrad(Tensor t) {
        if (!t.requiresGrad()) throw new IllegalStateException("can't retain_grad on Tensor that has requires_grad=False (" + t.meta().describe() + ")");
        if (t.isLeaf()) return;
        AutogradMeta m = t.autogradMeta();
        m.retainsGrad = true;
        m.gradFn.retain(m.outputNr, t);
    }
}
