package dev.ember.nn;

import dev.ember.ops.RecurrentOps;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;

/**
 * The recurrent layers {@link RNN}, {@link LSTM} and {@link GRU}, as PyTorch's {@code nn.RNNBase}:
 * {@code numLayers} stacked layers, each optionally bidirectional, over a sequence
 * {@code [L, N, inputSize]} ({@code [N, L, inputSize]} with {@code batchFirst}, or unbatched
 * {@code [L, inputSize]}). The parameters are PyTorch's, by PyTorch's names and in its order —
 * per layer {@code k} and direction ({@code _reverse} for the backward one): {@code weight_ih_lk}
 * {@code [gates·hidden, in]}, {@code weight_hh_lk} {@code [gates·hidden, hidden]},
 * {@code bias_ih_lk}, {@code bias_hh_lk} and, for an LSTM with {@code projSize}, {@code weight_hr_lk}
 * {@code [projSize, hidden]} — all uniform on ±1/sqrt(hiddenSize), so a PyTorch state dict loads.
 *
 * <p>The forward computes as ATen's CPU layers do: the input projection of a whole layer is one
 * {@code linear} over the sequence, then {@link RecurrentOps#RNN_LAYER} runs the steps, each adding
 * the hidden projection and applying the cell ({@link RecurrentOps#lstmCell}, {@code gruCell},
 * {@code rnnCell}, which the single-step {@link LSTMCell}, {@link GRUCell} and {@link RNNCell}
 * share). A compiled caller's graph holds one projection and one {@code rnn_layer} node per layer and
 * direction, whatever the sequence's length, and the layer trains like any other ops.
 */
public abstract class RNNBase extends Module {
    public final int inputSize;
    public final int hiddenSize;
    public final int numLayers;
    public final boolean bias;
    public final boolean batchFirst;
    /** Dropout on the outputs of each layer but the last, in training. */
    public final double dropout;
    public final boolean bidirectional;
    /** LSTM's {@code proj_size}: the hidden state projected to this size each step ({@code weight_hr}); 0 for none. */
    public final int projSize;
    private final String mode;
    /** Per layer·directions + direction: the names of weight_ih, weight_hh, bias_ih, bias_hh (the biases absent without bias). */
    private final String[][] parameterNames;

    RNNBase(String mode, int gates, int inputSize, int hiddenSize, int numLayers, boolean bias, boolean batchFirst, double dropout, boolean bidirectional) {
        this(mode, gates, inputSize, hiddenSize, numLayers, bias, batchFirst, dropout, bidirectional, 0);
    }

    RNNBase(String mode, int gates, int inputSize, int hiddenSize, int numLayers, boolean bias, boolean batchFirst, double dropout, boolean bidirectional,
            int projSize) {
        String name = getClass().getSimpleName();
        if (projSize < 0) throw new IllegalArgumentException(name + ": proj_size should be a positive integer or zero to disable projections");
        if (projSize > 0 && !mode.equals("LSTM")) throw new IllegalArgumentException(name + ": proj_size argument is only supported for LSTM, not RNN or GRU");
        if (projSize > 0 && projSize >= hiddenSize) throw new IllegalArgumentException(name + ": proj_size has to be smaller than hidden_size");
        if (inputSize < 0) throw new IllegalArgumentException(name + ": input_size must be non-negative, got " + inputSize);
        if (hiddenSize <= 0) throw new IllegalArgumentException(name + ": hidden_size must be greater than zero, got " + hiddenSize);
        if (numLayers <= 0) throw new IllegalArgumentException(name + ": num_layers must be greater than zero, got " + numLayers);
        if (!(dropout >= 0 && dropout <= 1)) {
            throw new IllegalArgumentException(name + ": dropout should be a number in range [0, 1] representing the probability of an element being zeroed, got " + dropout);
        }
        this.mode = mode;
        this.inputSize = inputSize;
        this.hiddenSize = hiddenSize;
        this.numLayers = numLayers;
        this.bias = bias;
        this.batchFirst = batchFirst;
        this.dropout = dropout;
        this.bidirectional = bidirectional;
        this.projSize = projSize;
        int directions = bidirectional ? 2 : 1;
        int stateSize = projSize > 0 ? projSize : hiddenSize;   // PyTorch's real_hidden_size
        double bound = 1 / Math.sqrt(hiddenSize);
        parameterNames = new String[numLayers * directions][];
        for (int layer = 0; layer < numLayers; layer++) {
            int layerInput = layer == 0 ? inputSize : stateSize * directions;
            for (int direction = 0; direction < directions; direction++) {
                String suffix = "_l" + layer + (direction == 1 ? "_reverse" : "");
                // PyTorch's order: weight_ih, weight_hh, bias_ih, bias_hh, then weight_hr (a null name keeps the positions)
                String[] names = {"weight_ih" + suffix, "weight_hh" + suffix, bias ? "bias_ih" + suffix : null, bias ? "bias_hh" + suffix : null,
                        projSize > 0 ? "weight_hr" + suffix : null};
                registerParameter(names[0], new Parameter(Init.uniform(bound, gates * hiddenSize, layerInput)));
                registerParameter(names[1], new Parameter(Init.uniform(bound, gates * hiddenSize, stateSize)));
                if (bias) {
                    registerParameter(names[2], new Parameter(Init.uniform(bound, gates * hiddenSize)));
                    registerParameter(names[3], new Parameter(Init.uniform(bound, gates * hiddenSize)));
                }
                if (projSize > 0) registerParameter(names[4], new Parameter(Init.uniform(bound, projSize, hiddenSize)));
                parameterNames[layer * directions + direction] = names;
            }
        }
    }

