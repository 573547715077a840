package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code x·min(max(x + 3, 0), 6) / 6}, as PyTorch's {@code nn.Hardswish}. */
public class Hardswish extends Module {
    @Override
    public Tensor forward(Tensor input) { return F.hardswish(input); }
}
