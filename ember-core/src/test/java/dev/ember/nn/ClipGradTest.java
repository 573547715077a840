package dev.ember.nn;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** clip_grad_norm_, its halves get_total_norm and clip_grads_with_norm_, and clip_grad_value_ against a float64 computation of PyTorch's formulas and libtorch. */
class ClipGradTest {

    private static Parameter withGrad(Tensor grad) {
        Parameter p = new Parameter(Tensor.zeros(grad.dtype(), grad.shape()));
        p.setGrad(grad);
        return p;
    }

    @Test
    void clipGradNormScalesEveryGradientByOneFactor() {
        Tensor.manualSeed(1);
        for (double p : new double[] {2.0, 1.0, Double.POSITIVE_INFINITY}) {
            for (double maxNorm : new double[] {0.5, 1e6}) {
                List<Parameter> params = List.of(withGrad(Tensor.randn(3, 4).mul(2)), withGrad(Tensor.randn(5)), new Parameter(Tensor.ones(2)));
                double[][] before = {params.get(0).grad().toDoubleArray(), params.get(1).grad().toDoubleArray()};
                double total = 0;
                for (double[] g : before) {
                    double n = 0;
                    for (double v : g) n = Double.isInfinite(p) ? Math.max(n, Math.abs(v)) : n + Math.pow(Math.abs(v), p);
                    n = Double.isInfinite(p) ? n : Math.pow(n, 1 / p);
                    total = Double.isInfinite(p) ? Math.max(total, n) : total + Math.pow(n, p);
                }
                total = Double.isInfinite(p) ? total : Math.pow(total, 1 / p);
                Tensor got = ClipGrad.clipGradNorm_(params, maxNorm, p, false);
                assertEquals(total, got.item(), 1e-5 * total, "total " + p);
                double coefficient = Math.min(1, maxNorm / (total + 1e-6));
                for (int i = 0; i < 2; i++) {
                    double[] want = before[i].clone();
                    for (int j = 0; j < want.length; j++) want[j] *= coefficient;
                    assertArrayEquals(want, params.get(i).grad().toDoubleArray(), 1e-5, "gradient " + i + " p " + p + " max " + maxNorm);
                }
                assertNull(params.get(2).grad());
            }
        }
        assertEquals(0.0, ClipGrad.clipGradNorm_(List.of(new Parameter(Tensor.ones(2))), 1.0).item());
    }

    /** The two halves of clip_grad_norm_: the total norm as libtorch computes it, then the clipping by a given total. */
    @Test
    void totalNormAndClippingByAGivenNormMatchLibtorch() {
        Tensor.manualSeed(2);
        List<Tensor> grads = List.of(Tensor.randn(3, 4), Tensor.randn(5).mul(3));
        for (double p : new double[] {2.0, 3.0, Double.POSITIVE_INFINITY}) {
            String order = Double.isInfinite(p) ? "float('inf')" : Double.toString(p);
            assertClose(ClipGrad.getTotalNorm(grads, p, false),
                    Torch.call("torch.linalg_vector_norm(torch.stack([torch.linalg_vector_norm(g.double(), " + order + ") for g in a]), " + order + ").float()", grads),
                    "get_total_norm p=" + p);
        }
        assertEquals(0.0, ClipGrad.getTotalNorm(List.of(), 2.0, false).item());
        List<Parameter> params = List.of(withGrad(grads.get(0).clone()), withGrad(grads.get(1).clone()));
        ClipGrad.clipGradsWithNorm_(params, 1.0, Tensor.scalar(4.0));
        for (int i = 0; i < 2; i++) {
            assertClose(params.get(i).grad(), Torch.call("a * torch.clamp(1.0 / (torch.tensor(4.0) + 1e-6), max=1.0)", grads.get(i)), "clip_grads_with_norm_ " + i);
        }
        ClipGrad.clipGradsWithNorm_(params, 10.0, Tensor.scalar(4.0));
        assertClose(params.get(0).grad(), Torch.call("a * torch.clamp(1.0 / (torch.tensor(4.0) + 1e-6), max=1.0)", grads.get(0)), "a coefficient above 1 is 1");
        assertThrows(IllegalArgumentException.class, () -> ClipGrad.getTotalNorm(List.of(Tensor.of(new double[] {Double.NaN}, 1)), 2.0, true));
    }

    @Test
    void nonFiniteNormsAndValues() {
        Parameter p = withGrad(Tensor.of(new float[] {1, Float.POSITIVE_INFINITY}, 2));
        double[] before = p.grad().toDoubleArray();
        assertThrows(IllegalArgumentException.class, () -> ClipGrad.clipGradNorm_(List.of(p), 1.0, 2.0, true));
        assertArrayEquals(before, p.grad().toDoubleArray(), "nothing changed when refused");
        Parameter q = withGrad(Tensor.of(new float[] {-3, 0.5f, 2}, 3));
        ClipGrad.clipGradValue_(List.of(q), 1.0);
        assertArrayEquals(new double[] {-1, 0.5, 1}, q.grad().toDoubleArray());
        assertThrows(IllegalArgumentException.class, () -> ClipGrad.clipGradValue_(List.of(q), -1));
    }
}
