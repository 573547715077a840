package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code x / (1 + |x|)}, as PyTorch's {@code nn.Softsign}. */
public class Softsign extends Module {
    @Override
    public Tensor forward(Tensor input) { return F.softsign(input); }
}
