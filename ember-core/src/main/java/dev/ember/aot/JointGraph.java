package dev.ember.aot;

import dev.ember.fx.BuiltinFunctions;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.InsertPoint;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.ops.Derivative;
import dev.ember.ops.Grad;
import dev.ember.ops.OpOverload;
import dev.ember.ops.PointwiseOps;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The joint forward-backward graph (AOTAutograd's {@code create_joint}): the prepared forward graph,
 * one {@code tangents_k} placeholder per differentiable output, and after the forward nodes the
 * backward nodes, written by each op's {@link Derivative} (the formula eager backward runs) through a
 * {@link GraphEmitter}, in reverse order of the forward. Its output is the forward's outputs followed
 * by the gradient of each input that requires grad.
 */
final class JointGraph {
    /**
     * A backward node's meta: the tangents (a {@link java.util.BitSet} of their indices) whose
     * gradient it is part of: those its inputs depend on and those of the gradient whose derivative
     * made it, so that a formula's {@code zeros} (fill's derivative) belongs to the gradient that
     * eager would have run the formula for (see {@link MissingTangents}).
     */
    static final String TANGENTS = "ember_tangents";
    /** A graph AOT cannot differentiate; the message names the op and why. */
    static final class NotDifferentiable extends RuntimeException {
        NotDifferentiable(String message) { super(message); }
    }

    final GraphModule module;
    /** The primal placeholders, in the forward's order. */
    final List<Node> primals;
    final List<Node> tangents;
    /** The forward's outputs (values: nodes or constants). */
    final List<Object> outputs;
    /** Which forward outputs carry a gradient (have a tangent). */
    final boolean[] differentiableOutputs;
    /** Which primals get a gradient: those that require grad and that some differentiable output used. */
    final boolean[] primalsRequiringGrad;
    /** The first node of the backward part; every node before it (but the tangents) is forward. */
    final Set<Node> backwardNodes;

    /** Whether {@code n} unpacks an output its op says carries no gradient (batch_norm's new running statistics). */
    private static boolean nonDifferentiableItem(Node n) {
        return n.target() == BuiltinFunctions.GETITEM && n.arg(0) instanceof Node of && of.target() instanceof OpOverload op
                && n.arg(1) instanceof Number i && !op.differentiableOutput(i.intValue());
    }

    /** Whether {@code n} is an op whose one result carries no gradient ({@code detach}): the path from the inputs stops there. */
    private static boolean nonDifferentiableResult(Node n) {
        return n.target() instanceof OpOverload op && n.val() instanceof Tensor && !op.differentiableOutput(0);
    }

    /**
     * For each primal, the forward outputs whose value depends on it (through forward nodes only):
     * its gradient has a term from output {@code o} only when {@code o} is in its set, so a primal
     * none of whose outputs received a gradient gets none, as eager's autograd gives none.
     */
    boolean[][] outputsReached() {
        boolean[][] reached = new boolean[primals.size()][outputs.size()];
        for (int p = 0; p < primals.size(); p++) {
            Set<Node> seen = new java.util.HashSet<>();
            java.util.ArrayDeque<Node> work = new java.util.ArrayDeque<>(List.of(primals.get(p)));
            while (!work.isEmpty()) {
                Node n = work.pop();
                if (!seen.add(n)) continue;
                for (Node u : n.users()) if (!backwardNodes.contains(u) && !nonDifferentiableItem(u)) work.push(u);
            }
            for (int o = 0; o < outputs.size(); o++) reached[p][o] = outputs.get(o) instanceof Node n && seen.contains(n);
        }
        return reached;
    }

    private JointGraph(GraphModule module, List<Node> primals, List<Node> tangents, List<Object> outputs, boolean[] differentiableOutputs,
                       boolean[] primalsRequiringGrad, Set<Node> backwardNodes) {
        this.module = module;
        this.primals = primals;
        this.tangents = tangents;
        this.outputs = outputs;
        this.differentiableOutputs = differentiableOutputs;
        this.primalsRequiringGrad = primalsRequiringGrad;
        this.backwardNodes = backwardNodes;
    }

    /**
     * Replaces, until none is left, each op on a path from an input that requires grad that has no
     * derivative of its own but a decomposition (cross_entropy, scaled_dot_product_attention, …,
     * which inference graphs keep whole) by its decomposition, whose ops have derivatives: eager
     * autograd differentiates them the same way.
     */
    static void decomposeForGrad(GraphModule forward, boolean[] requiresGrad, boolean recordingAtEntry) {
        Graph graph = forward.graph();
        for (boolean changed = true; changed; ) {
            changed = false;
            Set<Node> requires = new HashSet<>();
            List<Node> primals = graph.placeholders();
            for (int i = 0; i < primals.size(); i++) if (requiresGrad[i]) requires.add(primals.get(i));
            boolean recording = recordingAtEntry;
            for (Node n : graph.nodes()) {
                if (n.target() == BuiltinFunctions.SET_GRAD_ENABLED) recording = (Boolean) n.arg(0);
                if (!recording || n.kind() == NodeKind.PLACEHOLDER || n.kind() == NodeKind.OUTPUT) continue;
                boolean anyInput = false;
                for (Node in : n.allInputNodes()) anyInput |= requires.contains(in);
                if (!anyInput) continue;
                requires.add(n);
                if (!(n.target() instanceof OpOverload op) || op.derivative() != null || op.decomposition() == null) continue;
                Object out;
                try (InsertPoint ignored = graph.insertingBefore(n)) {
                    out = op.decomposition().apply(new GraphEmitter(graph, n.sourceLocation()), DecomposePass.positional(op, n));
                }
                if (!(out instanceof Node result)) continue;
                n.replaceAllUsesWith(result);
                graph.eraseNode(n);
                changed = true;
                break;
            }
        }
    }

    /**
     * Builds the joint graph in {@code forward} (a prepared, functional graph it takes over), whose
     * ops record from the start when {@code recordingAtEntry} (grad mode as the call finds it) and
     * from each {@code _set_grad_enabled(true)} node on.
     */
    static JointGraph build(GraphModule forward, boolean[] requiresGrad, boolean recordingAtEntry) {
        decomposeForGrad(forward, requiresGrad, recordingAtEntry);
        Graph graph = forward.graph();
        List<Node> primals = graph.placeholders();
        if (primals.size() != requiresGrad.length) {
            throw new IllegalArgumentException("the graph has " + primals.size() + " inputs, the requires-grad mask " + requiresGrad.length);
        }
        List<Node> forwardNodes = graph.nodes();
        for (Node n : forwardNodes) n.meta().put(TANGENTS, new java.util.BitSet());   // forward values belong to no tangent
        Node outputNode = graph.outputNode();
        Set<Node> requires = new HashSet<>();
        for (int i = 0; i < primals.size(); i++) if (requiresGrad[i]) requires.add(primals.get(i));
        boolean recording = recordingAtEntry;   // _set_grad_enabled nodes switch it
        for (Node n : forwardNodes) {
            if (n.target() == BuiltinFunctions.SET_GRAD_ENABLED) {
                recording = (Boolean) n.arg(0);
                continue;
            }
            if (n.kind() == NodeKind.PLACEHOLDER || n.kind() == NodeKind.OUTPUT || !recording) continue;
            boolean anyInput = false;
            for (Node in : n.allInputNodes()) anyInput |= requires.contains(in);
            if (!anyInput || !carriesFloat(n.val()) || nonDifferentiableItem(n) || nonDifferentiableResult(n)) continue;
            if (n.kind() != NodeKind.CALL_FUNCTION || !(n.target() instanceof OpOverload || n.target() == BuiltinFunctions.GETITEM)) {
                throw new NotDifferentiable("'" + n.name() + "' (" + n.kind() + " " + n.target() + ") is on a path from an input that requires grad, and AOT differentiates only ops");
            }
            requires.add(n);
        }

        Object outValue = outputNode.arg(0);
        List<Object> outputs = outValue instanceof List<?> l ? new ArrayList<>(l) : new ArrayList<>(List.of(outValue));
        boolean[] differentiable = new boolean[outputs.size()];
        List<Node> tangents = new ArrayList<>();
        Node lastPrimal = primals.isEmpty() ? null : primals.getLast();
        Map<Node, Object> grads = new IdentityHashMap<>();
        Set<Node> before = new HashSet<>(forwardNodes);
        for (int k = 0; k < outputs.size(); k++) {
            if (!(outputs.get(k) instanceof Node o) || !requires.contains(o) || !(o.val() instanceof Tensor)) continue;
            differentiable[k] = true;
            Node t;
            try (InsertPoint ignored = lastPrimal == null ? graph.insertingBefore(graph.nodes().getFirst()) : graph.insertingAfter(lastPrimal)) {
                t = graph.placeholder("tangents_" + (tangents.size() + 1), FakeTensor.like((Tensor) o.val()));
            }
            lastPrimal = t;
            tangents.add(t);
            t.meta().put(TANGENTS, single(tangents.size() - 1));
            try (InsertPoint ignored = graph.insertingBefore(outputNode)) {
                List<Node> made = new ArrayList<>();
                accumulate(new GraphEmitter(graph, null, made), grads, o, t);
                markTangents(made, tangentsOf(t));
            }
        }

        // the backward, in reverse order of the forward
        for (int idx = forwardNodes.size() - 1; idx >= 0; idx--) {
            Node n = forwardNodes.get(idx);
            if (!requires.contains(n) || n.kind() == NodeKind.PLACEHOLDER) continue;
            Object g = grads.get(n);
            if (g == null) continue;
            try (InsertPoint ignored = graph.insertingBefore(outputNode)) {
                List<Node> made = new ArrayList<>();
                GraphEmitter e = new GraphEmitter(graph, n.sourceLocation(), made);
                if (n.target() == BuiltinFunctions.GETITEM) {
                    Node list = (Node) n.arg(0);
                    int i = ((Number) n.arg(1)).intValue();
                    Object[] perOutput = (Object[]) grads.computeIfAbsent(list, k -> new Object[((List<?>) list.val()).size()]);
                    perOutput[i] = perOutput[i] == null ? g : e.call(PointwiseOps.ADD_TENSOR, perOutput[i], g);
                } else {
                    differentiate(graph, e, n, g, requires, grads);
                }
                markTangents(made, tangentsOf(g));
            }
        }

        List<Object> result = new ArrayList<>(outputs);
        boolean[] gets = new boolean[primals.size()];
        for (int i = 0; i < primals.size(); i++) {
            if (!requiresGrad[i]) continue;
            Object g = grads.get(primals.get(i));
            if (g == null) continue;   // nothing used this input: no gradient (eager's None), not zeros
            result.add(g);
            gets[i] = true;
        }
        if (tangents.isEmpty()) throw new NotDifferentiable("no output depends on an input that requires grad");
        outputNode.setArgs(List.of(result));
        Set<Node> backward = new HashSet<>();
        for (Node n : graph.nodes()) {
            boolean forwardItem = n.target() == BuiltinFunctions.GETITEM && before.contains((Node) n.arg(0));   // made by itemOf
            if (!before.contains(n) && n.kind() != NodeKind.PLACEHOLDER && !forwardItem) backward.add(n);
        }
        backward.remove(outputNode);
        return new JointGraph(forward, primals, tangents, outputs, differentiable, gets, backward);
    }

    private static java.util.BitSet single(int k) {
        java.util.BitSet b = new java.util.BitSet();
        b.set(k);
        return b;
    }

    /**
     * The tangents a gradient value (a node, or one per output of a multi-output node) belongs to.
     * A node not made through a step's emitter (the getitem nodes that unpack a multi-output
     * derivative, forward values) belongs to those of its inputs, worked out here and kept.
     */
    private static java.util.BitSet tangentsOf(Object g) {
        java.util.BitSet b = new java.util.BitSet();
        if (g instanceof Node n) {
            if (!(n.meta().get(TANGENTS) instanceof java.util.BitSet)) {
                java.util.BitSet fromInputs = new java.util.BitSet();
                for (Node in : n.allInputNodes()) fromInputs.or(tangentsOf(in));
                n.meta().put(TANGENTS, fromInputs);
            }
            b.or((java.util.BitSet) n.meta().get(TANGENTS));
        }
        if (g instanceof Object[] perOutput) for (Object x : perOutput) b.or(tangentsOf(x));
        return b;
    }

    /** Each node made for a gradient belongs to that gradient's tangents and to those of its inputs, in the order they were made. */
    private static void markTangents(List<Node> made, java.util.BitSet context) {
        for (Node m : made) {
            java.util.BitSet b = (java.util.BitSet) context.clone();
            for (Node in : m.allInputNodes()) b.or(tangentsOf(in));
            m.meta().put(TANGENTS, b);
        }
    }

    /** Runs {@code n}'s derivative with the gradient {@code g} of its output(s), adding the results into its inputs' gradients. */
    private static void differentiate(Graph graph, GraphEmitter e, Node n, Object g, Set<Node> requires, Map<Node, Object> grads) {
        OpOverload op = (OpOverload) n.target();
        Derivative d = op.derivative();
        if (d == null) {
            throw new NotDifferentiable("the derivative for '" + op + "' (node '" + n.name() + "'" + where(n) + ") is not implemented");
        }
        Object[] args = DecomposePass.positional(op, n);
        Object[] shapes = new Object[args.length];
        for (int i = 0; i < args.length; i++) shapes[i] = shapeOf(args[i]);
        Object val = n.val();
        boolean multi = val instanceof List<?>;
        List<?> results = multi ? (List<?>) val : List.of(val);
        TensorMeta[] resultMetas = new TensorMeta[results.size()];
        for (int i = 0; i < resultMetas.length; i++) resultMetas[i] = ((Tensor) results.get(i)).meta();
        Object[] gradOutputs = multi ? ((Object[]) g).clone() : new Object[] {g};
        for (int i = 0; i < gradOutputs.length; i++) if (!((Tensor) results.get(i)).dtype().isFloatingPoint()) gradOutputs[i] = null;
        Grad.Saved saved = new Grad.Saved() {
            @Override
            public Object arg(int i) { return args[i]; }

            @Override
            public Object result(int i) { return multi ? itemOf(graph, n, i) : n; }
        };
        Grad grad = new Grad(op, e, saved, shapes, resultMetas, gradOutputs, i -> needs(args[i], requires));
        Object[] inputGrads = d.apply(grad);
        for (int i = 0; i < args.length && i < inputGrads.length; i++) {
            if (inputGrads[i] == null) continue;
            if (args[i] instanceof Node in && requires.contains(in)) {
                accumulate(e, grads, in, Grad.conform(e, inputGrads[i], (TensorMeta) shapes[i]));
            } else if (args[i] instanceof List<?> list) {
                List<?> gl = (List<?>) inputGrads[i];
                for (int k = 0; k < list.size(); k++) {
                    if (list.get(k) instanceof Node in && requires.contains(in) && gl.get(k) != null) {
                        accumulate(e, grads, in, Grad.conform(e, gl.get(k), ((Tensor) in.val()).meta()));
                    }
                }
            }
        }
    }

    /** Output {@code i} of a multi-output node: its getitem node in the forward, made right after it when there is none. */
    private static Node itemOf(Graph graph, Node n, int i) {
        for (Node u : n.users()) {
            if (u.target() == BuiltinFunctions.GETITEM && ((Number) u.arg(1)).intValue() == i) return u;
        }
        Node item;
        try (InsertPoint ignored = graph.insertingAfter(n)) {
            item = graph.callFunction(BuiltinFunctions.GETITEM, n, (long) i);
        }
        item.setVal(((List<?>) n.val()).get(i));
        return item;
    }

    private static void accumulate(GraphEmitter e, Map<Node, Object> grads, Node target, Object g) {
        Object prev = grads.get(target);
        grads.put(target, prev == null ? g : e.call(PointwiseOps.ADD_TENSOR, prev, g));
    }

    private static boolean needs(Object arg, Set<Node> requires) {
        if (arg instanceof Node n) return requires.contains(n);
        if (arg instanceof List<?> l) for (Object x : l) if (x instanceof Node n && requires.contains(n)) return true;
        return false;
    }

    private static Object shapeOf(Object arg) {
        if (arg instanceof Node n && n.val() instanceof Tensor t) return t.meta();
        if (arg instanceof List<?> l && !l.isEmpty() && l.stream().allMatch(x -> x instanceof Node n && n.val() instanceof Tensor)) {
            List<TensorMeta> metas = new ArrayList<>();
            for (Object x : l) metas.add(((Tensor) ((Node) x).val()).meta());
            return metas;
        }
        return arg instanceof int[] a ? a.clone() : arg;
    }

    private static boolean carriesFloat(Object val) {
        if (val instanceof Tensor t) return t.dtype().isFloatingPoint();
        if (val instanceof List<?> l) for (Object x : l) if (x instanceof Tensor t && t.dtype().isFloatingPoint()) return true;
        return false;
    }

    private static String where(Node n) { return n.sourceLocation() == null ? "" : ", " + n.sourceLocation(); }
}
