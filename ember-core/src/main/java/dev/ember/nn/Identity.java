package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Returns its input, as PyTorch's {@code nn.Identity}: a placeholder where a layer is optional. */
public class Identity extends Module {
    @Override
    public Tensor forward(Tensor input) { return input; }
}
