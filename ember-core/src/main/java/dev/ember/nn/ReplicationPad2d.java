package dev.ember.nn;

/** Pads in mode {@code "replicate"}, as PyTorch's {@code nn.ReplicationPad2d}; see {@link PadNd}. */
public class ReplicationPad2d extends PadNd {
    public ReplicationPad2d(int... padding) { super(4, "replicate", 0.0, padding); }
}
