package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** The gated linear unit {@code a · sigmoid(b)} of the two halves of {@code dim}, as PyTorch's {@code nn.GLU} (dim -1). */
public class GLU extends Module {
    public final int dim;

    public GLU() { this(-1); }

    public GLU(int dim) { this.dim = dim; }

    @Override
    public Tensor forward(Tensor input) { return F.glu(input, dim); }

    @Override
    protected String extraRepr() { return "dim=" + dim; }
}