    /** What a recurrent layer returns: the last layer's output at every step, and each layer's last hidden state ({@code cN} null but for LSTM). */
    public record Output(Tensor output, Tensor hN, Tensor cN) {}

    /** The last layer's output at every step, the states starting at zero. */
    @Override
    public Tensor forward(Tensor input) { return run(input, null, null).output(); }

    /**
     * The layers over {@code input}, from the hidden state {@code h0} (and for LSTM the cell state
     * {@code c0}) of shape {@code [numLayers·directions, N, hiddenSize]} ({@code [numLayers·directions,
     * hiddenSize]} for unbatched input); null starts from zeros.
     */
    Output run(Tensor input, Tensor h0, Tensor c0) {
        String name = getClass().getSimpleName();
        if (input.dim() != 2 && input.dim() != 3) {
            throw new IllegalArgumentException(name + ": Expected input to be 2D or 3D, got " + input.dim() + (this instanceof RNN ? "D tensor instead" : "D instead"));
        }
        boolean batched = input.dim() == 3;
        Tensor x = !batched ? input.unsqueeze(1) : batchFirst ? input.transpose(0, 1) : input;   // [L, N, in]
        if (x.size(2) != inputSize) {
            throw new IllegalArgumentException(name + ": input.size(-1) must be equal to input_size. Expected " + inputSize + ", got " + x.size(2));
        }
        if (x.size(0) == 0) throw new IllegalArgumentException(name + ": Expected sequence length to be larger than 0 in RNN");
        int directions = bidirectional ? 2 : 1;
        Tensor h = initialState(name, "hx", h0, batched, x.size(1), x.dtype(), projSize > 0 ? projSize : hiddenSize);
        boolean lstm = mode.equals("LSTM");
        Tensor c = lstm ? initialState(name, "cx", c0, batched, x.size(1), x.dtype(), hiddenSize) : null;
        if (!lstm && c0 != null) throw new IllegalArgumentException(name + ": only LSTM takes a cell state");
        List<Tensor> lastH = new ArrayList<>();
        List<Tensor> lastC = new ArrayList<>();
        Tensor layerInput = x;
        for (int layer = 0; layer < numLayers; layer++) {
            List<Tensor> directionOutputs = new ArrayList<>();
            for (int direction = 0; direction < directions; direction++) {
                String[] names = parameterNames[layer * directions + direction];
                Tensor weightHh = readParameter(names[1]);
                Tensor biasHh = bias ? readParameter(names[3]) : null;
                Tensor inputGates = F.linear(layerInput, readParameter(names[0]), bias ? readParameter(names[2]) : null);   // every step's input projection at once
                Tensor hState = h.select(0, layer * directions + direction);
                Tensor cState = lstm ? c.select(0, layer * directions + direction) : null;
                // the steps as one op (RecurrentOps.RNN_LAYER): one node per layer and direction in a compiled graph;
                // with proj_size, step by step (the fused layer has no projection)
                List<Tensor> ran = projSize > 0 ? projectedLstmLayer(inputGates, hState, cState, weightHh, biasHh, readParameter(names[4]), direction == 1)
                        : RecurrentOps.RNN_LAYER.callList(inputGates, hState, cState, weightHh, biasHh, mode, direction == 1);
                directionOutputs.add(ran.get(0));
                lastH.add(ran.get(1));
                if (lstm) lastC.add(ran.get(2));
            }
            Tensor layerOutput = directions == 1 ? directionOutputs.getFirst() : Tensor.cat(directionOutputs, 2);
            if (dropout > 0 && isTraining() && layer < numLayers - 1) layerOutput = F.dropout(layerOutput, dropout, true);
            layerInput = layerOutput;
        }
        Tensor output = layerInput;
        Tensor hN = Tensor.stack(lastH, 0);
        Tensor cN = lstm ? Tensor.stack(lastC, 0) : null;
        if (!batched) return new Output(output.squeeze(1), hN.squeeze(1), lstm ? cN.squeeze(1) : null);
        return new Output(batchFirst ? output.transpose(0, 1) : output, hN, cN);
    }

    /** What a recurrent layer returns for packed input: the last layer's outputs packed as the input was, and each layer's last states in batch order. */
    public record PackedOutput(PackedSequence output, Tensor hN, Tensor cN) {}

