package dev.ember.nn;

/** Pads in mode {@code "circular"} (wrapping around), as PyTorch's {@code nn.CircularPad2d}; see {@link PadNd}. */
public class CircularPad2d extends PadNd {
    public CircularPad2d(int... padding) { super(4, "circular", 0.0, padding); }
}
