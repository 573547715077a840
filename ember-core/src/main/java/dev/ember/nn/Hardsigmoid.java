package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code clamp(x / 6 + 1/2, 0, 1)}, as PyTorch's {@code nn.Hardsigmoid}. */
public class Hardsigmoid extends Module {
    @Override
    public Tensor forward(Tensor input) { return F.hardsigmoid(input); }
}
