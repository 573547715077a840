package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * A multi-layer Elman network, as PyTorch's {@code nn.RNN}: {@code h' = tanh(x·W_ihᵀ + b_ih + h·W_hhᵀ + b_hh)}
 * ({@code nonlinearity} "tanh", the default, or "relu"). See {@link RNNBase} for the shapes and parameters.
 */
public class RNN extends RNNBase {
    public final String nonlinearity;

    public RNN(int inputSize, int hiddenSize) { this(inputSize, hiddenSize, 1); }

    public RNN(int inputSize, int hiddenSize, int numLayers) { this(inputSize, hiddenSize, numLayers, "tanh", true, false, 0.0, false); }

    public RNN(int inputSize, int hiddenSize, int numLayers, String nonlinearity, boolean bias, boolean batchFirst, double dropout, boolean bidirectional) {
        super(mode(nonlinearity), 1, inputSize, hiddenSize, numLayers, bias, batchFirst, dropout, bidirectional);
        this.nonlinearity = nonlinearity;
    }

    private static String mode(String nonlinearity) {
        return switch (nonlinearity) {
            case "tanh" -> "RNN_TANH";
            case "relu" -> "RNN_RELU";
            case null, default -> throw new IllegalArgumentException("Unknown nonlinearity '" + nonlinearity + "'. Select from 'tanh' or 'relu'.");
        };
    }

    /** PyTorch's {@code rnn(input, h0)}; a null {@code h0} starts from zeros. {@code cN} of the result is null. */
    public Output forward(Tensor input, Tensor h0) { return run(input, h0, null); }

    /** PyTorch's {@code rnn(packed, h0)}: see {@link RNNBase#runPacked}; a null {@code h0} starts from zeros. */
    public PackedOutput forward(PackedSequence input, Tensor h0) { return runPacked(input, h0, null); }
}
