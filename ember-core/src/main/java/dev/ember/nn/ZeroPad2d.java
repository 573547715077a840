package dev.ember.nn;

/** Pads with zeros, as PyTorch's {@code nn.ZeroPad2d}; see {@link PadNd}. */
public class ZeroPad2d extends PadNd {
    public ZeroPad2d(int... padding) { super(4, "constant", 0.0, padding); }
}
