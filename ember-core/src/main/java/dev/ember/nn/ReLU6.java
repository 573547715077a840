package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code min(max(x, 0), 6)}, as PyTorch's {@code nn.ReLU6}. */
public class ReLU6 extends Module {
    @Override
    public Tensor forward(Tensor input) { return F.relu6(input); }
}
