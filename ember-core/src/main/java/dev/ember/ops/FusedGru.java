package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;

import jdk.incubator.vector.FloatVector;

import static dev.ember.ops.FusedLstm.S;
import static dev.ember.ops.FusedLstm.uninitialized;

/**
 * A float32 GRU layer's steps fused as {@link FusedLstm} fuses an LSTM's: per step one product of
 * the hidden state with {@code weight_hh} through the GEMM op, then the gates and the new hidden
 * state on vector lanes, operation for operation as the op-by-op cell computes
 * ({@link RecurrentOps#gruCell}: r = σ(x_r + h_r), z = σ(x_z + h_z), n = tanh(x_n + h_n·r),
 * h' = (h − n)·z + n), so its values are the unfused cell's bit for bit. The forward keeps each
 * step's r, z, n, the hidden projection's n part and the hidden state the step started from in a
 * workspace ({@link #WORKSPACE_ROWS} rows of H per step and batch row); the backward through time
 * reads it (per step one product for the hidden state's gradient, one over all steps for
 * {@code weight_hh}'s). Other dtypes take the op-by-op steps and autograd (RecurrentOps), which is
 * this one's reference (FusedGruTest).
 */
final class FusedGru {
    private FusedGru() {}

    /** The workspace's rows of H per step and batch row: r, z, n, the hidden projection's n part, the hidden state the step started from. */
    static final int WORKSPACE_ROWS = 5;
    private static final int RESET = 0, UPDATE = 1, NEW = 2, HIDDEN_NEW = 3, H_PREV = 4;

    /** The layer forward: [output, h_n, an empty c_n, workspace]. */
    static List<Tensor> run(Tensor inputGates, Tensor h0, Tensor weightHh, Tensor biasHh, boolean reverse) {
        int steps = inputGates.size(0), batch = inputGates.size(1), hidden = h0.size(1), g3 = 3 * hidden, w5 = WORKSPACE_ROWS * hidden;
        Tensor gatesIn = inputGates.contiguous();
        float[] xg = gatesIn.storage().floats();
        int xOffset = gatesIn.storageOffset();
        // every element of these is written below (the output's row of each step, each step's workspace rows)
        Tensor output = uninitialized(steps, batch, hidden), work = uninitialized(steps, batch, w5);
        float[] out = output.storage().floats(), ws = work.storage().floats();
        Tensor h = h0.contiguous();
        for (int i = 0; i < steps; i++) {
            int t = reverse ? steps - 1 - i : i;
            Tensor hiddenGates = LinalgOps.LINEAR.callTensor(h, weightHh, biasHh).contiguous();
            Tensor hNext = uninitialized(batch, hidden);
            float[] hg = hiddenGates.storage().floats(), hp = h.storage().floats(), hn = hNext.storage().floats();
            for (int n = 0; n < batch; n++) {
                int row = t * batch + n;
                cellRow(hidden, xg, xOffset + row * g3, hg, hiddenGates.storageOffset() + n * g3, hp, h.storageOffset() + n * hidden,
                        ws, row * w5, hn, n * hidden, out, row * hidden);
            }
            h = hNext;
        }
        return List.of(output, steps == 0 ? h0.clone() : h, Tensor.zeros(DType.FLOAT32, 0), work);
    }

