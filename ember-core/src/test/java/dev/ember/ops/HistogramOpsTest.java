package dev.ember.ops;

import ai.djl.ndarray.NDList;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** torch.histogram (a bin count or the edges; range, weight, density) against libtorch, its refusals in ATen's words, compiled as eager. */
class HistogramOpsTest {
    private static final Random RNG = new Random(23);

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    private static void assertBoth(List<Tensor> got, NDList want, String what) {
        assertClose(got.get(0), want.get(0), what + ": hist");
        assertClose(got.get(1), want.get(1), what + ": bin_edges");
    }

    @Test
    void binCountsMatchLibtorchWithRangeWeightAndDensity() {
        for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            Tensor x = Inputs.randn(RNG, dtype, 7, 9), w = Inputs.rand(RNG, dtype, 7, 9);
            assertBoth(x.histogram(10), Torch.callList("torch.histogram(a, 10)", x), dtype + " data range");
            assertBoth(x.histogram(5, new double[] {-1, 1.5}, null, false), Torch.callList("torch.histogram(a, 5, range=[-1.0, 1.5])", x), dtype + " range");
            assertBoth(x.histogram(6, null, w, false), Torch.callList("torch.histogram(a, 6, weight=b)", x, w), dtype + " weight");
            assertBoth(x.histogram(4, new double[] {-2, 2}, w, true), Torch.callList("torch.histogram(a, 4, range=[-2.0, 2.0], weight=b, density=True)", x, w),
                    dtype + " weighted density");
            assertBoth(x.histogram(7, null, null, true), Torch.callList("torch.histogram(a, 7, density=True)", x), dtype + " density");
        }
    }

    @Test
    void edgeValuesAndEmptyInputsAreBinnedAsLibtorchBinsThem() {
        // the last edge falls in the last bin, values outside and NaN are left out, a constant input's range is widened
        Tensor x = Tensor.of(new double[] {0, 1, 2, 3, 4, Double.NaN, -1, 5, 4, 2.5});
        assertBoth(x.histogram(4, new double[] {0, 4}, null, false), Torch.callList("torch.histogram(a, 4, range=[0.0, 4.0])", x), "edges");
        Tensor same = Tensor.of(new double[] {3, 3, 3});
        assertBoth(same.histogram(3), Torch.callList("torch.histogram(a, 3)", same), "one value");
        Tensor empty = Tensor.zeros(0).to(DType.FLOAT64);
        assertBoth(empty.histogram(2), Torch.callList("torch.histogram(a, 2)", empty), "no data");
    }

    @Test
    void givenEdgesMatchLibtorch() {
        Tensor x = Inputs.randn(RNG, DType.FLOAT32, 50), w = Inputs.rand(RNG, DType.FLOAT32, 50);
        Tensor edges = Tensor.of(new double[] {-3, -0.5, 0, 0.25, 2}).to(DType.FLOAT32);
        assertBoth(x.histogram(edges, null, false), Torch.callList("torch.histogram(a, b)", x, edges), "edges");
        assertBoth(x.histogram(edges, w, true), Torch.callList("torch.histogram(a, b, weight=c, density=True)", x, edges, w), "edges, weight, density");
        Tensor one = Tensor.of(new double[] {0.5}).to(DType.FLOAT32);
        refused(() -> x.histogram(one, null, false), "torch.histogram(a, b)", x, one);
    }

    @Test
    void badCallsAreRefusedInAtensWords() {
        Tensor x = Tensor.randn(10);
        refused(() -> x.histogram(0), "torch.histogram(a, 0)", x);
        refused(() -> x.histogram(3, new double[] {2, 1}, null, false), "torch.histogram(a, 3, range=[2.0, 1.0])", x);
        Tensor inf = Tensor.of(new double[] {1, Double.POSITIVE_INFINITY}).to(DType.FLOAT32);
        refused(() -> inf.histogram(3), "torch.histogram(a, 3)", inf);
        Tensor edges64 = Tensor.of(new double[] {0, 1});
        refused(() -> x.histogram(edges64, null, false), "torch.histogram(a, b)", x, edges64);
        Tensor matrix = Tensor.zeros(2, 2);
        refused(() -> x.histogram(matrix, null, false), "torch.histogram(a, b)", x, matrix);
        Tensor ints = Tensor.arange(5L);
        refused(() -> ints.histogram(3), "torch.histogram(a, 3)", ints);
    }

    static Tensor histogramOfASum(Tensor x, Tensor y) {
        List<Tensor> h = x.add(y).histogram(6, new double[] {-3, 3}, y.abs(), false);
        return h.get(0).mul(h.get(1).narrow(0, 0, 6));
    }

    @Test
    void compiledHistogramIsEagers() {
        Tensor x = Inputs.randn(RNG, DType.FLOAT32, 40), y = Inputs.randn(RNG, DType.FLOAT32, 40);
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(HistogramOpsTest::histogramOfASum, Options.backend("inductor").fullgraph(true));
        assertClose(f.apply(x, y), histogramOfASum(x, y), "inductor");
    }

    private static void refused(Runnable ember, String torch, Object... args) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, ember::run, torch);
        RuntimeException t = assertThrows(RuntimeException.class, () -> Torch.call(torch, args), torch);
        String aten = Torch.refusalText(t);
        assertTrue(aten.contains(e.getMessage()), "ember: " + e.getMessage() + "\nlibtorch: " + aten);
    }
}
