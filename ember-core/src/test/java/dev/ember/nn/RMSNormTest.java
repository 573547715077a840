package dev.ember.nn;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.autograd.GradCheck;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RMSNorm and F.rmsNorm against a float64 loop of the formula, gradcheck, compiled equal to eager, ATen's errors. */
class RMSNormTest {
    @AfterEach
    void reset() { Ember.reset(); }

    /** x·rsqrt(mean(x²) + eps)·w over the last {@code n} elements of each row, in float64. */
    private static double[] reference(double[] x, int n, double[] w, double eps) {
        double[] out = new double[x.length];
        for (int r = 0; r < x.length / n; r++) {
            double sum = 0;
            for (int i = 0; i < n; i++) sum += x[r * n + i] * x[r * n + i];
            double scale = 1 / Math.sqrt(sum / n + eps);
            for (int i = 0; i < n; i++) out[r * n + i] = x[r * n + i] * scale * (w == null ? 1 : w[i]);
        }
        return out;
    }

    @Test
    void valuesMatchTheFormula() {
        Tensor.manualSeed(11);
        Tensor x = Tensor.randn(2, 3, 4);
        Tensor w = Tensor.randn(3, 4);
        assertArrayEquals(reference(x.toDoubleArray(), 4, null, 1e-6), F.rmsNorm(x, new int[] {4}, null, 1e-6).toDoubleArray(), 1e-5);
        assertArrayEquals(reference(x.toDoubleArray(), 12, w.toDoubleArray(), 1e-6), F.rmsNorm(x, new int[] {3, 4}, w, 1e-6).toDoubleArray(), 1e-5);
        // eps not given: the dtype's machine epsilon, float32's and float64's
        assertArrayEquals(reference(x.toDoubleArray(), 4, null, Math.ulp(1.0f)), F.rmsNorm(x, new int[] {4}).toDoubleArray(), 1e-5);
        Tensor tiny = Tensor.full(new int[] {1, 3}, 1e-5).to(DType.FLOAT64);
        assertArrayEquals(reference(tiny.toDoubleArray(), 3, null, Math.ulp(1.0)), F.rmsNorm(tiny, new int[] {3}).toDoubleArray(), 1e-12);
        RMSNorm m = new RMSNorm(4);
        assertArrayEquals(F.rmsNorm(x, new int[] {4}).toDoubleArray(), m.forward(x).toDoubleArray(), 0.0);
        assertEquals(List.of("weight"), m.namedParameters().keySet().stream().toList());
        assertEquals("RMSNorm((4,), eps=None, elementwise_affine=True)", m.toString());
    }

    @Test
    void gradientsMatchFiniteDifferences() {
        Tensor x = Tensor.randn(3, 5).to(DType.FLOAT64).requiresGrad(true), w = Tensor.randn(5).to(DType.FLOAT64).requiresGrad(true);
        GradCheck.check(in -> F.rmsNorm(in.get(0), new int[] {5}, in.get(1), 1e-3).sum(), x, w);
    }

    @Test
    void compiledIsOneGraphEqualToEager() {
        Tensor.manualSeed(12);
        RMSNorm norm = new RMSNorm(new int[] {8}, 1e-5, true);
        Linear proj = new Linear(8, 8);
        Fn1<Tensor, Tensor> block = h -> h.add(proj.forward(norm.forward(h)).relu());
        Tensor x = Tensor.randn(4, 8);
        assertArrayEquals(block.apply(x).toDoubleArray(), Ember.compile(block).apply(x).toDoubleArray(), 1e-5);
        ExplainOutput e = Ember.explain(block).with(x);
        assertEquals(0, e.graphBreakCount(), e.toString());
    }

    @Test
    void badShapesGetAtensErrors() {
        Tensor x = Tensor.randn(2, 3);
        String m = assertThrows(IllegalArgumentException.class, () -> F.rmsNorm(x, new int[] {4})).getMessage();
        assertTrue(m.contains("Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]"), m);
        m = assertThrows(IllegalArgumentException.class, () -> F.rmsNorm(x, new int[] {3}, Tensor.ones(2), null)).getMessage();
        assertTrue(m.contains("Expected weight to be of same shape as normalized_shape"), m);
    }
}
