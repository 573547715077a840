package dev.ember.autograd;

import dev.ember.ops.Grad;
import dev.ember.ops.OpEmitter;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.List;

/**
 * The node of a computation whose backward is given as a whole ({@link Autograd#function}): a
 * compiled graph's backward graph, or a user's custom function (PyTorch's {@code autograd.Function}).
 */
final class FunctionNode extends Node {
    private final String name;
    private final int outputs;
    private final TensorMeta[] inputMetas;
    private final Tensor[] inputs;
    private final int[] inputVersions;
    private Autograd.Backward backward;

    private final boolean[] checked;

    FunctionNode(String name, List<Tensor> inputs, boolean[] readByBackward, int outputs, Autograd.Backward backward, Edge[] next) {
        super(next);
        this.name = name;
        this.outputs = outputs;
        this.backward = backward;
        this.inputs = inputs.toArray(Tensor[]::new);
        this.inputMetas = new TensorMeta[this.inputs.length];
        this.inputVersions = new int[this.inputs.length];
        this.checked = readByBackward == null ? null : readByBackward.clone();
        for (int i = 0; i < this.inputs.length; i++) {
            inputMetas[i] = this.inputs[i].meta();
            inputVersions[i] = this.inputs[i].version();
        }
    }

    @Override
    public String name() { return name; }

    /** Whether the gradients it returns are its own fresh tensors ({@link Autograd.FreshBackward}); a user's backward may keep or share them. */
    boolean freshGradients() { return backward instanceof Autograd.FreshBackward; }

    @Override
    int outputCount() { return outputs; }

    @Override
    Tensor[] apply(Tensor[] gradOutputs) {
        if (backward == null) {
            throw new IllegalStateException("Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). "
                    + "Specify retainGraph=true if you need to backward through the graph a second time. (node " + name + ")");
        }
        for (int i = 0; i < inputs.length; i++) {
            if ((checked == null || checked[i]) && inputs[i].version() != inputVersions[i]) {
                throw new IllegalStateException("one of the variables needed for gradient computation has been modified by an inplace operation: ["
                        + inputMetas[i].describe() + "] (input " + i + " of " + name + ") is at version " + inputs[i].version() + "; expected version "
                        + inputVersions[i] + " instead. Hint: update it after backward, or clone() it before modifying it.");
            }
        }
        Tensor[] grads = backward.apply(gradOutputs);
        Tensor[] out = new Tensor[next.length];
        for (int i = 0; i < next.length && i < grads.length; i++) {
            out[i] = (Tensor) Grad.conform(OpEmitter.EAGER, grads[i], inputMetas[i]);
        }
        return out;
    }

    @Override
    void release() { backward = null; }
}
