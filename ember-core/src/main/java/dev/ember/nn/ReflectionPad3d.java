package dev.ember.nn;

/** Pads in mode {@code "reflect"}, as PyTorch's {@code nn.ReflectionPad3d}; see {@link PadNd}. */
public class ReflectionPad3d extends PadNd {
    public ReflectionPad3d(int... padding) { super(6, "reflect", 0.0, padding); }
}
