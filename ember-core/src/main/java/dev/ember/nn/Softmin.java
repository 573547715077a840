package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code softmax(−x)} along {@code dim}, as PyTorch's {@code nn.Softmin}. */
public class Softmin extends Module {
    public final int dim;

    public Softmin(int dim) { this.dim = dim; }

    @Override
    public Tensor forward(Tensor input) { return F.softmin(input, dim); }

    @Override
    protected String extraRepr() { return "dim=" + dim; }
}
