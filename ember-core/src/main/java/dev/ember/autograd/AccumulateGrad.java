package dev.ember.autograd;

import dev.ember.tensor.Tensor;

/** The end of a path: adds the gradient that arrives into a leaf's {@code .grad()}. */
final class AccumulateGrad extends Node {
    final Tensor variable;

    AccumulateGrad(Tensor variable) {
        super(noEdges());
        this.variable = variable;
    }

    @Override
    public String name() { return "AccumulateGrad"; }

    @Override
    int outputCount() { return 1; }

    @Override
    Tensor[] apply(Tensor[] gradOutputs) { return new Tensor[0]; }
}
