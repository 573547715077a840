package dev.ember.nn;

/** Pads with a constant {@code value}, as PyTorch's {@code nn.ConstantPad1d}; see {@link PadNd}. */
public class ConstantPad1d extends PadNd {
    public ConstantPad1d(int padding, double value) { super(2, "constant", value, padding); }

    public ConstantPad1d(int[] padding, double value) { super(2, "constant", value, padding); }
}
