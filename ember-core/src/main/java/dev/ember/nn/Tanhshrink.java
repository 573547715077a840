package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code x − tanh(x)}, as PyTorch's {@code nn.Tanhshrink}. */
public class Tanhshrink extends Module {
    @Override
    public Tensor forward(Tensor input) { return F.tanhshrink(input); }
}
