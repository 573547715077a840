package dev.ember.ops;

import dev.ember.tensor.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fused float32 LSTM layer computes what the op-by-op cell computes, bit for bit (the same
 * float operations on vector lanes, the tail by their scalar twins), and keeps in its workspace
 * exactly the gates and states the cell produced. Values against libtorch and gradients are in
 * RecurrentLayersTest and OpGradcheckTest.
 */
class FusedLstmTest {

    @ParameterizedTest(name = "hidden {0}, reverse {1}")
    @CsvSource({"32, false", "32, true", "20, false", "5, true"})
    void theFusedStepsEqualTheOpByOpCellBitForBit(int hidden, boolean reverse) {
        Tensor.manualSeed(hidden + (reverse ? 1 : 0));
        int steps = 6, batch = 3;
        Tensor inputGates = Tensor.randn(steps, batch, 4 * hidden).mul(2.0);
        Tensor h0 = Tensor.randn(batch, hidden), c0 = Tensor.randn(batch, hidden).mul(3.0);
        Tensor weightHh = Tensor.randn(4 * hidden, hidden).mul(0.4), biasHh = Tensor.randn(4 * hidden);

        List<Tensor> fused = RecurrentOps.RNN_LAYER.callList(inputGates, h0, c0, weightHh, biasHh, "LSTM", reverse);

        Tensor h = h0, c = c0;
        Tensor[] outputs = new Tensor[steps];
        Tensor[] gates = new Tensor[steps];
        for (int i = 0; i < steps; i++) {
            int t = reverse ? steps - 1 - i : i;
            Tensor hiddenGates = LinalgOps.LINEAR.callTensor(h, weightHh, biasHh);
            List<Tensor> pre = hiddenGates.add(inputGates.select(0, t)).chunk(4, -1);
            gates[t] = Tensor.cat(List.of(pre.get(0).sigmoid(), pre.get(1).sigmoid(), pre.get(2).tanh(), pre.get(3).sigmoid()), 1);
            Tensor[] hc = RecurrentOps.lstmCell(inputGates.select(0, t), hiddenGates, c);
            gates[t] = Tensor.cat(List.of(gates[t], hc[1], h), 1);   // the workspace's rows: i, f, g, o, c, the hidden state the step started from
            h = hc[0];
            c = hc[1];
            outputs[t] = h;
        }
        assertArrayEquals(Tensor.stack(List.of(outputs), 0).toFloatArray(), fused.get(0).toFloatArray(), "every step's hidden state");
        assertArrayEquals(h.toFloatArray(), fused.get(1).toFloatArray(), "h_n");
        assertArrayEquals(c.toFloatArray(), fused.get(2).toFloatArray(), "c_n");
        assertArrayEquals(Tensor.stack(List.of(gates), 0).toFloatArray(), fused.get(3).toFloatArray(), "the workspace");
    }

    @ParameterizedTest(name = "hidden {0}, reverse {1}")
    @CsvSource({"32, false", "20, true"})
    void theFloat32BackwardAgreesWithTheFloat64One(int hidden, boolean reverse) {
        Tensor.manualSeed(7 * hidden + (reverse ? 1 : 0));
        int steps = 6, batch = 3;
        Tensor inputGates = Tensor.randn(steps, batch, 4 * hidden), h0 = Tensor.randn(batch, hidden), c0 = Tensor.randn(batch, hidden);
        Tensor weightHh = Tensor.randn(4 * hidden, hidden).mul(0.4), biasHh = Tensor.randn(4 * hidden);
        Tensor gradOut = Tensor.randn(steps, batch, hidden), gradH = Tensor.randn(batch, hidden), gradC = Tensor.randn(batch, hidden);
        List<Tensor> f32 = backward(reverse, inputGates, h0, c0, weightHh, biasHh, gradOut, gradH, gradC);
        List<Tensor> f64 = backward(reverse, d(inputGates), d(h0), d(c0), d(weightHh), d(biasHh), d(gradOut), d(gradH), d(gradC));
        String[] names = {"input_gates", "h0", "c0", "weight_hh", "bias_hh"};
        for (int i = 0; i < 5; i++) {
            double[] got = f32.get(i).toDoubleArray(), want = f64.get(i).toDoubleArray();
            assertEquals(want.length, got.length, names[i]);
            double scale = 0;
            for (double w : want) scale = Math.max(scale, Math.abs(w));
            for (int k = 0; k < got.length; k++) {
                assertEquals(want[k], got[k], 1e-4 * scale + 1e-6, names[i] + "'s gradient at " + k + " (float32 against float64)");
            }
        }
    }

    private static Tensor d(Tensor t) { return t.to(dev.ember.tensor.DType.FLOAT64); }

    private static List<Tensor> backward(boolean reverse, Tensor inputGates, Tensor h0, Tensor c0, Tensor weightHh, Tensor biasHh,
                                         Tensor gradOut, Tensor gradH, Tensor gradC) {
        Tensor workspace = RecurrentOps.RNN_LAYER.callList(inputGates, h0, c0, weightHh, biasHh, "LSTM", reverse).get(3);
        return RecurrentOps.RNN_LAYER_BACKWARD.callList(gradOut, gradH, gradC, inputGates, h0, c0, weightHh, biasHh, "LSTM", reverse, workspace);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"FLOAT32", "FLOAT64"})
    void aWorkspaceOfTheWrongShapeIsRefusedByName(String dtype) {
        var type = dev.ember.tensor.DType.valueOf(dtype);
        Tensor inputGates = Tensor.randn(3, 2, 16).to(type), h0 = Tensor.randn(2, 4).to(type), c0 = Tensor.randn(2, 4).to(type);
        Tensor w = Tensor.randn(16, 4).to(type), grad = Tensor.zeros(type, 3, 2, 4), gradH = Tensor.zeros(type, 2, 4);
        var e = assertThrows(IllegalArgumentException.class, () -> RecurrentOps.RNN_LAYER_BACKWARD.callList(grad, gradH, gradH, inputGates, h0, c0, w, null,
                "LSTM", false, Tensor.zeros(type, 3, 2, 16)));
        assertTrue(e.getMessage().contains("workspace must be [3, 2, 24]"), e.getMessage());
        assertEquals(5, RecurrentOps.RNN_LAYER_BACKWARD.callList(grad, gradH, gradH, inputGates, h0, c0, w, null, "LSTM", false,
                RecurrentOps.RNN_LAYER.callList(inputGates, h0, c0, w, null, "LSTM", false).get(3)).size());
    }
}
