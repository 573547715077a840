package dev.ember.ops;

import dev.ember.autograd.Autograd;
import dev.ember.autograd.GradMode;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.List;

/**
 * The recurrence of one layer and direction of an RNN, LSTM or GRU as one op (ATen's
 * {@code _thnn_fused_lstm_cell} loop, one node for all steps): the input's projection for every step
 * is computed before it (one product the graph keeps), the op runs the steps. Traced step by step, a
 * sequence of 50 made a graph of about 2,000 ops that took seconds to compile, and one of 200 ran
 * past the tracer's instruction budget; as one op the graph holds one node per layer and direction.
 *
 * <p>Its backward is {@link #RNN_LAYER_BACKWARD}. An LSTM's steps and backward are fused
 * ({@link FusedLstm}): the forward keeps every step's gates and states in its fourth result, a
 * workspace without gradient (cuDNN's reserve space, ATen's fused cell's {@code workspace}), which
 * the backward reads instead of running the steps again; a float32 GRU's likewise ({@link FusedGru}).
 * Other GRUs' and an Elman layer's backward runs the steps below again with recording on and
 * differentiates them (recomputation: their workspace is empty), so the gradients are exactly those
 * of the step formulas.
 */
public final class RecurrentOps {
    private RecurrentOps() {}

    /** The gates of one step, for {@code mode} LSTM, GRU, RNN_TANH or RNN_RELU. */
    static int gates(String mode) {
        return switch (mode) {
            case "LSTM" -> 4;
            case "GRU" -> 3;
            case "RNN_TANH", "RNN_RELU" -> 1;
            default -> throw new IllegalArgumentException("rnn_layer: unknown mode '" + mode + "' (LSTM, GRU, RNN_TANH or RNN_RELU)");
        };
    }

    /**
     * The gradients of {@link #RNN_LAYER}'s inputs (input_gates, h0, c0, weight_hh, bias_hh; an
     * absent one's is empty) from those of its three outputs and its workspace: an LSTM's from the
     * gates the forward kept, the others' by running the steps again with recording on. Not
     * differentiable itself (no double backward through a recurrence yet).
     */
    public static final OpOverload RNN_LAYER_BACKWARD = OpOverload.define("rnn_layer_backward(Tensor grad_output, Tensor grad_h_n, "
                    + "Tensor grad_c_n, Tensor input_gates, Tensor h0, Tensor? c0, Tensor weight_hh, Tensor? bias_hh, str mode, bool reverse, Tensor workspace) "
                    + "-> (Tensor, Tensor, Tensor, Tensor, Tensor)")
            .nativeBlas()
            .meta(a -> {
                List<TensorMeta> out = new ArrayList<>();
                for (int i = 3; i < 8; i++) {
                    Tensor t = a.optTensor(i);
                    out.add(t == null ? TensorMeta.contiguous(a.tensor(3).dtype(), 0) : TensorMeta.contiguous(t.dtype(), t.shape()));
                }
                return out;
            })
            .kernel((a, m) -> a.str(8).equals("LSTM") ? FusedLstm.backward(a)
                    : a.str(8).equals("GRU") && a.tensor(10).numel() > 0 ? FusedGru.backward(a.tensor(0), a.tensor(1), a.tensor(6), a.optTensor(7), a.tensor(10), a.bool(9))
                    : backward(a))
            .register();

