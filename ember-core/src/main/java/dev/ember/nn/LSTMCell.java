package dev.ember.nn;

import dev.ember.ops.RecurrentOps;
import dev.ember.tensor.Tensor;

/** One LSTM step, as PyTorch's {@code nn.LSTMCell}; the formula is {@link LSTM}'s. */
public class LSTMCell extends RNNCellBase {
    public LSTMCell(int inputSize, int hiddenSize) { this(inputSize, hiddenSize, true); }

    public LSTMCell(int inputSize, int hiddenSize, boolean bias) { super(4, inputSize, hiddenSize, bias); }

    /** The next hidden and cell states. */
    public record State(Tensor h, Tensor c) {}

    /** PyTorch's {@code cell(input, (hx, cx))}: both states given, or both null (zeros). */
    public State forward(Tensor input, Tensor hx, Tensor cx) {
        if ((hx == null) != (cx == null)) throw new IllegalArgumentException("LSTMCell: give both hx and cx, or neither");
        Tensor x = batchedInput(input);
        Tensor h = batchedState(input, x, hx, "hx[0]", "hidden0");
        Tensor c = batchedState(input, x, cx, "hx[1]", "hidden1");
        Tensor[] p = projections(x, h);
        Tensor[] next = RecurrentOps.lstmCell(p[0], p[1], c);
        return new State(unbatched(input, next[0]), unbatched(input, next[1]));
    }

    /** The next hidden state from zero states (the cell state is dropped: use {@link #forward(Tensor, Tensor, Tensor)} to keep it). */
    @Override
    public Tensor forward(Tensor input) { return forward(input, null, null).h(); }
}
