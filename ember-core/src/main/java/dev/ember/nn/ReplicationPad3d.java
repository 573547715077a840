package dev.ember.nn;

/** Pads in mode {@code "replicate"}, as PyTorch's {@code nn.ReplicationPad3d}; see {@link PadNd}. */
public class ReplicationPad3d extends PadNd {
    public ReplicationPad3d(int... padding) { super(6, "replicate", 0.0, padding); }
}
