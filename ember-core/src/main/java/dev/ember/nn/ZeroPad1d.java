package dev.ember.nn;

/** Pads with zeros, as PyTorch's {@code nn.ZeroPad1d}; see {@link PadNd}. */
public class ZeroPad1d extends PadNd {
    public ZeroPad1d(int... padding) { super(2, "constant", 0.0, padding); }
}