    /** One batch row of one step, in short loops (see FusedLstm's cellRow for why). */
    private static void cellRow(int hidden, float[] xg, int x, float[] hg, int g, float[] hPrev, int hp,
                                float[] ws, int w, float[] hNext, int hn, float[] out, int o) {
        // r and z: the input's projection plus the hidden one's, as the op-by-op cell adds them
        int g2 = 2 * hidden, j = 0;
        for (int bound = S.loopBound(g2); j < bound; j += S.length()) {
            FloatVector.fromArray(S, xg, x + j).add(FloatVector.fromArray(S, hg, g + j)).intoArray(ws, w + j);
        }
        for (; j < g2; j++) ws[w + j] = xg[x + j] + hg[g + j];
        FusedLstm.sigmoid(ws, w + RESET * hidden, g2);
        // n = tanh(x_n + h_n·r)
        int xn = x + 2 * hidden, hgn = g + 2 * hidden;
        j = 0;
        for (int bound = S.loopBound(hidden); j < bound; j += S.length()) {
            FloatVector hNew = FloatVector.fromArray(S, hg, hgn + j);
            hNew.intoArray(ws, w + HIDDEN_NEW * hidden + j);
            FloatVector.fromArray(S, xg, xn + j).add(hNew.mul(FloatVector.fromArray(S, ws, w + RESET * hidden + j))).intoArray(ws, w + NEW * hidden + j);
        }
        for (; j < hidden; j++) {
            ws[w + HIDDEN_NEW * hidden + j] = hg[hgn + j];
            ws[w + NEW * hidden + j] = xg[xn + j] + hg[hgn + j] * ws[w + RESET * hidden + j];
        }
        FusedLstm.tanh(ws, w + NEW * hidden, hidden);
        // h' = (h − n)·z + n
        j = 0;
        for (int bound = S.loopBound(hidden); j < bound; j += S.length()) {
            FloatVector h = FloatVector.fromArray(S, hPrev, hp + j), nv = FloatVector.fromArray(S, ws, w + NEW * hidden + j);
            FloatVector hv = h.sub(nv).mul(FloatVector.fromArray(S, ws, w + UPDATE * hidden + j)).add(nv);
            h.intoArray(ws, w + H_PREV * hidden + j);
            hv.intoArray(hNext, hn + j);
            hv.intoArray(out, o + j);
        }
        for (; j < hidden; j++) {
            float h = hPrev[hp + j], nv = ws[w + NEW * hidden + j];
            float hv = (h - nv) * ws[w + UPDATE * hidden + j] + nv;
            ws[w + H_PREV * hidden + j] = h;
            hNext[hn + j] = hv;
            out[o + j] = hv;
        }
    }

    /** rnn_layer_backward for a float32 GRU from its workspace: the gradients of input_gates, h0, (no c0), weight_hh and bias_hh. */
    static List<Tensor> backward(Tensor gradOut, Tensor gradH, Tensor weightHh, Tensor biasHh, Tensor workspace, boolean reverse) {
        int steps = gradOut.size(0), batch = gradOut.size(1), hidden = gradH.size(1), g3 = 3 * hidden, w5 = WORKSPACE_ROWS * hidden;
        if (!Shapes.same(workspace.shape(), new int[] {steps, batch, w5})) {
            throw new IllegalArgumentException("rnn_layer_backward: a GRU's workspace must be " + Shapes.format(new int[] {steps, batch, w5})
                    + " (rnn_layer's fourth result), got " + Shapes.format(workspace.shape()));
        }
        Tensor gradOutC = gradOut.contiguous(), work = workspace.contiguous();
        float[] go = gradOutC.storage().floats(), ws = work.storage().floats();
        int goOffset = gradOutC.storageOffset(), wsOffset = work.storageOffset();
        // the input projection's and the hidden projection's gate gradients differ in n's part (h_n·r)
        Tensor dInput = uninitialized(steps, batch, g3), dHidden = uninitialized(steps, batch, g3), hPrev = uninitialized(steps * batch, hidden);
        float[] dx = dInput.storage().floats(), dhg = dHidden.storage().floats(), hp = hPrev.storage().floats();
        float[] dh = gradH.contiguous().toFloatArray();   // the gradient into the hidden state, step by step
        for (int i = steps - 1; i >= 0; i--) {
            int t = reverse ? steps - 1 - i : i;
            for (int n = 0; n < batch; n++) {
                int row = t * batch + n;
                backwardRow(hidden, go, goOffset + row * hidden, dh, n * hidden, ws, wsOffset + row * w5, dx, dhg, row * g3, hp, row * hidden);
            }
            // dh now holds the gradient through h's direct path (·z); the recurrent path adds dHidden_t · weight_hh
            Tensor recurrent = LinalgOps.MM.callTensor(dHidden.select(0, t), weightHh).contiguous();
            float[] r = recurrent.storage().floats();
            int ro = recurrent.storageOffset();
            for (int k = 0; k < dh.length; k++) dh[k] += r[ro + k];
        }
        Tensor flat = dHidden.reshape(steps * batch, g3);
        List<Tensor> result = new ArrayList<>();
        result.add(dInput);
        result.add(Tensor.of(dh, batch, hidden));
        result.add(Tensor.zeros(DType.FLOAT32, 0));
        // weight_hh's gradient over every step at once: Σ_t dHidden_tᵀ · h_{t-1}
        result.add(LinalgOps.MM.callTensor(flat.t(), hPrev));
        result.add(biasHh == null ? Tensor.zeros(DType.FLOAT32, 0) : flat.sum(new int[] {0}, false));
        return result;
    }

