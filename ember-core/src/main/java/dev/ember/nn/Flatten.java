package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Flattens dimensions {@code startDim..endDim} into one, as PyTorch's {@code nn.Flatten} (default 1..-1: keep the batch). */
public class Flatten extends Module {
    public final int startDim;
    public final int endDim;

    public Flatten() { this(1, -1); }

    public Flatten(int startDim, int endDim) {
        this.startDim = startDim;
        this.endDim = endDim;
    }

    @Override
    public Tensor forward(Tensor input) { return input.flatten(startDim, endDim); }

    @Override
    protected String extraRepr() { return "start_dim=" + startDim + ", end_dim=" + endDim; }
}
