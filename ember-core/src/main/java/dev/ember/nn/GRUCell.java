package dev.ember.nn;

import dev.ember.ops.RecurrentOps;
import dev.ember.tensor.Tensor;

/** One GRU step, as PyTorch's {@code nn.GRUCell}; the formula is {@link GRU}'s. */
public class GRUCell extends RNNCellBase {
    public GRUCell(int inputSize, int hiddenSize) { this(inputSize, hiddenSize, true); }

    public GRUCell(int inputSize, int hiddenSize, boolean bias) { super(3, inputSize, hiddenSize, bias); }

    /** PyTorch's {@code cell(input, hx)}; a null {@code hx} is zeros. */
    public Tensor forward(Tensor input, Tensor hx) {
        Tensor x = batchedInput(input);
        Tensor h = batchedState(input, x, hx, "hidden", "hidden0");
        Tensor[] p = projections(x, h);
        return unbatched(input, RecurrentOps.gruCell(p[0], p[1], h));
    }

    @Override
    public Tensor forward(Tensor input) { return forward(input, null); }
}
