package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code x·tanh(softplus(x))}, as PyTorch's {@code nn.Mish}. */
public class Mish extends Module {
    @Override
    public Tensor forward(Tensor input) { return F.mish(input); }
}
