package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * One step of a recurrent layer, as PyTorch's {@code nn.RNNCellBase}: weight_ih
 * {@code [gates·hidden, input]}, weight_hh {@code [gates·hidden, hidden]}, bias_ih and bias_hh,
 * uniform on ±1/sqrt(hiddenSize); input {@code [N, inputSize]} or unbatched {@code [inputSize]}.
 * The step's formula is the layer's ({@link RNNBase}).
 */
public abstract class RNNCellBase extends Module {
    public final int inputSize;
    public final int hiddenSize;
    public final boolean bias;
    public Parameter weightIh;
    public Parameter weightHh;
    /** Null without bias. */
    public Parameter biasIh;
    public Parameter biasHh;

    RNNCellBase(int gates, int inputSize, int hiddenSize, boolean bias) {
        String name = getClass().getSimpleName();
        if (inputSize < 0) throw new IllegalArgumentException(name + ": input_size must be non-negative, got " + inputSize);
        if (hiddenSize <= 0) throw new IllegalArgumentException(name + ": hidden_size must be greater than zero, got " + hiddenSize);
        this.inputSize = inputSize;
        this.hiddenSize = hiddenSize;
        this.bias = bias;
        double bound = 1 / Math.sqrt(hiddenSize);
        weightIh = new Parameter(Init.uniform(bound, gates * hiddenSize, inputSize));
        weightHh = new Parameter(Init.uniform(bound, gates * hiddenSize, hiddenSize));
        if (bias) {
            biasIh = new Parameter(Init.uniform(bound, gates * hiddenSize));
            biasHh = new Parameter(Init.uniform(bound, gates * hiddenSize));
        }
    }

    /** ATen's checks of a cell's input; returns it as {@code [N, inputSize]}. */
    Tensor batchedInput(Tensor input) {
        String name = getClass().getSimpleName();
        if (input.dim() != 1 && input.dim() != 2) {
            throw new IllegalArgumentException(name + ": Expected input to be 1D or 2D, got " + input.dim() + "D instead");
        }
        if (input.size(-1) != inputSize) {
            throw new IllegalArgumentException(name + ": input has inconsistent input_size: got " + input.size(-1) + " expected " + inputSize);
        }
        return input.dim() == 1 ? input.unsqueeze(0) : input;
    }

    /**
     * A state ({@code hx}, {@code cx}) as {@code [N, hidden]}: zeros when null, else checked as
     * torch's cell modules and ATen check it: {@code what} is torch's name for it in the rank check
     * ({@code hidden}, {@code hx[0]}, {@code hx[1]}), {@code label} ATen's ({@code hidden0},
     * {@code hidden1}).
     */
    Tensor batchedState(Tensor input, Tensor x, Tensor state, String what, String label) {
        String name = getClass().getSimpleName();
        if (state == null) return Tensor.zeros(x.dtype(), x.size(0), hiddenSize);
        if (state.dim() != 1 && state.dim() != 2) {
            throw new IllegalArgumentException(name + ": Expected " + what + " to be 1D or 2D, got " + state.dim() + "D instead");
        }
        Tensor s = input.dim() == 1 ? state.unsqueeze(0) : state;
        if (s.size(0) != x.size(0)) {
            throw new IllegalArgumentException(name + ": Input batch size " + x.size(0) + " doesn't match " + label + " batch size " + s.size(0));
        }
        if (s.size(-1) != hiddenSize) {
            throw new IllegalArgumentException(name + ": " + label + " has inconsistent hidden_size: got " + s.size(-1) + ", expected " + hiddenSize);
        }
        if (s.dim() != 2) {
            throw new IllegalArgumentException(name + ": Expected " + what + " to be " + input.dim() + "D as the input is, got " + state.dim() + "D");
        }
        return s;
    }

    /** The input's and the hidden state's projections. */
    Tensor[] projections(Tensor x, Tensor h) {
        return new Tensor[] {F.linear(x, read("weight_ih", weightIh), read("bias_ih", biasIh)), F.linear(h, read("weight_hh", weightHh), read("bias_hh", biasHh))};
    }

    static Tensor unbatched(Tensor input, Tensor result) { return input.dim() == 1 ? result.squeeze(0) : result; }

    @Override
    protected String extraRepr() { return inputSize + ", " + hiddenSize + (bias ? "" : ", bias=False"); }
}
