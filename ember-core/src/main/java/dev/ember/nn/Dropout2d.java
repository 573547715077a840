package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * In training, zeroes whole channels with probability {@code p} and scales the others by
 * 1/(1-p); in evaluation, the identity. As PyTorch's {@code nn.Dropout2d} ({@link F#dropout2d}).
 */
public class Dropout2d extends Dropout {
    public Dropout2d() { this(0.5); }

    public Dropout2d(double p) { super(p); }

    @Override
    public Tensor forward(Tensor input) { return F.dropout2d(input, p, isTraining()); }
}