    /**
     * The layers over a {@link PackedSequence}, as PyTorch's packed forward: each sequence runs for
     * its own length only, so its last state ({@code hN}, {@code cN}) is the one after its last
     * valid step and the reverse direction starts from that step, never from padding. {@code h0}
     * and {@code c0} are in the batch's original order, {@code [numLayers·directions, B, size]}.
     * The sequences run one after the other (a batch of one each), eagerly from Java loops over
     * the lengths.
     */
    PackedOutput runPacked(PackedSequence input, Tensor h0, Tensor c0) {
        String name = getClass().getSimpleName();
        Tensor data = input.data();
        if (data.dim() != 2) throw new IllegalArgumentException(name + ": input must have 2 dimensions, got " + data.dim());
        if (data.size(1) != inputSize) {
            throw new IllegalArgumentException(name + ": input.size(-1) must be equal to input_size. Expected " + inputSize + ", got " + data.size(1));
        }
        boolean lstm = mode.equals("LSTM");
        if (!lstm && c0 != null) throw new IllegalArgumentException(name + ": only LSTM takes a cell state");
        int batch = input.batchSize();
        Tensor h = initialState(name, "hx", h0, true, batch, data.dtype(), projSize > 0 ? projSize : hiddenSize);
        Tensor c = lstm ? initialState(name, "cx", c0, true, batch, data.dtype(), hiddenSize) : null;
        List<Tensor> sequences = RnnUtils.unpackSequence(input), outputs = new ArrayList<>(), lastH = new ArrayList<>(), lastC = new ArrayList<>();
        for (int b = 0; b < batch; b++) {
            Tensor one = sequences.get(b).unsqueeze(batchFirst ? 0 : 1);
            Output o = run(one, h.narrow(1, b, 1), lstm ? c.narrow(1, b, 1) : null);
            outputs.add(o.output().squeeze(batchFirst ? 0 : 1));
            lastH.add(o.hN());
            if (lstm) lastC.add(o.cN());
        }
        return new PackedOutput(RnnUtils.packLike(outputs, input), Tensor.cat(lastH, 1), lstm ? Tensor.cat(lastC, 1) : null);
    }

    /**
     * One LSTM layer with proj_size, as ATen's: each step's gates from the input's projection and
     * {@code h·W_hhᵀ + b_hh}, the cell ({@link RecurrentOps#lstmCell}), then {@code h = h'·W_hrᵀ}
     * (the cell state keeps the full hidden size). Returns every step's h [steps, N, P] in input
     * order, the last h and the last c.
     */
    private static List<Tensor> projectedLstmLayer(Tensor inputGates, Tensor h, Tensor c, Tensor weightHh, Tensor biasHh, Tensor weightHr, boolean reverse) {
        int steps = inputGates.size(0);
        Tensor[] outputs = new Tensor[steps];
        for (int i = 0; i < steps; i++) {
            int t = reverse ? steps - 1 - i : i;
            Tensor[] hc = RecurrentOps.lstmCell(inputGates.select(0, t), F.linear(h, weightHh, biasHh), c);
            h = F.linear(hc[0], weightHr, null);
            c = hc[1];
            outputs[t] = h;
        }
        return List.of(Tensor.stack(List.of(outputs), 0), h, c);
    }

    /** {@code given} as {@code [layers·directions, N, size]}, or zeros; PyTorch's checks and messages. */
    private Tensor initialState(String name, String what, Tensor given, boolean batched, int batch, dev.ember.tensor.DType dtype, int size) {
        int[] expected = {numLayers * (bidirectional ? 2 : 1), batch, size};
        if (given == null) return Tensor.zeros(dtype, expected);
        if (batched && given.dim() != 3) {
            throw new IllegalArgumentException(name + ": For batched 3-D input, " + what + " should also be 3-D but got " + given.dim() + "-D tensor");
        }
        if (!batched && given.dim() != 2) {
            throw new IllegalArgumentException(name + ": For unbatched 2-D input, " + what + " should also be 2-D but got " + given.dim() + "-D tensor");
        }
        Tensor state = batched ? given : given.unsqueeze(1);
        if (!Shapes.same(state.shape(), expected)) {
            int[] shown = batched ? expected : new int[] {expected[0], expected[2]};
            String label = mode.equals("LSTM") ? (what.equals("hx") ? "hidden[0] " : "hidden[1] ") : "hidden ";
            throw new IllegalArgumentException(name + ": Expected " + label + "size " + Repr.tuple(shown) + ", got " + Shapes.format(given.shape()));
        }
        return state;
    }

    /** The parameter names of layer {@code layer}, direction {@code direction} (0 forward, 1 reverse). */
    String[] parameterNames(int layer, int direction) { return parameterNames[layer * (bidirectional ? 2 : 1) + direction].clone(); }

    @Override
    protected String extraRepr() {
        StringBuilder sb = new StringBuilder().append(inputSize).append(", ").append(hiddenSize);
        if (this instanceof RNN && mode.equals("RNN_RELU")) sb.append(", nonlinearity='relu'");
        if (numLayers != 1) sb.append(", num_layers=").append(numLayers);
        if (!bias) sb.append(", bias=False");
        if (batchFirst) sb.append(", batch_first=True");
        if (dropout != 0) sb.append(", dropout=").append(Repr.number(dropout));
        if (bidirectional) sb.append(", bidirectional=True");
        if (projSize != 0) sb.append(", proj_size=").append(projSize);
        return sb.toString();
    }
}
