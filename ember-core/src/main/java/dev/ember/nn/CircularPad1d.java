package dev.ember.nn;

/** Pads in mode {@code "circular"} (wrapping around), as PyTorch's {@code nn.CircularPad1d}; see {@link PadNd}. */
public class CircularPad1d extends PadNd {
    public CircularPad1d(int... padding) { super(2, "circular", 0.0, padding); }
}
