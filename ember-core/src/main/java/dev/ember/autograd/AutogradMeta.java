package dev.ember.autograd;

import dev.ember.tensor.Tensor;

/**
 * A tensor's autograd state beyond its {@code requiresGrad} flag: the node that made it and which
 * output of it the tensor is, its accumulated gradient, whether it keeps its gradient as a non-leaf,
 * and the leaf's gradient accumulator. Held by the tensor; changed only by this package.
 */
public final class AutogradMeta {
    Node gradFn;
    int outputNr;
    Tensor grad;
    boolean retainsGrad;
    AccumulateGrad accumulator;

    public Node gradFn() { return gradFn; }

    public int outputNr() { return outputNr; }

    public Tensor grad() { return grad; }

    public boolean retainsGrad() { return retainsGrad; }
}
