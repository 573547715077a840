package dev.ember.nn;

/** Pads with a constant {@code value}, as PyTorch's {@code nn.ConstantPad2d}; see {@link PadNd}. */
public class ConstantPad2d extends PadNd {
    public ConstantPad2d(int padding, double value) { super(4, "constant", value, padding); }

    public ConstantPad2d(int[] padding, double value) { super(4, "constant", value, padding); }
}
