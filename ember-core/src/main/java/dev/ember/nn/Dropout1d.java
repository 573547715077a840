package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * In training, zeroes whole channels with probability {@code p} and scales the others by
 * 1/(1-p); in evaluation, the identity. As PyTorch's {@code nn.Dropout1d} ({@link F#dropout1d}).
 */
public class Dropout1d extends Dropout {
    public Dropout1d() { this(0.5); }

    public Dropout1d(double p) { super(p); }

    @Override
    public Tensor forward(Tensor input) { return F.dropout1d(input, p, isTraining()); }
}
