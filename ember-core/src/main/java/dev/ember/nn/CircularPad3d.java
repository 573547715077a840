package dev.ember.nn;

/** Pads in mode {@code "circular"} (wrapping around), as PyTorch's {@code nn.CircularPad3d}; see {@link PadNd}. */
public class CircularPad3d extends PadNd {
    public CircularPad3d(int... padding) { super(6, "circular", 0.0, padding); }
}
