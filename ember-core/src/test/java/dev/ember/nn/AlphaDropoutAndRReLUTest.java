package dev.ember.nn;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;


import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The random layers AlphaDropout, FeatureAlphaDropout and RReLU. Their draws come from Ember's
 * generator, which libtorch's cannot reproduce, so training mode is checked by its properties
 * (every output one of the two values ATen's formula allows, the drop rate, SELU's zero mean and
 * unit variance kept, libtorch's own statistics on the same input); evaluation mode and the
 * refusals against libtorch directly.
 */
class AlphaDropoutAndRReLUTest {
    private static final double ALPHA = 1.7580993408473766;

    /** ATen's affine map for alpha dropout: kept elements become {@code a·x + alpha·a·p}, dropped ones {@code -alpha·a·(1-p)}. */
    private static double scale(double p) { return 1 / Math.sqrt((ALPHA * ALPHA * p + 1) * (1 - p)); }

    /** Checks every element of out is a·x + alpha·a·p or -alpha·a·(1-p); returns the dropped fraction. */
    private static double checkAlphaDropout(Tensor x, Tensor out, double p) {
        double a = scale(p), droppedValue = -ALPHA * a * (1 - p);
        double[] xs = x.to(DType.FLOAT64).toDoubleArray(), os = out.to(DType.FLOAT64).toDoubleArray();
        int dropped = 0;
        for (int i = 0; i < xs.length; i++) {
            double kept = a * xs[i] + ALPHA * a * p;
            if (Math.abs(os[i] - droppedValue) < 1e-6 && Math.abs(os[i] - kept) > 1e-6) dropped++;
            else assertEquals(kept, os[i], 1e-6 * (1 + Math.abs(kept)), "element " + i);
        }
        return dropped / (double) xs.length;
    }

    @Test
    void alphaDropoutKeepsZeroMeanAndUnitVarianceAsLibtorchDoes() {
        Tensor.manualSeed(3);
        Tensor x = Tensor.randn(200, 500);
        AlphaDropout d = new AlphaDropout(0.2);
        Tensor out = d.forward(x);
        assertEquals(0.2, checkAlphaDropout(x, out, 0.2), 0.01, "dropped fraction");
        Tensor torchOut = Torch.fromNd(Torch.call("torch.alpha_dropout(a, 0.2, True)", x));
        assertEquals(torchOut.mean().item(), out.mean().item(), 0.02, "mean beside libtorch's");
        assertEquals(torchOut.std().item(), out.std().item(), 0.02, "std beside libtorch's");
        assertEquals(0.0, out.mean().item(), 0.02);
        assertEquals(1.0, out.std().item(), 0.02);
        d.eval();
        assertEquals(x, d.forward(x), "evaluation: the input itself");
        assertEquals(x, F.alphaDropout(x, 0.0, true), "p = 0: the input itself");
        assertClose(F.alphaDropout(x, 1.0, true), Torch.call("torch.alpha_dropout(a, 1.0, True)", x), "p = 1");
        assertEquals("AlphaDropout(p=0.2, inplace=False)", d.toString());
    }

    @Test
    void alphaDropoutGradientIsTheKeptScale() {
        Tensor.manualSeed(4);
        Tensor x = Tensor.randn(50, 40).to(DType.FLOAT64).requiresGrad(true);
        Tensor out = F.alphaDropout(x, 0.3, true);
        out.sum().backward();
        double a = scale(0.3);
        double[] g = x.grad().toDoubleArray(), o = out.detach().toDoubleArray(), xs = x.detach().toDoubleArray();
        for (int i = 0; i < g.length; i++) {
            boolean kept = Math.abs(o[i] - (a * xs[i] + ALPHA * a * 0.3)) < 1e-12;
            assertEquals(kept ? a : 0.0, g[i], 1e-12, "element " + i);
        }
    }

    @Test
    void featureAlphaDropoutDropsWholeChannels() {
        Tensor.manualSeed(5);
        Tensor x = Tensor.randn(30, 40, 3, 2);
        Tensor out = new FeatureAlphaDropout(0.4).forward(x);
        double dropped = checkAlphaDropout(x, out, 0.4);
        assertEquals(0.4, dropped, 0.06, "dropped fraction");
        // a channel is dropped whole: all of its 6 elements are the dropped value, or none
        double droppedValue = -ALPHA * scale(0.4) * 0.6;
        double[] os = out.toDoubleArray();
        for (int s = 0; s < 30 * 40; s++) {
            int count = 0;
            for (int i = 0; i < 6; i++) if (Math.abs(os[s * 6 + i] - droppedValue) < 1e-6) count++;
            assertTrue(count == 0 || count == 6, "channel " + s + " half dropped");
        }
        Tensor torchOut = Torch.fromNd(Torch.call("torch.feature_alpha_dropout(a, 0.4, True)", x));
        assertEquals(torchOut.mean().item(), out.mean().item(), 0.05, "mean beside libtorch's");
    }

    @Test
    void rreluDrawsSlopesInItsBoundsAndEvaluatesWithTheMean() {
        Tensor.manualSeed(6);
        Tensor x = Tensor.randn(100, 100).to(DType.FLOAT64).requiresGrad(true);
        RReLU r = new RReLU(0.1, 0.3);
        Tensor out = r.forward(x);
        out.sum().backward();
        double[] xs = x.detach().toDoubleArray(), os = out.detach().toDoubleArray(), g = x.grad().toDoubleArray();
        double slopeSum = 0;
        int negatives = 0;
        for (int i = 0; i < xs.length; i++) {
            if (xs[i] > 0) {
                assertEquals(xs[i], os[i], 0.0);
                assertEquals(1.0, g[i], 0.0);
            } else {
                double slope = os[i] / xs[i];
                assertTrue(slope >= 0.1 && slope <= 0.3, "slope " + slope);
                assertEquals(slope, g[i], 1e-12, "the gradient is the element's slope");
                slopeSum += slope;
                negatives++;
            }
        }
        assertEquals(0.2, slopeSum / negatives, 0.005, "uniform slopes average to the middle");
        r.eval();
        assertClose(r.forward(x.detach()), Torch.call("torch.rrelu(a, 0.1, 0.3, False)", x.detach()), "evaluation");
        assertClose(F.rrelu(x.detach(), false), Torch.call("torch.rrelu(a)", x.detach()), "PyTorch's default bounds");
        assertEquals("RReLU(lower=0.1, upper=0.3)", r.toString());
        assertEquals("RReLU(lower=0.125, upper=0.3333333333333333)", new RReLU().toString());
    }

    @Test
    void trainingModeCompiles() {
        RReLU r = new RReLU();
        Fn1<Tensor, Tensor> rrelu = r::forward;
        Tensor x = Tensor.randn(20, 30);
        assertEquals(0, Ember.explain(rrelu).with(x).graphBreakCount());
        Tensor out = Ember.compile(rrelu).apply(x);
        double[] xs = x.toDoubleArray(), os = out.toDoubleArray();
        for (int i = 0; i < xs.length; i++) {
            if (xs[i] > 0) assertEquals(xs[i], os[i], 0.0);
            else assertTrue(os[i] / xs[i] >= 0.125 - 1e-6 && os[i] / xs[i] <= 1.0 / 3 + 1e-6, "compiled slope");
        }
        AlphaDropout d = new AlphaDropout(0.3);
        Fn1<Tensor, Tensor> dropout = d::forward;
        Tensor y = Tensor.randn(40, 50);
        assertEquals(0.3, checkAlphaDropout(y, Ember.compile(dropout).apply(y), 0.3), 0.05);
    }

    @Test
    void refusalsUseAtensWords() {
        Tensor x = Tensor.randn(4, 3);
        Tensor ints = Tensor.ofLongs(1, -2, 3);
        try (NDManager m = Torch.scope()) {
            AtenRefusal.refused(m, "rrelu bounds", () -> F.rrelu(x, 0.5, 0.1, true), "torch.rrelu(a, 0.5, 0.1, True)", x);
            AtenRefusal.refused(m, "rrelu of integers", () -> F.rrelu(ints, true), "torch.rrelu(a, 0.125, 0.3333, True)", ints);
            AtenRefusal.refused(m, "rrelu eval of integers", () -> F.rrelu(ints, false), "torch.rrelu(a, 0.125, 0.3333, False)", ints);
            AtenRefusal.refused(m, "feature alpha dropout of 1-d", () -> F.featureAlphaDropout(Tensor.randn(5), 0.5, true), "torch.feature_alpha_dropout(a, 0.5, True)",
                    Tensor.randn(5));
            AtenRefusal.refused(m, "alpha dropout of integers", () -> F.alphaDropout(ints, 0.5, true), "torch.alpha_dropout(a, 0.5, True)", ints);
            AtenRefusal.refused(m, "alpha dropout p", () -> F.alphaDropout(x, 1.5, true), "torch.alpha_dropout(a, 1.5, True)", x);
        }
    }
}
