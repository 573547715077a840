package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** log(softmax) along {@code dim}, computed stably, as PyTorch's {@code nn.LogSoftmax}. */
public class LogSoftmax extends Module {
    public final int dim;

    public LogSoftmax(int dim) { this.dim = dim; }

    @Override
    public Tensor forward(Tensor input) { return F.logSoftmax(input, dim); }

    @Override
    protected String extraRepr() { return "dim=" + dim; }
}
