package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code max(x, 0)}, as PyTorch's {@code nn.ReLU}. */
public class ReLU extends Module {
    @Override
    public Tensor forward(Tensor input) { return F.relu(input); }
}
