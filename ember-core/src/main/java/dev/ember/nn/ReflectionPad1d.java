package dev.ember.nn;

/** Pads in mode {@code "reflect"}, as PyTorch's {@code nn.ReflectionPad1d}; see {@link PadNd}. */
public class ReflectionPad1d extends PadNd {
    public ReflectionPad1d(int... padding) { super(2, "reflect", 0.0, padding); }
}