    /**
     * One batch row of one step backward: from dh = the output's gradient plus the next step's, the
     * gates' gradients for both projections; dh is left holding the direct path's share (dh·z).
     */
    private static void backwardRow(int hidden, float[] go, int o, float[] dh, int k, float[] ws, int w,
                                    float[] dx, float[] dhg, int b, float[] hp, int h) {
        int j = 0;
        for (int bound = S.loopBound(hidden); j < bound; j += S.length()) {
            FloatVector one = FloatVector.broadcast(S, 1f);
            FloatVector d = FloatVector.fromArray(S, go, o + j).add(FloatVector.fromArray(S, dh, k + j));
            FloatVector r = FloatVector.fromArray(S, ws, w + RESET * hidden + j), z = FloatVector.fromArray(S, ws, w + UPDATE * hidden + j);
            FloatVector nv = FloatVector.fromArray(S, ws, w + NEW * hidden + j), hPrev = FloatVector.fromArray(S, ws, w + H_PREV * hidden + j);
            FloatVector dnPre = d.mul(one.sub(z)).mul(one.sub(nv.mul(nv)));
            FloatVector drPre = dnPre.mul(FloatVector.fromArray(S, ws, w + HIDDEN_NEW * hidden + j)).mul(r).mul(one.sub(r));
            FloatVector dzPre = d.mul(hPrev.sub(nv)).mul(z).mul(one.sub(z));
            drPre.intoArray(dx, b + j);
            dzPre.intoArray(dx, b + hidden + j);
            dnPre.intoArray(dx, b + 2 * hidden + j);
            drPre.intoArray(dhg, b + j);
            dzPre.intoArray(dhg, b + hidden + j);
            dnPre.mul(r).intoArray(dhg, b + 2 * hidden + j);
            d.mul(z).intoArray(dh, k + j);
            hPrev.intoArray(hp, h + j);
        }
        for (; j < hidden; j++) {
            float d = go[o + j] + dh[k + j];
            float r = ws[w + RESET * hidden + j], z = ws[w + UPDATE * hidden + j], nv = ws[w + NEW * hidden + j], hPrev = ws[w + H_PREV * hidden + j];
            float dnPre = d * (1 - z) * (1 - nv * nv);
            float drPre = dnPre * ws[w + HIDDEN_NEW * hidden + j] * r * (1 - r);
            float dzPre = d * (hPrev - nv) * z * (1 - z);
            dx[b + j] = drPre;
            dx[b + hidden + j] = dzPre;
            dx[b + 2 * hidden + j] = dnPre;
            dhg[b + j] = drPre;
            dhg[b + hidden + j] = dzPre;
            dhg[b + 2 * hidden + j] = dnPre * r;
            dh[k + j] = d * z;
            hp[h + j] = hPrev;
        }
    }
}
