package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code scale · elu(x, alpha)} with SELU's fixed constants, as PyTorch's {@code nn.SELU}. */
public class SELU extends Module {
    @Override
    public Tensor forward(Tensor input) { return F.selu(input); }
}
