package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * A multi-layer gated recurrent unit, as PyTorch's {@code nn.GRU}: per step {@code r, z} are the
 * sigmoids of the summed input and hidden projections, {@code n = tanh(x·W_inᵀ + b_in + r·(h·W_hnᵀ + b_hn))},
 * {@code h' = (1 − z)·n + z·h}. See {@link RNNBase} for the shapes and parameters.
 */
public class GRU extends RNNBase {
    public GRU(int inputSize, int hiddenSize) { this(inputSize, hiddenSize, 1); }

    public GRU(int inputSize, int hiddenSize, int numLayers) { this(inputSize, hiddenSize, numLayers, true, false, 0.0, false); }

    public GRU(int inputSize, int hiddenSize, int numLayers, boolean bias, boolean batchFirst, double dropout, boolean bidirectional) {
        super("GRU", 3, inputSize, hiddenSize, numLayers, bias, batchFirst, dropout, bidirectional);
    }

    /** PyTorch's {@code gru(input, h0)}; a null {@code h0} starts from zeros. {@code cN} of the result is null. */
    public Output forward(Tensor input, Tensor h0) { return run(input, h0, null); }

    /** PyTorch's {@code gru(packed, h0)}: see {@link RNNBase#runPacked}; a null {@code h0} starts from zeros. */
    public PackedOutput forward(PackedSequence input, Tensor h0) { return runPacked(input, h0, null); }
}
