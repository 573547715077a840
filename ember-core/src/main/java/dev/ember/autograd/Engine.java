package dev.ember.autograd;

import dev.ember.ops.PointwiseOps;
import dev.ember.ops.ShapeOps;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorScope;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Backward: walks the autograd graph from the roots, each node once all its gradients have
 * arrived (dependency counting, latest-recorded first as PyTorch's engine orders them), sums what
 * arrives per output, and runs the node. Leaves' {@code grad()} and retained gradients are written
 * only after the whole walk succeeded, and saved tensors are freed only then (unless retainGraph).
 */
final class Engine {
    private Engine() {}

    /** A leaf's accumulation, applied at the end. */
    private record Pending(Tensor target, Tensor grad) {}

    /** Tensor hooks, before anything reads the gradient (a node, a leaf's accumulation, grad()'s capture, retainGrad), as PyTorch's. */
    private static void runGradientHooks(Node node, Tensor[] grads) {
        for (int k = 0; k < grads.length; k++) {
            List<java.util.function.UnaryOperator<Tensor>> hooks = node.gradientHooks[k];
            if (hooks == null || grads[k] == null) continue;
            for (var hook : List.copyOf(hooks)) {
                Tensor replaced = hook.apply(grads[k]);
                if (replaced == null) continue;
                if (!dev.ember.tensor.Shapes.same(replaced.shape(), grads[k].shape())) {
                    throw new IllegalStateException("hook on the gradient of output " + k + " of " + node.name() + " has changed the size of value: "
                            + dev.ember.tensor.Shapes.format(grads[k].shape()) + " became " + dev.ember.tensor.Shapes.format(replaced.shape()));
                }
                grads[k] = replaced;
            }
        }
    }

    static List<Tensor> run(List<Tensor> roots, List<Tensor> rootGrads, boolean retainGraph, boolean createGraph,
                            List<Tensor> inputs, boolean allowUnused) {
        if (roots.isEmpty()) throw new IllegalArgumentException("backward needs at least one tensor");
        if (rootGrads != null && rootGrads.size() != roots.size()) {
            throw new IllegalArgumentException("got " + rootGrads.size() + " gradients for " + roots.size() + " tensors");
        }
        long madeBefore = Storage.mark();
        Map<Node, Tensor[]> buffers = new IdentityHashMap<>();
        List<Node> rootNodes = new ArrayList<>();
        for (int i = 0; i < roots.size(); i++) {
            Tensor root = roots.get(i);
            ViewHistory.refresh(root);
            if (!root.requiresGrad()) {
                throw new IllegalStateException("element " + i + " of tensors does not require grad and does not have a grad_fn (" + root.meta().describe()
                        + "). Make a leaf require it (x.requiresGrad(true)) before computing with it, outside Ember.noGrad().");
            }
            Tensor g = rootGrad(i, root, rootGrads == null ? null : rootGrads.get(i));
            Node.Edge edge = Autograd.gradientEdge(root);
            add(buffers, edge, g);
            rootNodes.add(edge.node());
        }

        // what each reachable node waits for
        Map<Node, Integer> dependencies = new IdentityHashMap<>();
        ArrayDeque<Node> stack = new ArrayDeque<>();
        Map<Node, Boolean> seen = new IdentityHashMap<>();
        for (Node n : rootNodes) if (seen.put(n, true) == null) stack.push(n);
        while (!stack.isEmpty()) {
            Node n = stack.pop();
            for (Node.Edge e : n.next) {
                if (e == null || e.node() == null) continue;
                dependencies.merge(e.node(), 1, Integer::sum);
                if (seen.put(e.node(), true) == null) stack.push(e.node());
            }
        }

        // what grad() returns: the gradient arriving at each input's edge
        Map<Node, Map<Integer, Integer>> captures = new HashMap<>();
        Tensor[] captured = null;
        if (inputs != null) {
            captured = new Tensor[inputs.size()];
            for (int i = 0; i < inputs.size(); i++) {
                Node.Edge e = Autograd.gradientEdge(inputs.get(i));
                captures.computeIfAbsent(e.node(), k -> new HashMap<>()).put(e.inputNr(), i);
            }
        }

        PriorityQueue<Node> ready = new PriorityQueue<>(Comparator.comparingLong((Node n) -> n.sequenceNr).reversed());
        for (Node n : seen.keySet()) if (!dependencies.containsKey(n)) ready.add(n);
        List<Pending> pending = new ArrayList<>();
        List<Node> executed = new ArrayList<>();
        // what a user's custom backward returned: it may hold on to it, so no leaf takes it without a copy
        Map<Storage, Boolean> foreign = new IdentityHashMap<>();
        try (var mode = createGraph ? GradMode.enableGrad() : GradMode.noGrad()) {
            while (!ready.isEmpty()) {
                Node node = ready.poll();
                executed.add(node);
                Tensor[] grads = buffers.remove(node);
                if (grads == null) grads = new Tensor[node.outputCount()];
                if (node.gradientHooks != null) runGradientHooks(node, grads);
                Map<Integer, Integer> capture = captures.get(node);
                if (capture != null) for (var c : capture.entrySet()) captured[c.getValue()] = grads[c.getKey()];
                if (node.retained != null && inputs == null) {
                    for (int k = 0; k < grads.length; k++) if (node.retained[k] != null && grads[k] != null) pending.add(new Pending(node.retained[k], grads[k]));
                }
                Tensor[] out;
                if (node instanceof AccumulateGrad acc) {
                    if (inputs == null && grads[0] != null) pending.add(new Pending(acc.variable, grads[0]));
                    out = new Tensor[0];
                } else if (allNull(grads)) {
                    out = new Tensor[node.next.length];
                } else {
                    out = node.apply(grads);
                    if (node instanceof FunctionNode f && !f.freshGradients()) for (Tensor g : out) if (g != null) foreign.put(g.storage(), true);
                }
                for (int i = 0; i < node.next.length; i++) {
                    Node.Edge e = node.next[i];
                    if (e == null || e.node() == null) continue;
                    if (out[i] != null) add(buffers, e, out[i]);
                    if (dependencies.merge(e.node(), -1, Integer::sum) == 0) {
                        dependencies.remove(e.node());
                        ready.add(e.node());
                    }
                }
            }
        }
        // success: now leaves change and saved tensors go
        try (var mode = createGraph ? GradMode.enableGrad() : GradMode.noGrad()) {
            Map<Storage, Integer> delivered = new IdentityHashMap<>();
            for (Pending p : pending) delivered.merge(p.grad.storage(), 1, Integer::sum);
            for (Pending p : pending) {
                Storage s = p.grad.storage();
                accumulate(p.target, p.grad, createGraph, delivered.get(s) == 1 && !foreign.containsKey(s) && ownsWhole(p.grad, madeBefore));
            }
        }
        if (!retainGraph) for (Node n : executed) n.release();
        if (inputs == null) return null;
        List<Tensor> result = new ArrayList<>(captured.length);
        for (int i = 0; i < captured.length; i++) {
            if (captured[i] == null && !allowUnused) {
                throw new IllegalStateException("One of the differentiated Tensors appears to not have been used in the graph (input " + i + ": "
                        + inputs.get(i).meta().describe() + "). Set allowUnused=true if this is the desired behavior.");
            }
            result.add(captured[i]);
        }
        return result;
    }

    private static Tensor rootGrad(int i, Tensor root, Tensor given) {
        if (given == null) {
            if (root.numel() != 1) {
                throw new IllegalArgumentException("grad can be implicitly created only for scalar outputs (element " + i + " is " + root.meta().describe()
                        + "); pass backward(gradient) a tensor of its shape");
            }
            return Tensor.onesLike(root);
        }
        if (!Arrays.equals(given.shape(), root.shape())) {
            throw new IllegalArgumentException("Mismatch in shape: grad_output[" + i + "] has a shape of " + Shapes.format(given.shape())
                    + " and output[" + i + "] has a shape of " + Shapes.format(root.shape()) + ".");
        }
        if (!given.dtype().isFloatingPoint()) {
            throw new IllegalArgumentException("grad_output[" + i + "] must be floating point, got " + given.dtype());
        }
        return given.dtype() == root.dtype() ? given : given.to(root.dtype());
    }

    private static boolean allNull(Tensor[] grads) {
        for (Tensor g : grads) if (g != null) return false;
        return true;
    }

    private static void add(Map<Node, Tensor[]> buffers, Node.Edge e, Tensor g) {
        Tensor[] buf = buffers.computeIfAbsent(e.node(), n -> new Tensor[n.outputCount()]);
        Tensor prev = buf[e.inputNr()];
        buf[e.inputNr()] = prev == null ? g : (Tensor) PointwiseOps.ADD_TENSOR.call(prev, g);
    }

    /**
     * Whether {@code g} is a contiguous tensor over the whole of a storage this backward made, so
     * that nothing but {@code g} can see its elements (a gradient the same walk delivers twice is
     * ruled out by the caller). PyTorch's AccumulateGrad steals such a gradient (its use count is
     * 1) instead of copying it: a copy of every weight's gradient on every training step
     * ({@code zeroGrad} sets them to null) cost as much as an optimizer's pass over the weights.
     */
    private static boolean ownsWhole(Tensor g, long madeBefore) {
        return g.storage().madeSince(madeBefore) && g.storageOffset() == 0 && g.isContiguous()
                && g.storage().length() == g.numel() && !g.requiresGrad();
    }

    /**
     * {@code t.grad += g}, the first time {@code g} itself when {@code ownsWhole} (see
     * {@link #ownsWhole}), else a fresh contiguous copy (a gradient may be a broadcast view, a
     * value the forward saved, or the caller's tensor).
     */
    private static void accumulate(Tensor t, Tensor g, boolean createGraph, boolean ownsWhole) {
        AutogradMeta m = t.autogradMeta();
        if (g.dtype() != t.dtype()) g = g.to(t.dtype());
        // a leaf's .grad outlives the step that made it, even one run inside a TensorScope
        if (m.grad == null) {
            m.grad = TensorScope.escape(createGraph || ownsWhole && Arrays.equals(g.shape(), t.shape()) ? g : (Tensor) ShapeOps.CLONE.call(g));
        } else if (createGraph || m.grad.requiresGrad()) {
            m.grad = TensorScope.escape((Tensor) PointwiseOps.ADD_TENSOR.call(m.grad, g));
        } else {
            PointwiseOps.ADD__TENSOR.call(m.grad, g);
        }
    }
}
