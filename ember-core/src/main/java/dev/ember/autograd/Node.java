package dev.ember.autograd;

import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A node of the autograd graph (PyTorch's {@code torch.autograd.graph.Node}): what one recorded
 * call needs to send its outputs' gradients back to its inputs. A tensor made by a recorded op
 * names it as {@link Tensor#gradFn()}; a leaf that requires grad ends in an {@code AccumulateGrad}.
 */
public abstract class Node {
    private static final AtomicLong SEQUENCE = new AtomicLong();

    /** Where one input's gradient goes: a node and which of its outputs that input was. */
    public record Edge(Node node, int inputNr) {}

    final long sequenceNr = SEQUENCE.getAndIncrement();
    final Edge[] next;

    Node(Edge[] next) { this.next = next; }

    /** {@code MulBackward0}, {@code AccumulateGrad}, … */
    public abstract String name();

    /** How many gradients this node receives (its forward call's outputs). */
    abstract int outputCount();

    /** The nodes this one sends gradients to, one edge per differentiable input (null node: no gradient wanted). */
    public List<Edge> nextFunctions() { return List.of(next); }

    /** Gradients for each edge from gradients for each output (null: none arrived). Runs with grad mode as backward's createGraph says. */
    abstract Tensor[] apply(Tensor[] gradOutputs);

    /** Frees what the node saved (after a backward without retainGraph). */
    void release() {}

    /** Outputs whose gradient the user asked to keep ({@link Tensor#retainGrad()}), by output number. */
    Tensor[] retained;

    void retain(int outputNr, Tensor t) {
        if (retained == null) retained = new Tensor[outputCount()];
        retained[outputNr] = t;
    }

    /** Hooks on the gradient of each output ({@link Tensor#registerHook}), by output number, run in order as it arrives. */
    List<java.util.function.UnaryOperator<Tensor>>[] gradientHooks;

    @SuppressWarnings("unchecked")
    void addGradientHook(int outputNr, java.util.function.UnaryOperator<Tensor> hook) {
        if (gradientHooks == null) gradientHooks = new List[outputCount()];
        if (gradientHooks[outputNr] == null) gradientHooks[outputNr] = new ArrayList<>();
        gradientHooks[outputNr].add(hook);
    }

    @Override
    public String toString() {
        List<String> nexts = new ArrayList<>();
        for (Edge e : next) nexts.add(e == null || e.node == null ? "None" : e.node.name());
        return name() + (next.length == 0 ? "" : " -> " + nexts);
    }

    static Edge[] noEdges() { return new Edge[0]; }

    static String shape(int[] s) { return Arrays.toString(s); }
}
