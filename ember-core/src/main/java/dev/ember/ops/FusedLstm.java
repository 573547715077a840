package dev.ember.ops;

import dev.ember.kernels.ScalarMath;
import dev.ember.kernels.VectorMath;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * An LSTM layer's steps with the cell's pointwise work fused into one loop per step (ATen's
 * {@code _thnn_fused_lstm_cell}): per step one product of the hidden state with {@code weight_hh}
 * through the GEMM op, then the four gates, the cell and the hidden state in one pass, in float64
 * whatever the tensors' dtype (rounded once when stored). The forward keeps each step's gates, cell
 * state and starting hidden state in a workspace tensor ({@link #WORKSPACE_ROWS} rows of H per step
 * and batch row, every value as the tensors' dtype holds it, so nothing is lost). Its backward is
 * the recurrence's own (backpropagation through time by the cell's formulas, from the workspace):
 * per step one product for the hidden state's gradient, and one product over all steps for
 * {@code weight_hh}'s. Op by op, a step was about a dozen small ops forward and twice that backward;
 * running the forward again in the backward instead of keeping the gates took a third of a
 * training step (docs/benchmarks.md, session 31).
 * Sums and products are in float64; the activations of float32 tensors are Ember's float ones.
 */
final class FusedLstm {
    private FusedLstm() {}

    /** The workspace's rows of H per step and batch row: the gates i, f, g, o, the cell state, the hidden state the step started from. */
    static final int WORKSPACE_ROWS = 6;
    private static final int IN = 0, FORGET = 1, CELL = 2, OUT = 3, C = 4, H_PREV = 5;

    /** The layer forward: [output, h_n, c_n, workspace]. */
    static List<Tensor> run(Tensor inputGates, Tensor h0, Tensor c0, Tensor weightHh, Tensor biasHh, boolean reverse) {
        return inputGates.dtype() == DType.FLOAT32 ? runFloat(inputGates, h0, c0, weightHh, biasHh, reverse)
                : runWidened(inputGates, h0, c0, weightHh, biasHh, reverse);
    }

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;

    /**
     * The float32 forward on vector lanes, operation for operation as the op-by-op cell computes
     * ({@link RecurrentOps#lstmCell}: the same float sums, products and activations, whose scalar
     * twins the tail uses), so its values are the unfused cell's bit for bit. Reads and writes the
     * tensors' arrays directly: converting them to doubles and back took a tenth of a training step.
     */
    private static List<Tensor> runFloat(Tensor inputGates, Tensor h0, Tensor c0, Tensor weightHh, Tensor biasHh, boolean reverse) {
        int steps = inputGates.size(0), batch = inputGates.size(1), hidden = h0.size(1), g4 = 4 * hidden, w6 = WORKSPACE_ROWS * hidden;
        Tensor gatesIn = inputGates.contiguous();
        float[] xg = gatesIn.storage().floats();
        int xOffset = gatesIn.storageOffset();
        Tensor output = Tensor.allocate(DType.FLOAT32, steps, batch, hidden), work = Tensor.allocate(DType.FLOAT32, steps, batch, w6);
        float[] out = output.storage().floats(), ws = work.storage().floats();
        float[] c = c0.contiguous().toFloatArray();   // a copy: the cell state is updated in place, step by step
        Tensor h = h0.contiguous();
        for (int i = 0; i < steps; i++) {
            int t = reverse ? steps - 1 - i : i;
            Tensor hiddenGates = LinalgOps.LINEAR.callTensor(h, weightHh, biasHh).contiguous();
            Tensor hNext = Tensor.allocate(DType.FLOAT32, batch, hidden);
            float[] hg = hiddenGates.storage().floats(), hp = h.storage().floats(), hn = hNext.storage().floats();
            for (int n = 0; n < batch; n++) {
                int row = t * batch + n;
                cellRow(hidden, xg, xOffset + row * g4, hg, hiddenGates.storageOffset() + n * g4, hp, h.storageOffset() + n * hidden,
                        c, n * hidden, ws, row * w6, hn, n * hidden, out, row * hidden);
            }
            h = hNext;
        }
        return List.of(output, steps == 0 ? h0.clone() : h, Tensor.of(c, batch, hidden), work);
    }

    /** One batch row of one step: the gates from the two projections, the cell and hidden states, the workspace's rows. */
    private static void cellRow(int hidden, float[] xg, int x, float[] hg, int g, float[] hPrev, int hp, float[] c, int ci,
                                float[] ws, int w, float[] hNext, int hn, float[] out, int o) {
        int j = 0;
        for (int bound = S.loopBound(hidden); j < bound; j += S.length()) {
            FloatVector ig = VectorMath.sigmoid(gate(hg, g + j, xg, x + j));
            FloatVector fg = VectorMath.sigmoid(gate(hg, g + hidden + j, xg, x + hidden + j));
            FloatVector gg = VectorMath.tanh(gate(hg, g + 2 * hidden + j, xg, x + 2 * hidden + j));
            FloatVector og = VectorMath.sigmoid(gate(hg, g + 3 * hidden + j, xg, x + 3 * hidden + j));
            FloatVector cn = fg.mul(FloatVector.fromArray(S, c, ci + j)).add(ig.mul(gg));
            FloatVector hv = og.mul(VectorMath.tanh(cn));
            ig.intoArray(ws, w + IN * hidden + j);
            fg.intoArray(ws, w + FORGET * hidden + j);
            gg.intoArray(ws, w + CELL * hidden + j);
            og.intoArray(ws, w + OUT * hidden + j);
            cn.intoArray(ws, w + C * hidden + j);
            FloatVector.fromArray(S, hPrev, hp + j).intoArray(ws, w + H_PREV * hidden + j);
            cn.intoArray(c, ci + j);
            hv.intoArray(hNext, hn + j);
            hv.intoArray(out, o + j);
        }
        for (; j < hidden; j++) {
            float ig = VectorMath.sigmoid(hg[g + j] + xg[x + j]);
            float fg = VectorMath.sigmoid(hg[g + hidden + j] + xg[x + hidden + j]);
            float gg = VectorMath.tanh(hg[g + 2 * hidden + j] + xg[x + 2 * hidden + j]);
            float og = VectorMath.sigmoid(hg[g + 3 * hidden + j] + xg[x + 3 * hidden + j]);
            float cn = fg * c[ci + j] + ig * gg;
            float hv = og * VectorMath.tanh(cn);
            ws[w + IN * hidden + j] = ig;
            ws[w + FORGET * hidden + j] = fg;
            ws[w + CELL * hidden + j] = gg;
            ws[w + OUT * hidden + j] = og;
            ws[w + C * hidden + j] = cn;
            ws[w + H_PREV * hidden + j] = hPrev[hp + j];
            c[ci + j] = cn;
            hNext[hn + j] = hv;
            out[o + j] = hv;
        }
    }

    /** A gate's pre-activation, as the op-by-op cell adds them: the hidden projection plus the input's. */
    private static FloatVector gate(float[] hg, int g, float[] xg, int x) {
        return FloatVector.fromArray(S, hg, g).add(FloatVector.fromArray(S, xg, x));
    }

    /** The forward of other dtypes (float64): sums and products in float64. */
    private static List<Tensor> runWidened(Tensor inputGates, Tensor h0, Tensor c0, Tensor weightHh, Tensor biasHh, boolean reverse) {
        DType dtype = inputGates.dtype();
        int steps = inputGates.size(0), batch = inputGates.size(1), hidden = h0.size(1), g4 = 4 * hidden, nh = batch * hidden;
        int w6 = WORKSPACE_ROWS * hidden;
        double[] xg = read(inputGates);
        double[] h = read(h0), c = read(c0);
        double[] output = new double[steps * nh];
        double[] work = new double[steps * batch * w6];
        boolean f32 = dtype == DType.FLOAT32;
        for (int i = 0; i < steps; i++) {
            int t = reverse ? steps - 1 - i : i;
            double[] hg = read(LinalgOps.LINEAR.callTensor(make(h, dtype, batch, hidden), weightHh, biasHh));
            double[] hNext = new double[nh], cNext = new double[nh];
            for (int n = 0; n < batch; n++) {
                int x0 = (t * batch + n) * g4, h0i = n * g4, w = (t * batch + n) * w6;
                for (int j = 0; j < hidden; j++) {
                    int k = n * hidden + j;
                    double ig = sigmoid(xg[x0 + j] + hg[h0i + j], f32);
                    double fg = sigmoid(xg[x0 + hidden + j] + hg[h0i + hidden + j], f32);
                    double gg = tanh(xg[x0 + 2 * hidden + j] + hg[h0i + 2 * hidden + j], f32);
                    double og = sigmoid(xg[x0 + 3 * hidden + j] + hg[h0i + 3 * hidden + j], f32);
                    double cn = round(fg * c[k] + ig * gg, dtype);
                    double hn = round(og * tanh(cn, f32), dtype);
                    work[w + IN * hidden + j] = ig;
                    work[w + FORGET * hidden + j] = fg;
                    work[w + CELL * hidden + j] = gg;
                    work[w + OUT * hidden + j] = og;
                    work[w + C * hidden + j] = cn;
                    work[w + H_PREV * hidden + j] = h[k];
                    cNext[k] = cn;
                    hNext[k] = hn;
                }
            }
            System.arraycopy(hNext, 0, output, t * nh, nh);
            h = hNext;
            c = cNext;
        }
        return List.of(make(output, dtype, steps, batch, hidden), make(h, dtype, batch, hidden), make(c, dtype, batch, hidden),
                make(work, dtype, steps, batch, w6));
    }

    /** rnn_layer_backward for an LSTM: the gradients of input_gates, h0, c0, weight_hh and bias_hh (empty where absent). */
    static List<Tensor> backward(Args a) {
        Tensor gradOut = a.tensor(0), gradH = a.tensor(1), gradC = a.tensor(2), inputGates = a.tensor(3), h0 = a.tensor(4), c0 = a.optTensor(5);
        Tensor weightHh = a.tensor(6), biasHh = a.optTensor(7), workspace = a.tensor(10);
        boolean reverse = a.bool(9);
        DType dtype = inputGates.dtype();
        boolean f32 = dtype == DType.FLOAT32;
        int steps = inputGates.size(0), batch = inputGates.size(1), hidden = h0.size(1), g4 = 4 * hidden, nh = batch * hidden;
        int w6 = WORKSPACE_ROWS * hidden;
        if (!Shapes.same(workspace.shape(), new int[] {steps, batch, w6})) {
            throw new IllegalArgumentException("rnn_layer_backward: an LSTM's workspace must be " + Shapes.format(new int[] {steps, batch, w6})
                    + " (rnn_layer's fourth result), got " + Shapes.format(workspace.shape()));
        }
        double[] work = read(workspace), c0v = read(c0);
        double[] hPrev = new double[steps * nh];
        double[] go = read(gradOut), dhNext = read(gradH), dcNext = gradC.numel() == 0 ? new double[nh] : read(gradC);
        double[] dGates = new double[steps * batch * g4];
        for (int i = steps - 1; i >= 0; i--) {
            int t = reverse ? steps - 1 - i : i;
            double[] dG = new double[batch * g4];
            for (int n = 0; n < batch; n++) {
                int w = (t * batch + n) * w6;
                // the cell state this step started from: the previous step's (in the direction run), or c0
                int before = reverse ? t + 1 : t - 1;
                boolean first = before < 0 || before >= steps;
                int wPrev = first ? 0 : (before * batch + n) * w6 + C * hidden;
                for (int j = 0; j < hidden; j++) {
                    int k = n * hidden + j, x = t * nh + k;
                    double dh = go[x] + dhNext[k];
                    double ig = work[w + IN * hidden + j], fg = work[w + FORGET * hidden + j], gg = work[w + CELL * hidden + j];
                    double og = work[w + OUT * hidden + j], tc = tanh(work[w + C * hidden + j], f32);
                    double cPrev = first ? c0v[k] : work[wPrev + j];
                    hPrev[x] = work[w + H_PREV * hidden + j];
                    double dout = dh * tc;
                    double dc = dh * og * (1 - tc * tc) + dcNext[k];
                    int b = n * g4;
                    dG[b + j] = dc * gg * ig * (1 - ig);
                    dG[b + hidden + j] = dc * cPrev * fg * (1 - fg);
                    dG[b + 2 * hidden + j] = dc * ig * (1 - gg * gg);
                    dG[b + 3 * hidden + j] = dout * og * (1 - og);
                    dcNext[k] = dc * fg;
                }
            }
            System.arraycopy(dG, 0, dGates, t * batch * g4, batch * g4);
            // the hidden state's gradient into the step before: dG [N, 4H] · weight_hh [4H, H]
            dhNext = read(LinalgOps.MM.callTensor(make(dG, dtype, batch, g4), weightHh));
        }
        Tensor dGatesT = make(dGates, dtype, steps, batch, g4);
        Tensor flat = dGatesT.reshape(steps * batch, g4);
        List<Tensor> result = new ArrayList<>();
        result.add(dGatesT);
        result.add(make(dhNext, dtype, batch, hidden));
        result.add(c0 == null ? Tensor.zeros(dtype, 0) : make(dcNext, dtype, batch, hidden));
        // weight_hh's gradient over every step at once: Σ_t dG_tᵀ · h_{t-1}
        result.add(LinalgOps.MM.callTensor(flat.t(), make(hPrev, dtype, steps * batch, hidden)));
        result.add(biasHh == null ? Tensor.zeros(dtype, 0) : flat.sum(new int[] {0}, false));
        return result;
    }

    /**
     * The activations as the op-by-op cell computes them: float32 tensors through Ember's own float
     * functions (the pointwise kernels' scalar forms, a few ulp, several times faster than Math's
     * double ones), float64 through Math's.
     */
    private static double sigmoid(double x, boolean f32) { return f32 ? ScalarMath.sigmoid((float) x) : 1 / (1 + Math.exp(-x)); }

    private static double tanh(double x, boolean f32) { return f32 ? ScalarMath.tanh((float) x) : Math.tanh(x); }

    /** A float tensor's values as doubles (float32 through its own array: the generic element reads cost a quarter of a step). */
    private static double[] read(Tensor t) {
        if (t.dtype() != DType.FLOAT32) return t.toDoubleArray();
        float[] f = t.toFloatArray();
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) d[i] = f[i];
        return d;
    }

    /** A tensor of {@code dtype} holding {@code v}. */
    private static Tensor make(double[] v, DType dtype, int... shape) {
        if (dtype != DType.FLOAT32) return Tensor.of(v, shape);
        float[] f = new float[v.length];
        for (int i = 0; i < v.length; i++) f[i] = (float) v[i];
        return Tensor.of(f, shape);
    }

    /** A state as its tensor stores it: the next step starts from the stored value, as op by op. */
    private static double round(double v, DType dtype) { return dtype == DType.FLOAT32 ? (float) v : v; }
}
