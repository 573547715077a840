package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code log(sigmoid(x))} without underflow, as PyTorch's {@code nn.LogSigmoid}. */
public class LogSigmoid extends Module {
    @Override
    public Tensor forward(Tensor input) { return F.logSigmoid(input); }
}
