package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code x * sigmoid(x)}, as PyTorch's {@code nn.SiLU}. */
public class SiLU extends Module {
    @Override
    public Tensor forward(Tensor input) { return F.silu(input); }
}
