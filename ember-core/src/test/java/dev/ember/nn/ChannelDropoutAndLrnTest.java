package dev.ember.nn;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Dropout1d/2d/3d (ATen's feature_dropout: whole channels zeroed, the rest scaled by 1/(1−p), one
 * draw per batch and channel; the identity in evaluation; the gradient is the same mask) and
 * LocalResponseNorm against its definition written out in float64 loops.
 */
class ChannelDropoutAndLrnTest {

    /** Checks every [n, c] slice of {@code out} is all zero or all {@code x / (1 - p)}; returns how many were zeroed. */
    private static int checkChannels(Tensor x, Tensor out, double p) {
        int n = x.size(0), c = x.size(1), per = x.numel() / (n * c), zeroed = 0;
        double[] xs = x.to(DType.FLOAT64).toDoubleArray(), os = out.to(DType.FLOAT64).toDoubleArray();
        for (int s = 0; s < n * c; s++) {
            boolean dropped = os[s * per] == 0 && xs[s * per] != 0;
            if (dropped) zeroed++;
            for (int i = s * per; i < (s + 1) * per; i++) assertEquals(dropped ? 0.0 : xs[i] / (1 - p), os[i], 1e-6 * (1 + Math.abs(xs[i])), "slice " + s);
        }
        return zeroed;
    }

    @Test
    void wholeChannelsDropAtRateP() {
        Tensor.manualSeed(1);
        Tensor x = Tensor.randn(40, 50, 3, 4);
        Dropout2d d = new Dropout2d(0.3);
        int zeroed = checkChannels(x, d.forward(x), 0.3);
        assertEquals(0.3 * 2000, zeroed, 4 * Math.sqrt(2000 * 0.3 * 0.7), "dropped channels");   // within 4 standard deviations
        d.eval();
        assertEquals(0.0, d.forward(x).sub(x).abs().max().item());
        Tensor seq = Tensor.randn(30, 20, 7);
        checkChannels(seq, new Dropout1d(0.5).forward(seq), 0.5);
        Tensor unbatched = Tensor.randn(20, 7);
        checkChannels(unbatched.unsqueeze(0), F.dropout1d(unbatched, 0.5, true).unsqueeze(0), 0.5);
        Tensor vol = Tensor.randn(4, 10, 2, 3, 2);
        checkChannels(vol, new Dropout3d(0.2).forward(vol), 0.2);
        checkChannels(vol.select(0, 0).unsqueeze(0), F.dropout3d(vol.select(0, 0), 0.2, true).unsqueeze(0), 0.2);
        assertEquals(0.0, F.dropout2d(x, 1.0, true).abs().max().item());
        assertEquals("Dropout2d(p=0.3, inplace=False)", d.toString());
    }

    @Test
    void gradientIsTheSameChannelMask() {
        Tensor.manualSeed(2);
        Tensor x = Tensor.randn(6, 8, 5).to(DType.FLOAT64).requiresGrad(true);
        Tensor out = F.dropout1d(x, 0.4, true);
        out.sum().backward();
        // d out / d x is the mask: 0 or 1/(1-p), the same as out / x
        double[] g = x.grad().toDoubleArray(), ratio = out.detach().div(x.detach()).toDoubleArray();
        for (int i = 0; i < g.length; i++) assertEquals(ratio[i], g[i], 1e-12);
    }

    @Test
    void compilesToOneGraphWithChannelStructure() {
        Dropout2d d = new Dropout2d(0.5);
        Fn1<Tensor, Tensor> fn = d::forward;
        Tensor x = Tensor.randn(8, 16, 2, 2).abs().add(0.1);
        assertEquals(0, Ember.explain(fn).with(x).graphBreakCount());
        checkChannels(x, Ember.compile(fn).apply(x), 0.5);
    }

    @Test
    void errors() {
        assertEquals("dropout probability has to be between 0 and 1, but got 1.5", assertThrows(IllegalArgumentException.class, () -> new Dropout2d(1.5)).getMessage());
        var e = assertThrows(IllegalArgumentException.class, () -> F.dropout1d(Tensor.randn(2, 3, 4, 5), 0.5, true));
        assertTrue(e.getMessage().startsWith("dropout1d: Expected 2D or 3D input, but received a 4D input."), e.getMessage());
        assertEquals("Feature dropout requires at least 2 dimensions in the input",
                assertThrows(IllegalArgumentException.class, () -> F.dropout2d(Tensor.randn(5), 0.5, true)).getMessage());
        assertEquals("local_response_norm: Expected 3D or higher dimensionality input (got 2 dimensions)",
                assertThrows(IllegalArgumentException.class, () -> new LocalResponseNorm(2).forward(Tensor.randn(2, 3))).getMessage());
    }

    /** PyTorch's definition: b_c = a_c / (k + alpha/size · Σ_{c' = c - size/2}^{c + (size-1)/2} a_{c'}²)^beta, out-of-range channels counted as 0. */
    private static double[] lrnReference(double[] a, int n, int c, int rest, int size, double alpha, double beta, double k) {
        double[] out = new double[a.length];
        for (int b = 0; b < n; b++) {
            for (int ch = 0; ch < c; ch++) {
                for (int r = 0; r < rest; r++) {
                    double sum = 0;
                    for (int o = ch - size / 2; o <= ch + (size - 1) / 2; o++) {
                        if (o >= 0 && o < c) {
                            double v = a[(b * c + o) * rest + r];
                            sum += v * v;
                        }
                    }
                    int i = (b * c + ch) * rest + r;
                    out[i] = a[i] / Math.pow(k + alpha / size * sum, beta);
                }
            }
        }
        return out;
    }

    @Test
    void localResponseNormMatchesItsDefinition() {
        Tensor.manualSeed(3);
        for (int[] shape : new int[][] {{2, 7, 5}, {3, 6, 4, 3}, {1, 5, 2, 2, 3}}) {
            for (int size : new int[] {1, 2, 3, 5, 8}) {
                Tensor x = Tensor.randn(shape).mul(3.0).to(DType.FLOAT64);
                int rest = x.numel() / (shape[0] * shape[1]);
                double[] want = lrnReference(x.toDoubleArray(), shape[0], shape[1], rest, size, 0.1, 0.75, 2.0);
                double[] got = new LocalResponseNorm(size, 0.1, 0.75, 2.0).forward(x).toDoubleArray();
                for (int i = 0; i < want.length; i++) assertEquals(want[i], got[i], 1e-12 * (1 + Math.abs(want[i])), "size " + size + " element " + i);
            }
        }
        assertEquals("LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)", new LocalResponseNorm(2).toString());
    }
}
