package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fused float32 GRU layer computes what the op-by-op cell computes, bit for bit, and its
 * backward from the workspace agrees with the float64 one, which runs the steps op by op under
 * autograd (the reference). Values against libtorch are in RecurrentLayersTest.
 */
class FusedGruTest {

    @ParameterizedTest(name = "hidden {0}, reverse {1}, bias {2}")
    @CsvSource({"32, false, true", "32, true, false", "20, false, true", "5, true, true"})
    void theFusedStepsEqualTheOpByOpCellBitForBit(int hidden, boolean reverse, boolean bias) {
        Tensor.manualSeed(hidden + (reverse ? 1 : 0));
        int steps = 6, batch = 3;
        Tensor inputGates = Tensor.randn(steps, batch, 3 * hidden).mul(2.0), h0 = Tensor.randn(batch, hidden);
        Tensor weightHh = Tensor.randn(3 * hidden, hidden).mul(0.4), biasHh = bias ? Tensor.randn(3 * hidden) : null;

        List<Tensor> fused = RecurrentOps.RNN_LAYER.callList(inputGates, h0, null, weightHh, biasHh, "GRU", reverse);

        Tensor h = h0;
        Tensor[] outputs = new Tensor[steps];
        for (int i = 0; i < steps; i++) {
            int t = reverse ? steps - 1 - i : i;
            h = RecurrentOps.gruCell(inputGates.select(0, t), LinalgOps.LINEAR.callTensor(h, weightHh, biasHh), h);
            outputs[t] = h;
        }
        assertArrayEquals(Tensor.stack(List.of(outputs), 0).toFloatArray(), fused.get(0).toFloatArray(), "every step's hidden state");
        assertArrayEquals(h.toFloatArray(), fused.get(1).toFloatArray(), "h_n");
        assertArrayEquals(new int[] {steps, batch, FusedGru.WORKSPACE_ROWS * hidden}, fused.get(3).shape(), "the workspace");
    }

    @ParameterizedTest(name = "hidden {0}, reverse {1}")
    @CsvSource({"32, false", "20, true"})
    void theFloat32BackwardAgreesWithTheFloat64Autograd(int hidden, boolean reverse) {
        Tensor.manualSeed(11 * hidden + (reverse ? 1 : 0));
        int steps = 6, batch = 3;
        Tensor inputGates = Tensor.randn(steps, batch, 3 * hidden), h0 = Tensor.randn(batch, hidden);
        Tensor weightHh = Tensor.randn(3 * hidden, hidden).mul(0.4), biasHh = Tensor.randn(3 * hidden);
        Tensor gradOut = Tensor.randn(steps, batch, hidden), gradH = Tensor.randn(batch, hidden);
        List<Tensor> f32 = backward(reverse, inputGates, h0, weightHh, biasHh, gradOut, gradH);
        List<Tensor> f64 = backward(reverse, d(inputGates), d(h0), d(weightHh), d(biasHh), d(gradOut), d(gradH));
        assertEquals(0, RecurrentOps.RNN_LAYER.callList(d(inputGates), d(h0), null, d(weightHh), d(biasHh), "GRU", reverse).get(3).numel(),
                "float64 runs the op-by-op steps (no workspace): the reference");
        String[] names = {"input_gates", "h0", "c0", "weight_hh", "bias_hh"};
        for (int i : new int[] {0, 1, 3, 4}) {
            double[] got = f32.get(i).toDoubleArray(), want = f64.get(i).toDoubleArray();
            assertEquals(want.length, got.length, names[i]);
            double scale = 0;
            for (double w : want) scale = Math.max(scale, Math.abs(w));
            for (int k = 0; k < got.length; k++) {
                assertEquals(want[k], got[k], 1e-4 * scale + 1e-6, names[i] + "'s gradient at " + k + " (float32 fused against float64 autograd)");
            }
        }
    }

    @Test
    void aWorkspaceOfTheWrongShapeIsRefusedByName() {
        Tensor inputGates = Tensor.randn(3, 2, 12), h0 = Tensor.randn(2, 4), w = Tensor.randn(12, 4);
        var e = assertThrows(IllegalArgumentException.class, () -> RecurrentOps.RNN_LAYER_BACKWARD.callList(Tensor.zeros(3, 2, 4), Tensor.zeros(2, 4),
                Tensor.zeros(0), inputGates, h0, null, w, null, "GRU", false, Tensor.zeros(3, 2, 24)));
        assertTrue(e.getMessage().contains("a GRU's workspace must be [3, 2, 20]"), e.getMessage());
    }

    private static Tensor d(Tensor t) { return t.to(DType.FLOAT64); }

    private static List<Tensor> backward(boolean reverse, Tensor inputGates, Tensor h0, Tensor weightHh, Tensor biasHh, Tensor gradOut, Tensor gradH) {
        Tensor workspace = RecurrentOps.RNN_LAYER.callList(inputGates, h0, null, weightHh, biasHh, "GRU", reverse).get(3);
        return RecurrentOps.RNN_LAYER_BACKWARD.callList(gradOut, gradH, Tensor.zeros(gradOut.dtype(), 0), inputGates, h0, null, weightHh, biasHh,
                "GRU", reverse, workspace);
    }
}