    /**
     * {@code input_gates} [steps, N, gates·H] (the input's projection, its bias added), {@code h0}
     * [N, H], {@code c0} [N, H] for LSTM; returns every step's hidden state [steps, N, H] (in input
     * order, also when {@code reverse}), the last hidden state, (LSTM) the last cell state, else
     * an empty tensor, and the workspace the backward reads (LSTM: [steps, N, 6H], each step's four
     * gates after their activations, its cell state and the hidden state it started from; a float32
     * GRU: [steps, N, 5H]; else empty), which has no gradient.
     */
    public static final OpOverload RNN_LAYER = OpOverload.define("rnn_layer(Tensor input_gates, Tensor h0, Tensor? c0, Tensor weight_hh, "
                    + "Tensor? bias_hh, str mode, bool reverse) -> (Tensor output, Tensor h_n, Tensor c_n, Tensor workspace)")
            .nativeBlas()
            .nonDifferentiableOutputs(3)
            .meta(a -> {
                Geometry g = geometry(a);
                TensorMeta h = TensorMeta.contiguous(g.dtype, g.batch, g.hidden), empty = TensorMeta.contiguous(g.dtype, 0);
                int workspaceRows = g.lstm ? FusedLstm.WORKSPACE_ROWS : fusedGru(a.str(5), g.dtype) ? FusedGru.WORKSPACE_ROWS : 0;
                return List.of(TensorMeta.contiguous(g.dtype, g.steps, g.batch, g.hidden), h, g.lstm ? h : empty,
                        workspaceRows == 0 ? empty : TensorMeta.contiguous(g.dtype, g.steps, g.batch, workspaceRows * g.hidden));
            })
            .kernel((a, m) -> a.str(5).equals("LSTM")
                    ? FusedLstm.run(a.tensor(0), a.tensor(1), a.optTensor(2), a.tensor(3), a.optTensor(4), a.bool(6))
                    : fusedGru(a.str(5), a.tensor(0).dtype()) ? FusedGru.run(a.tensor(0), a.tensor(1), a.tensor(3), a.optTensor(4), a.bool(6))
                    : run(a.tensor(0), a.tensor(1), a.optTensor(2), a.tensor(3), a.optTensor(4), a.str(5), a.bool(6)))
            .derivative(g -> {
                List<?> metas = List.of(g.resultMeta(0), g.resultMeta(1), g.resultMeta(2));
                Object[] grads = new Object[3];
                for (int k = 0; k < 3; k++) grads[k] = g.hasGrad(k) ? g.grad(k) : g.zeros((TensorMeta) metas.get(k));
                List<?> out = (List<?>) g.call(RNN_LAYER_BACKWARD, grads[0], grads[1], grads[2], g.arg(0), g.arg(1),
                        g.isTensorArg(2) ? g.arg(2) : null, g.arg(3), g.isTensorArg(4) ? g.arg(4) : null, g.value(5), g.value(6), g.result(3));
                Object[] result = new Object[7];
                for (int i = 0; i < 5; i++) if (g.isTensorArg(i) && g.needs(i)) result[i] = out.get(i);
                return result;
            })
            .register();

    /** Whether a layer's steps run fused by {@link FusedGru}: a float32 GRU (other dtypes run the steps below, its reference). */
    private static boolean fusedGru(String mode, dev.ember.tensor.DType dtype) { return mode.equals("GRU") && dtype == dev.ember.tensor.DType.FLOAT32; }

    private record Geometry(dev.ember.tensor.DType dtype, int steps, int batch, int hidden, boolean lstm) {}

    /** The shapes {@code rnn_layer} takes, checked with messages that name what is wrong. */
    private static Geometry geometry(Args a) {
        Tensor gatesIn = a.tensor(0), h0 = a.tensor(1), c0 = a.optTensor(2), w = a.tensor(3), b = a.optTensor(4);
        String mode = a.str(5);
        int gates = gates(mode);
        boolean lstm = mode.equals("LSTM");
        if (gatesIn.dim() != 3) throw new IllegalArgumentException("rnn_layer: input_gates must be [steps, N, gates*hidden], got " + Shapes.format(gatesIn.shape()));
        if (h0.dim() != 2) throw new IllegalArgumentException("rnn_layer: h0 must be [N, hidden], got " + Shapes.format(h0.shape()));
        int hidden = h0.size(1), batch = gatesIn.size(1);
        int[] want = {gatesIn.size(0), batch, gates * hidden};
        if (!Shapes.same(gatesIn.shape(), want) || h0.size(0) != batch) {
            throw new IllegalArgumentException("rnn_layer: input_gates " + Shapes.format(gatesIn.shape()) + " and h0 " + Shapes.format(h0.shape())
                    + " do not match a " + mode + " of hidden size " + hidden + " (" + gates + " gates)");
        }
        if (!Shapes.same(w.shape(), new int[] {gates * hidden, hidden})) {
            throw new IllegalArgumentException("rnn_layer: weight_hh must be " + Shapes.format(new int[] {gates * hidden, hidden}) + ", got " + Shapes.format(w.shape()));
        }
        if (b != null && !Shapes.same(b.shape(), new int[] {gates * hidden})) {
            throw new IllegalArgumentException("rnn_layer: bias_hh must be [" + gates * hidden + "], got " + Shapes.format(b.shape()));
        }
        if (lstm != (c0 != null)) throw new IllegalArgumentException("rnn_layer: " + (lstm ? "an LSTM needs c0" : "only an LSTM takes c0"));
        if (c0 != null && !Shapes.same(c0.shape(), h0.shape())) {
            throw new IllegalArgumentException("rnn_layer: c0 must be the shape of h0 " + Shapes.format(h0.shape()) + ", got " + Shapes.format(c0.shape()));
        }
        return new Geometry(gatesIn.dtype(), gatesIn.size(0), batch, hidden, lstm);
    }

