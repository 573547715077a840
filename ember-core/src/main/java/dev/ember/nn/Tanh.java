package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** The hyperbolic tangent, as PyTorch's {@code nn.Tanh}. */
public class Tanh extends Module {
    @Override
    public Tensor forward(Tensor input) { return F.tanh(input); }
}
