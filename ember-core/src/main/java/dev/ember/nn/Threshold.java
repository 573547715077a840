package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** {@code x <= threshold ? value : x}, as PyTorch's {@code nn.Threshold}; see {@link F#threshold}. */
public class Threshold extends Module {
    public final double threshold;
    public final double value;

    public Threshold(double threshold, double value) {
        this.threshold = threshold;
        this.value = value;
    }

    @Override
    public Tensor forward(Tensor input) { return F.threshold(input, threshold, value); }

    @Override
    protected String extraRepr() { return "threshold=" + Repr.number(threshold) + ", value=" + Repr.number(value); }
}