    /** The steps, with whatever recording mode the caller set; returns [output, h_n, c_n, workspace (empty)]. */
    private static List<Tensor> run(Tensor inputGates, Tensor h0, Tensor c0, Tensor weightHh, Tensor biasHh, String mode, boolean reverse) {
        int steps = inputGates.size(0);
        boolean lstm = mode.equals("LSTM");
        Tensor h = h0, c = c0;
        Tensor[] outputs = new Tensor[steps];
        for (int i = 0; i < steps; i++) {
            int t = reverse ? steps - 1 - i : i;
            Tensor hiddenGates = LinalgOps.LINEAR.callTensor(h, weightHh, biasHh);
            Tensor stepInput = inputGates.select(0, t);
            if (lstm) {
                Tensor[] hc = lstmCell(stepInput, hiddenGates, c);
                h = hc[0];
                c = hc[1];
            } else if (mode.equals("GRU")) {
                h = gruCell(stepInput, hiddenGates, h);
            } else {
                h = rnnCell(mode, stepInput, hiddenGates);
            }
            outputs[t] = h;
        }
        // a state that is one of the inputs itself (no step) is still the op's own result
        return List.of(Tensor.stack(List.of(outputs), 0), h == h0 ? h.clone() : h, lstm ? (c == c0 ? c.clone() : c) : Tensor.zeros(h0.dtype(), 0),
                Tensor.zeros(h0.dtype(), 0));
    }

    private static List<Tensor> backward(Args a) {
        Tensor gradOut = a.tensor(0), gradH = a.tensor(1), gradC = a.tensor(2);
        String mode = a.str(8);
        boolean reverse = a.bool(9);
        Tensor[] leaves = new Tensor[5];
        for (int i = 0; i < 5; i++) {
            Tensor t = a.optTensor(3 + i);
            leaves[i] = t == null ? null : t.detach().requiresGrad(true);
        }
        List<Tensor> inputs = new ArrayList<>(), outputs = new ArrayList<>(), grads = new ArrayList<>();
        for (Tensor t : leaves) if (t != null) inputs.add(t);
        try (var recording = GradMode.enableGrad()) {
            List<Tensor> out = run(leaves[0], leaves[1], leaves[2], leaves[3], leaves[4], mode, reverse);
            outputs.add(out.get(0));
            grads.add(gradOut);
            outputs.add(out.get(1));
            grads.add(gradH);
            if (leaves[2] != null) {
                outputs.add(out.get(2));
                grads.add(gradC);
            }
            List<Tensor> got = Autograd.grad(outputs, inputs, grads, false, false, true);
            List<Tensor> result = new ArrayList<>();
            int next = 0;
            for (Tensor leaf : leaves) {
                if (leaf == null) {
                    result.add(Tensor.zeros(gradOut.dtype(), 0));
                    continue;
                }
                Tensor g = got.get(next++);
                result.add(g == null ? Tensor.zeros(leaf.dtype(), leaf.shape()) : g.detach());
            }
            return result;
        }
    }

    // ------------------------------------------------------------------ one step (the layers' and the cells')

    /** One LSTM step from the input's and the hidden state's projections: ATen's gates i, f, g, o; returns {h', c'}. */
    public static Tensor[] lstmCell(Tensor inputGates, Tensor hiddenGates, Tensor c) {
        List<Tensor> gates = hiddenGates.add(inputGates).chunk(4, -1);
        Tensor in = gates.get(0).sigmoid();
        Tensor forget = gates.get(1).sigmoid();
        Tensor cell = gates.get(2).tanh();
        Tensor out = gates.get(3).sigmoid();
        Tensor cNext = forget.mul(c).add(in.mul(cell));
        return new Tensor[] {out.mul(cNext.tanh()), cNext};
    }

    /** One GRU step, as ATen: r and z from both projections, n = tanh(in + r·hn), h' = (h − n)·z + n. */
    public static Tensor gruCell(Tensor inputGates, Tensor hiddenGates, Tensor h) {
        List<Tensor> fromInput = inputGates.chunk(3, -1);
        List<Tensor> fromHidden = hiddenGates.chunk(3, -1);
        Tensor reset = fromInput.get(0).add(fromHidden.get(0)).sigmoid();
        Tensor update = fromInput.get(1).add(fromHidden.get(1)).sigmoid();
        Tensor candidate = fromInput.get(2).add(fromHidden.get(2).mul(reset)).tanh();
        return h.sub(candidate).mul(update).add(candidate);
    }

    /** One Elman step: tanh or relu of the two projections' sum. */
    public static Tensor rnnCell(String mode, Tensor inputGates, Tensor hiddenGates) {
        Tensor sum = hiddenGates.add(inputGates);
        return mode.equals("RNN_RELU") ? sum.relu() : sum.tanh();
    }
}
