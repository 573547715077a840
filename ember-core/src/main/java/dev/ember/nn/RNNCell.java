package dev.ember.nn;

import dev.ember.ops.RecurrentOps;
import dev.ember.tensor.Tensor;

/** One Elman step, as PyTorch's {@code nn.RNNCell} ({@code nonlinearity} "tanh" or "relu"); the formula is {@link RNN}'s. */
public class RNNCell extends RNNCellBase {
    public final String nonlinearity;
    private final String mode;

    public RNNCell(int inputSize, int hiddenSize) { this(inputSize, hiddenSize, true, "tanh"); }

    public RNNCell(int inputSize, int hiddenSize, boolean bias, String nonlinearity) {
        super(1, inputSize, hiddenSize, bias);
        this.mode = switch (nonlinearity) {
            case "tanh" -> "RNN_TANH";
            case "relu" -> "RNN_RELU";
            case null, default -> throw new IllegalArgumentException("Unknown nonlinearity: " + nonlinearity);
        };
        this.nonlinearity = nonlinearity;
    }

    /** PyTorch's {@code cell(input, hx)}; a null {@code hx} is zeros. */
    public Tensor forward(Tensor input, Tensor hx) {
        Tensor x = batchedInput(input);
        Tensor h = batchedState(input, x, hx, "hidden", "hidden0");
        Tensor[] p = projections(x, h);
        return unbatched(input, RecurrentOps.rnnCell(mode, p[0], p[1]));
    }

    @Override
    public Tensor forward(Tensor input) { return forward(input, null); }

    @Override
    protected String extraRepr() { return super.extraRepr() + (nonlinearity.equals("tanh") ? "" : ", nonlinearity='" + nonlinearity + "'"); }
}
