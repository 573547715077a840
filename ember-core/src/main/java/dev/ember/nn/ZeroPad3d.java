package dev.ember.nn;

/** Pads with zeros, as PyTorch's {@code nn.ZeroPad3d}; see {@link PadNd}. */
public class ZeroPad3d extends PadNd {
    public ZeroPad3d(int... padding) { super(6, "constant", 0.0, padding); }
}
