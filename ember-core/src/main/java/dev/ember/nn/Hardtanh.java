package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Its input clamped to [minVal, maxVal], as PyTorch's {@code nn.Hardtanh} ([-1, 1]). */
public class Hardtanh extends Module {
    public final double minVal;
    public final double maxVal;

    public Hardtanh() { this(-1.0, 1.0); }

    public Hardtanh(double minVal, double maxVal) {
        // PyTorch's constructor asserts this too
        if (!(maxVal > minVal)) throw new IllegalArgumentException("Hardtanh: max_val (" + maxVal + ") must be greater than min_val (" + minVal + ")");
        this.minVal = minVal;
        this.maxVal = maxVal;
    }

    @Override
    public Tensor forward(Tensor input) { return F.hardtanh(input, minVal, maxVal); }

    @Override
    protected String extraRepr() { return "min_val=" + Repr.number(minVal) + ", max_val=" + Repr.number(maxVal); }
}
