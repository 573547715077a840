package dev.ember.ops;

import dev.ember.kernels.VectorMath;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.List;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * An LSTM layer's steps with the cell's pointwise work fused into one loop per step (ATen's
 * {@code _thnn_fused_lstm_cell}): per step one product of the hidden state with {@code weight_hh}
 * through the GEMM op, then the four gates, the cell and the hidden state in one pass: float32 on
 * vector lanes, as the op-by-op cell computes it (bit for bit), other dtypes in float64. The forward keeps each step's gates, cell
 * state and starting hidden state in a workspace tensor ({@link #WORKSPACE_ROWS} rows of H per step
 * and batch row, every value as the tensors' dtype holds it, so nothing is lost). Its backward is
 * the recurrence's own (backpropagation through time by the cell's formulas, from the workspace):
 * per step one product for the hidden state's gradient, and one product over all steps for
 * {@code weight_hh}'s. Op by op, a step was about a dozen small ops forward and twice that backward;
 * running the forward again in the backward instead of keeping the gates took a third of a
 * training step (docs/benchmarks.md, session 31). The float32 backward works on the tensors'
 * arrays in float; the float64 one is the float32 one's reference (FusedLstmTest).
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

    static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;

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
        // every element of these is written below (the output's row of each step, each step's workspace rows)
        Tensor output = uninitialized(steps, batch, hidden), work = uninitialized(steps, batch, w6);
        float[] out = output.storage().floats(), ws = work.storage().floats();
        float[] c = c0.contiguous().toFloatArray();   // a copy: the cell state is updated in place, step by step
        Tensor h = h0.contiguous();
        for (int i = 0; i < steps; i++) {
            int t = reverse ? steps - 1 - i : i;
            Tensor hiddenGates = LinalgOps.LINEAR.callTensor(h, weightHh, biasHh).contiguous();
            Tensor hNext = uninitialized(batch, hidden);
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

    /**
     * One batch row of one step: the gates from the two projections, the cell and hidden states, the
     * workspace's rows. In three short loops (the gates' sums, their activations in place, the
     * states) rather than one: C2 inlined only part of the one loop's vector calls, and what it left
     * out ran the Vector API's boxed fallback.
     */
    private static void cellRow(int hidden, float[] xg, int x, float[] hg, int g, float[] hPrev, int hp, float[] c, int ci,
                                float[] ws, int w, float[] hNext, int hn, float[] out, int o) {
        // the four gates' pre-activations, as the op-by-op cell adds them: the hidden projection plus the input's
        int g4 = 4 * hidden, j = 0;
        for (int bound = S.loopBound(g4); j < bound; j += S.length()) {
            FloatVector.fromArray(S, hg, g + j).add(FloatVector.fromArray(S, xg, x + j)).intoArray(ws, w + j);
        }
        for (; j < g4; j++) ws[w + j] = hg[g + j] + xg[x + j];
        sigmoid(ws, w + IN * hidden, 2 * hidden);   // i and f
        tanh(ws, w + CELL * hidden, hidden);
        sigmoid(ws, w + OUT * hidden, hidden);
        j = 0;
        for (int bound = S.loopBound(hidden); j < bound; j += S.length()) {
            FloatVector ig = FloatVector.fromArray(S, ws, w + IN * hidden + j), fg = FloatVector.fromArray(S, ws, w + FORGET * hidden + j);
            FloatVector gg = FloatVector.fromArray(S, ws, w + CELL * hidden + j), og = FloatVector.fromArray(S, ws, w + OUT * hidden + j);
            FloatVector cn = fg.mul(FloatVector.fromArray(S, c, ci + j)).add(ig.mul(gg));
            FloatVector hv = og.mul(VectorMath.tanh(cn));
            cn.intoArray(ws, w + C * hidden + j);
            cn.intoArray(c, ci + j);
            FloatVector.fromArray(S, hPrev, hp + j).intoArray(ws, w + H_PREV * hidden + j);
            hv.intoArray(hNext, hn + j);
            hv.intoArray(out, o + j);
        }
        for (; j < hidden; j++) {
            float cn = ws[w + FORGET * hidden + j] * c[ci + j] + ws[w + IN * hidden + j] * ws[w + CELL * hidden + j];
            float hv = ws[w + OUT * hidden + j] * VectorMath.tanh(cn);
            ws[w + C * hidden + j] = cn;
            c[ci + j] = cn;
            ws[w + H_PREV * hidden + j] = hPrev[hp + j];
            hNext[hn + j] = hv;
            out[o + j] = hv;
        }
    }

    /**
     * One batch row of one step backward: the gates' gradients from the output's and the next step's
     * hidden-state gradient and the cell-state gradient carried back (updated in place), on lanes; the
     * hidden state the step started from copied out for weight_hh's gradient.
     */
    private static void backwardRow(int hidden, float[] go, int o, float[] dhNext, int dh, float[] ws, int w, float[] cPrev, int cp,
                                    float[] dc, int k, float[] dG, int b, float[] hp, int h) {
        int j = 0;
        for (int bound = S.loopBound(hidden); j < bound; j += S.length()) {
            FloatVector d = FloatVector.fromArray(S, go, o + j).add(FloatVector.fromArray(S, dhNext, dh + j));
            FloatVector ig = FloatVector.fromArray(S, ws, w + IN * hidden + j), fg = FloatVector.fromArray(S, ws, w + FORGET * hidden + j);
            FloatVector gg = FloatVector.fromArray(S, ws, w + CELL * hidden + j), og = FloatVector.fromArray(S, ws, w + OUT * hidden + j);
            FloatVector tc = VectorMath.tanh(FloatVector.fromArray(S, ws, w + C * hidden + j)), one = FloatVector.broadcast(S, 1f);
            FloatVector dcell = d.mul(og).mul(one.sub(tc.mul(tc))).add(FloatVector.fromArray(S, dc, k + j));
            dcell.mul(gg).mul(ig).mul(one.sub(ig)).intoArray(dG, b + j);
            dcell.mul(FloatVector.fromArray(S, cPrev, cp + j)).mul(fg).mul(one.sub(fg)).intoArray(dG, b + hidden + j);
            dcell.mul(ig).mul(one.sub(gg.mul(gg))).intoArray(dG, b + 2 * hidden + j);
            d.mul(tc).mul(og).mul(one.sub(og)).intoArray(dG, b + 3 * hidden + j);
            dcell.mul(fg).intoArray(dc, k + j);
            FloatVector.fromArray(S, ws, w + H_PREV * hidden + j).intoArray(hp, h + j);
        }
        for (; j < hidden; j++) {
            float d = go[o + j] + dhNext[dh + j];
            float ig = ws[w + IN * hidden + j], fg = ws[w + FORGET * hidden + j], gg = ws[w + CELL * hidden + j];
            float og = ws[w + OUT * hidden + j], tc = VectorMath.tanh(ws[w + C * hidden + j]);
            float dcell = d * og * (1 - tc * tc) + dc[k + j];
            dG[b + j] = dcell * gg * ig * (1 - ig);
            dG[b + hidden + j] = dcell * cPrev[cp + j] * fg * (1 - fg);
            dG[b + 2 * hidden + j] = dcell * ig * (1 - gg * gg);
            dG[b + 3 * hidden + j] = d * tc * og * (1 - og);
            dc[k + j] = dcell * fg;
            hp[h + j] = ws[w + H_PREV * hidden + j];
        }
    }

    /** a[from, from + n) = sigmoid(a[...]) in place, on lanes (the tail by the lanes' scalar twin). */
    static void sigmoid(float[] a, int from, int n) {
        int j = 0;
        for (int bound = S.loopBound(n); j < bound; j += S.length()) VectorMath.sigmoid(FloatVector.fromArray(S, a, from + j)).intoArray(a, from + j);
        for (; j < n; j++) a[from + j] = VectorMath.sigmoid(a[from + j]);
    }

    /** a[from, from + n) = tanh(a[...]) in place, on lanes (the tail by the lanes' scalar twin). */
    static void tanh(float[] a, int from, int n) {
        int j = 0;
        for (int bound = S.loopBound(n); j < bound; j += S.length()) VectorMath.tanh(FloatVector.fromArray(S, a, from + j)).intoArray(a, from + j);
        for (; j < n; j++) a[from + j] = VectorMath.tanh(a[from + j]);
    }

    /** A float32 tensor whose every element the caller writes before anything reads it. */
    static Tensor uninitialized(int... shape) { return Tensor.allocateUninitialized(TensorMeta.contiguous(DType.FLOAT32, shape)); }

    /** The forward of other dtypes: sums, products and activations in float64. */
    private static List<Tensor> runWidened(Tensor inputGates, Tensor h0, Tensor c0, Tensor weightHh, Tensor biasHh, boolean reverse) {
        DType dtype = inputGates.dtype();
        int steps = inputGates.size(0), batch = inputGates.size(1), hidden = h0.size(1), g4 = 4 * hidden, nh = batch * hidden;
        int w6 = WORKSPACE_ROWS * hidden;
        double[] xg = read(inputGates);
        double[] h = read(h0), c = read(c0);
        double[] output = new double[steps * nh];
        double[] work = new double[steps * batch * w6];
        for (int i = 0; i < steps; i++) {
            int t = reverse ? steps - 1 - i : i;
            double[] hg = read(LinalgOps.LINEAR.callTensor(make(h, dtype, batch, hidden), weightHh, biasHh));
            double[] hNext = new double[nh], cNext = new double[nh];
            for (int n = 0; n < batch; n++) {
                int x0 = (t * batch + n) * g4, h0i = n * g4, w = (t * batch + n) * w6;
                for (int j = 0; j < hidden; j++) {
                    int k = n * hidden + j;
                    double ig = sigmoid(xg[x0 + j] + hg[h0i + j]);
                    double fg = sigmoid(xg[x0 + hidden + j] + hg[h0i + hidden + j]);
                    double gg = Math.tanh(xg[x0 + 2 * hidden + j] + hg[h0i + 2 * hidden + j]);
                    double og = sigmoid(xg[x0 + 3 * hidden + j] + hg[h0i + 3 * hidden + j]);
                    double cn = fg * c[k] + ig * gg;
                    double hn = og * Math.tanh(cn);
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
        int steps = inputGates.size(0), batch = inputGates.size(1), hidden = h0.size(1), g4 = 4 * hidden, nh = batch * hidden;
        int w6 = WORKSPACE_ROWS * hidden;
        if (!Shapes.same(workspace.shape(), new int[] {steps, batch, w6})) {
            throw new IllegalArgumentException("rnn_layer_backward: an LSTM's workspace must be " + Shapes.format(new int[] {steps, batch, w6})
                    + " (rnn_layer's fourth result), got " + Shapes.format(workspace.shape()));
        }
        if (dtype == DType.FLOAT32) return backwardFloat(gradOut, gradH, gradC, c0, weightHh, biasHh, workspace, reverse);
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
                    double og = work[w + OUT * hidden + j], tc = Math.tanh(work[w + C * hidden + j]);
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
     * The float32 backward through time, reading the tensors' arrays directly (float arithmetic, as
     * the op-by-op cell's backward has); per step one product for the hidden state's gradient.
     */
    private static List<Tensor> backwardFloat(Tensor gradOut, Tensor gradH, Tensor gradC, Tensor c0, Tensor weightHh, Tensor biasHh,
                                              Tensor workspace, boolean reverse) {
        int steps = workspace.size(0), batch = workspace.size(1), hidden = gradH.size(1), g4 = 4 * hidden, nh = batch * hidden;
        int w6 = WORKSPACE_ROWS * hidden;
        Tensor gradOutC = gradOut.contiguous(), work = workspace.contiguous();
        float[] go = gradOutC.storage().floats(), ws = work.storage().floats();
        int goOffset = gradOutC.storageOffset(), wsOffset = work.storageOffset();
        float[] cStart = c0.contiguous().toFloatArray();
        float[] dc = gradC.numel() == 0 ? new float[nh] : gradC.contiguous().toFloatArray();   // a copy, updated step by step
        Tensor dh = gradH.contiguous();
        Tensor dGates = uninitialized(steps, batch, g4), hPrev = uninitialized(steps * batch, hidden);   // every element written below
        float[] dG = dGates.storage().floats(), hp = hPrev.storage().floats();
        for (int i = steps - 1; i >= 0; i--) {
            int t = reverse ? steps - 1 - i : i;
            // the cell state this step started from: the previous step's (in the direction run), or c0
            int before = reverse ? t + 1 : t - 1;
            boolean first = before < 0 || before >= steps;
            float[] dhNext = dh.storage().floats();
            int dhOffset = dh.storageOffset();
            for (int n = 0; n < batch; n++) {
                int row = t * batch + n, w = wsOffset + row * w6, b = row * g4;
                float[] cPrev = first ? cStart : ws;
                int cp = first ? n * hidden : wsOffset + (before * batch + n) * w6 + C * hidden;
                backwardRow(hidden, go, goOffset + row * hidden, dhNext, dhOffset + n * hidden, ws, w, cPrev, cp, dc, n * hidden,
                        dG, b, hp, row * hidden);
            }
            // the hidden state's gradient into the step before: dG_t [N, 4H] · weight_hh [4H, H]
            dh = LinalgOps.MM.callTensor(dGates.select(0, t), weightHh).contiguous();
        }
        Tensor flat = dGates.reshape(steps * batch, g4);
        List<Tensor> result = new ArrayList<>();
        result.add(dGates);
        result.add(steps == 0 ? gradH.clone() : dh);
        result.add(Tensor.of(dc, batch, hidden));
        // weight_hh's gradient over every step at once: Σ_t dG_tᵀ · h_{t-1}
        result.add(LinalgOps.MM.callTensor(flat.t(), hPrev));
        result.add(biasHh == null ? Tensor.zeros(DType.FLOAT32, 0) : flat.sum(new int[] {0}, false));
        return result;
    }

    private static double sigmoid(double x) { return 1 / (1 + Math.exp(-x)); }

    /** A tensor's values as doubles. */
    private static double[] read(Tensor t) { return t.toDoubleArray(); }

    /** A tensor of {@code dtype} holding {@code v} (rounded to it once). */
    private static Tensor make(double[] v, DType dtype, int... shape) {
        Tensor t = Tensor.of(v, shape);
        return dtype == DType.FLOAT64 ? t : t.to(dtype);
    }
}
