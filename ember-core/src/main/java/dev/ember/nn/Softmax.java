package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Softmax along {@code dim}, as PyTorch's {@code nn.Softmax}. */
public class Softmax extends Module {
    public final int dim;

    public Softmax(int dim) { this.dim = dim; }

    @Override
    public Tensor forward(Tensor input) { return F.softmax(input, dim); }

    @Override
    protected String extraRepr() { return "dim=" + dim; }
}
