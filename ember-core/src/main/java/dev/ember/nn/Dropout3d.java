package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * In training, zeroes whole channels with probability {@code p} and scales the others by
 * 1/(1-p); in evaluation, the identity. As PyTorch's {@code nn.Dropout3d} ({@link F#dropout3d}).
 */
public class Dropout3d extends Dropout {
    public Dropout3d() { this(0.5); }

    public Dropout3d(double p) { super(p); }

    @Override
    public Tensor forward(Tensor input) { return F.dropout3d(input, p, isTraining()); }
}
