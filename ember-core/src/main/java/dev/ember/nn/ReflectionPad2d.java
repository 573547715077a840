package dev.ember.nn;

/** Pads in mode {@code "reflect"}, as PyTorch's {@code nn.ReflectionPad2d}; see {@link PadNd}. */
public class ReflectionPad2d extends PadNd {
    public ReflectionPad2d(int... padding) { super(4, "reflect", 0.0, padding); }
}
