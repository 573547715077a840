package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * A multi-layer long short-term memory, as PyTorch's {@code nn.LSTM} ({@code proj_size} too):
 * per step {@code i, f, g, o} from {@code x·W_ihᵀ + b_ih + h·W_hhᵀ + b_hh}, {@code c' = σ(f)·c + σ(i)·tanh(g)},
 * {@code h' = σ(o)·tanh(c')}. See {@link RNNBase} for the shapes and parameters.
 *
 * <pre>{@code
 * LSTM lstm = new LSTM(10, 20, 2);                      // input 10, hidden 20, two layers
 * RNNBase.Output out = lstm.forward(x, null, null);     // x [L, N, 10]; states from zeros
 * out.output();  // [L, N, 20]     out.hN(), out.cN(); // [2, N, 20]
 * }</pre>
 */
public class LSTM extends RNNBase {
    public LSTM(int inputSize, int hiddenSize) { this(inputSize, hiddenSize, 1); }

    public LSTM(int inputSize, int hiddenSize, int numLayers) { this(inputSize, hiddenSize, numLayers, true, false, 0.0, false); }

    public LSTM(int inputSize, int hiddenSize, int numLayers, boolean bias, boolean batchFirst, double dropout, boolean bidirectional) {
        super("LSTM", 4, inputSize, hiddenSize, numLayers, bias, batchFirst, dropout, bidirectional);
    }

    /**
     * With PyTorch's {@code proj_size} (0 for none, else below hiddenSize): each step's hidden state
     * is projected to {@code projSize} by {@code weight_hr_lk [projSize, hiddenSize]}, so the output
     * and {@code h0}/{@code hN} have {@code projSize} features while {@code c0}/{@code cN} keep
     * {@code hiddenSize}. The steps then run one by one (the fused layer has no projection).
     */
    public LSTM(int inputSize, int hiddenSize, int numLayers, boolean bias, boolean batchFirst, double dropout, boolean bidirectional, int projSize) {
        super("LSTM", 4, inputSize, hiddenSize, numLayers, bias, batchFirst, dropout, bidirectional, projSize);
    }

    /** PyTorch's {@code lstm(input, (h0, c0))}; {@code h0} and {@code c0} both given or both null (zeros). */
    public Output forward(Tensor input, Tensor h0, Tensor c0) {
        if ((h0 == null) != (c0 == null)) throw new IllegalArgumentException("LSTM: give both h0 and c0, or neither");
        return run(input, h0, c0);
    }

    /** PyTorch's {@code lstm(packed, (h0, c0))}: see {@link RNNBase#runPacked}; {@code h0} and {@code c0} both given or both null. */
    public PackedOutput forward(PackedSequence input, Tensor h0, Tensor c0) {
        if ((h0 == null) != (c0 == null)) throw new IllegalArgumentException("LSTM: give both h0 and c0, or neither");
        return runPacked(input, h0, c0);
    }
}
