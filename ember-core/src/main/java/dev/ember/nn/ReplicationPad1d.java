package dev.ember.nn;

/** Pads in mode {@code "replicate"}, as PyTorch's {@code nn.ReplicationPad1d}; see {@link PadNd}. */
public class ReplicationPad1d extends PadNd {
    public ReplicationPad1d(int... padding) { super(2, "replicate", 0.0, padding); }
}
