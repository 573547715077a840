package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code 1 / (1 + e^−x)}, as PyTorch's {@code nn.Sigmoid}. */
public class Sigmoid extends Module {
    @Override
    public Tensor forward(Tensor input) { return F.sigmoid(input); }
}
