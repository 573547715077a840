package dev.ember.nn;

/** Pads with a constant {@code value}, as PyTorch's {@code nn.ConstantPad3d}; see {@link PadNd}. */
public class ConstantPad3d extends PadNd {
    public ConstantPad3d(int padding, double value) { super(6, "constant", value, padding); }

    public ConstantPad3d(int[] padding, double value) { super(6, "constant", value, padding); }
}
