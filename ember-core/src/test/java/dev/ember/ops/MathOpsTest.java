package dev.ember.ops;

import ai.djl.ndarray.NDList;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.autograd.Autograd;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * logaddexp, logaddexp2, hypot, xlogy, isclose/allclose, diff, linalg_cross, tensordot, meshgrid,
 * nansum, nanmean, var_mean, std_mean and cdist against libtorch: float32 and float64, broadcasting,
 * strided inputs, special values (±inf, NaN, zeros), integer inputs where ATen takes them, ATen's
 * errors (libtorch's own message checked to hold the same words); and compiled equal to eager,
 * gradients included. Gradients against libtorch's autograd are in LibtorchGradientTest, gradchecks in
 * OpGradcheckTest.
 */
class MathOpsTest {
    private final Random rng = new Random(77);

    private static final float INF = Float.POSITIVE_INFINITY, NAN = Float.NaN;

    /** Values that hit the special cases: infinities of both signs, NaN, zeros, equal pairs and far-apart ones. */
    private static Tensor specials(float... v) { return Tensor.of(v, v.length); }

    @Test
    void logaddexpAndLogaddexp2() {
        for (DType d : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            Tensor a = Inputs.randn(rng, d, 4, 5).mul(10.0), b = Inputs.randn(rng, d, 5).mul(10.0);
            assertClose(a.logaddexp(b), Torch.call("torch.logaddexp(a, b)", a, b), "logaddexp " + d);
            assertClose(a.logaddexp2(b), Torch.call("torch.logaddexp2(a, b)", a, b), "logaddexp2 " + d);
            Tensor strided = Inputs.nonContiguous(a);
            assertClose(strided.logaddexp(b), Torch.call("torch.logaddexp(a, b)", strided, b), "logaddexp strided " + d);
        }
        Tensor x = specials(0, -1000, INF, -INF, INF, NAN, 1e30f, -3), y = specials(0, 0, INF, -INF, -INF, 1, 1e30f, -3);
        assertClose(x.logaddexp(y), Torch.call("torch.logaddexp(a, b)", x, y), "logaddexp special values");
        assertClose(x.logaddexp2(y), Torch.call("torch.logaddexp2(a, b)", x, y), "logaddexp2 special values");
        // int32 with float64: the promoted dtype
        Tensor i = Tensor.of(new int[] {1, 2, 3}, 3), f = Tensor.of(new double[] {0.5, 0.5, 4}, 3);
        assertClose(i.logaddexp(f), Torch.call("torch.logaddexp(a, b)", i, f), "int32 with float64");
        checkError(() -> i.logaddexp(i), "torch.logaddexp(a, a)", i, "\"logaddexp_cpu\" not implemented for 'Int'");
    }

    @Test
    void hypot() {
        for (DType d : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            Tensor a = Inputs.randn(rng, d, 3, 4), b = Inputs.randn(rng, d, 3, 1);
            assertClose(a.hypot(b), Torch.call("torch.hypot(a, b)", a, b), "hypot " + d);
        }
        // no overflow in between: 3e30² is past float32's range; infinity beats NaN, as C's hypot
        Tensor x = specials(3e30f, 3e-30f, 0, -0f, INF, NAN, -INF, 5), y = specials(4e30f, 4e-30f, 0, 0, NAN, INF, 2, -12);
        assertClose(x.hypot(y), Torch.call("torch.hypot(a, b)", x, y), "hypot extremes");
        Tensor xd = x.to(DType.FLOAT64).mul(1e270), yd = y.to(DType.FLOAT64).mul(1e270);
        assertClose(xd.hypot(yd), Torch.call("torch.hypot(a, b)", xd, yd), "hypot float64 extremes");
        Tensor longs = Tensor.ofLongs(3, 4);
        checkError(() -> longs.hypot(longs), "torch.hypot(a, a)", longs, "\"hypot_cpu\" not implemented for 'Long'");
    }

    @Test
    void xlogy() {
        Tensor a = Inputs.randn(rng, DType.FLOAT32, 3, 4), b = Inputs.rand(rng, DType.FLOAT32, 4).add(0.1);
        assertClose(a.xlogy(b), Torch.call("torch.xlogy(a, b)", a, b), "xlogy");
        Tensor x = specials(0, 0, 0, 2, 2, NAN, 0, -1), y = specials(0, INF, NAN, 0, INF, 1, -1, 3);
        assertClose(x.xlogy(y), Torch.call("torch.xlogy(a, b)", x, y), "xlogy zeros, infinities, NaN");
        assertClose(x.xlogy(2.5), Torch.call("torch.xlogy(a, 2.5)", x), "xlogy with a number");
        Tensor ints = Tensor.ofLongs(0, 1, 2, 3);
        assertClose(ints.xlogy(ints), Torch.call("torch.xlogy(a, a)", ints), "int64 → float32");
        Tensor d = Inputs.rand(rng, DType.FLOAT64, 4);
        assertClose(d.xlogy(0.1), Torch.call("torch.xlogy(a, 0.1)", d), "float64 with a number: 0.1 not rounded to float32");
    }

    @Test
    void iscloseAndAllclose() {
        Tensor a = specials(1, 1, 1e-9f, INF, INF, NAN, 100, 0), b = specials(1, 1.00001f, 0, INF, -INF, NAN, 100.002f, 1e-8f);
        assertClose(a.isclose(b), Torch.call("torch.isclose(a, b)", a, b), "defaults");
        assertClose(a.isclose(b, 1e-3, 0, true), Torch.call("torch.isclose(a, b, 1e-3, 0.0, True)", a, b), "rtol only, equal_nan");
        assertClose(a.isclose(b, 0, 0, false), Torch.call("torch.isclose(a, b, 0.0, 0.0, False)", a, b), "exact");
        Tensor i = Tensor.ofLongs(10, 11, 100), j = Tensor.ofLongs(10, 12, 101);
        assertClose(i.isclose(j, 0.01, 0, false), Torch.call("torch.isclose(a, b, 0.01, 0.0, False)", i, j), "int64");
        Tensor p = Tensor.of(new boolean[] {true, false}, 2), q = Tensor.of(new boolean[] {true, true}, 2);
        assertClose(p.isclose(q), Torch.call("torch.isclose(a, b)", p, q), "bool");
        assertTrue(Tensor.of(1f, 2f).allclose(Tensor.of(1f, 2.000001f)));
        assertFalse(Tensor.of(1f, 2f).allclose(Tensor.of(1f, 2.1f)));
        Tensor f = Tensor.of(1f, 2f), g = Tensor.of(1.0, 2.0);
        checkError(() -> f.isclose(g), "torch.isclose(a, b)", f, g, "Float did not match Double");
        checkError(() -> f.isclose(f, -1, 0, false), "torch.isclose(a, a, -1.0, 0.0)", f, "rtol must be greater than or equal to zero, but got -1");
    }

    @Test
    void diff() {
        Tensor a = Inputs.randn(rng, DType.FLOAT32, 3, 6);
        assertClose(a.diff(), Torch.call("torch.diff(a)", a), "diff");
        assertClose(a.diff(2, 0), Torch.call("torch.diff(a, 2, 0)", a), "second difference along 0");
        assertClose(a.diff(4, 0), Torch.call("torch.diff(a, 4, 0)", a), "past the length: empty");
        Tensor pre = Inputs.randn(rng, DType.FLOAT32, 3, 2), post = Inputs.randn(rng, DType.FLOAT32, 3, 1);
        assertClose(a.diff(3, -1, pre, post), Torch.call("torch.diff(a, 3, -1, b, c)", a, pre, post), "prepend and append");
        Tensor bools = Tensor.of(new boolean[] {true, true, false, true, false, false}, 6);
        assertClose(bools.diff(), Torch.call("torch.diff(a)", bools), "bool: !=");
        Tensor ints = Tensor.ofLongs(1, 4, 9, 16);
        assertClose(ints.diff(2, 0), Torch.call("torch.diff(a, 2, 0)", ints), "int64");
        Tensor scalar = Tensor.full(1.0);   // 0-d
        checkError(scalar::diff, "torch.diff(a)", scalar, "diff expects input to be at least one-dimensional");
        checkError(() -> a.diff(-1, 0), "torch.diff(a, -1, 0)", a, "order must be non-negative but got -1");
    }

    @Test
    void crossAndTensordot() {
        Tensor a = Inputs.randn(rng, DType.FLOAT64, 4, 3), b = Inputs.randn(rng, DType.FLOAT64, 1, 3);
        assertClose(a.cross(b, -1), Torch.call("torch.linalg_cross(a, b, dim=-1)", a, b), "broadcast rows");
        Tensor c = Inputs.randn(rng, DType.FLOAT32, 3, 5), e = Inputs.randn(rng, DType.FLOAT32, 3, 5);
        assertClose(c.cross(e), Torch.call("torch.cross(a, b, 0)", c, e), "the first dim of size 3, as torch.cross without dim");
        Tensor ints = Tensor.ofLongs(1, 2, 3), other = Tensor.ofLongs(4, 5, 6);
        assertClose(ints.cross(other, 0), Torch.call("torch.linalg_cross(a, b)", ints, other), "int64");
        Tensor four = Inputs.randn(rng, DType.FLOAT32, 2, 4);
        checkError(() -> four.cross(four, -1), "torch.linalg_cross(a, a)", four, "linalg.cross: inputs dimension -1 must have length 3. Got 4 and 4");

        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 3, 4), y = Inputs.randn(rng, DType.FLOAT32, 4, 3, 5);
        assertClose(x.tensordot(y, new int[] {1, 2}, new int[] {1, 0}), Torch.call("torch.tensordot(a, b, [1, 2], [1, 0])", x, y), "two dims");
        Tensor z = Inputs.randn(rng, DType.FLOAT32, 3, 4, 5);
        assertClose(x.tensordot(z, 2), Torch.call("torch.tensordot(a, b, [1, 2], [0, 1])", x, z), "dims = 2");
        assertClose(x.tensordot(z, 0), Torch.call("torch.tensordot(a, b, [], [])", x, z), "dims = 0: the outer product");
        checkError(() -> x.tensordot(y, new int[] {1}, new int[] {2}), "torch.tensordot(a, b, [1], [2])", x, y,
                "contracted dimensions need to match, but first has size 3 in dim 1 and second has size 5 in dim 2");
    }

    @Test
    void meshgrid() {
        Tensor a = Tensor.arange(0, 3, 1).to(DType.FLOAT32), b = Inputs.randn(rng, DType.FLOAT32, 4), c = Tensor.full(7.0);   // a 0-d tensor counts as one value
        for (String indexing : new String[] {"ij", "xy"}) {
            List<Tensor> grids = Tensor.meshgrid(indexing, a, b, c);
            NDList expected = Torch.callList("torch.meshgrid([a, b, c], indexing=\"" + indexing + "\")", a, b, c);
            assertClose(grids, expected, "meshgrid " + indexing);
        }
        List<Tensor> two = Tensor.meshgrid("xy", a, b);
        assertClose(two, Torch.callList("torch.meshgrid([a, b], indexing=\"xy\")", a, b), "xy over two");
        var e = assertThrows(IllegalArgumentException.class, () -> Tensor.meshgrid("yx", a));
        assertTrue(e.getMessage().contains("indexing must be one of \"xy\" or \"ij\", but received: yx"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Tensor.meshgrid(Tensor.zeros(2, 2)));
        assertTrue(e.getMessage().contains("Expected 0D or 1D tensor in the tensor list"), e.getMessage());
    }

    @Test
    void nanReductionsAndPairs() {
        Tensor a = Tensor.of(new float[] {1, NAN, 3, NAN, NAN, NAN, -2, 5, 0.5f}, 3, 3);
        assertClose(a.nansum(), Torch.call("torch.nansum(a)", a), "nansum");
        assertClose(a.nansum(1, true), Torch.call("torch.nansum(a, [1], True)", a), "nansum dim");
        assertClose(a.nanmean(), Torch.call("torch.nanmean(a)", a), "nanmean");
        assertClose(a.nanmean(1, false), Torch.call("torch.nanmean(a, [1])", a), "nanmean dim (an all-NaN row is NaN)");
        Tensor ints = Tensor.ofLongs(1, 2, 3);
        assertClose(ints.nansum(), Torch.call("torch.nansum(a)", ints), "nansum int64");
        checkError(ints::nanmean, "torch.nanmean(a)", ints, "nanmean(): expected input to have floating point or complex dtype but got Long");

        Tensor x = Inputs.randn(rng, DType.FLOAT64, 4, 5);
        assertClose(x.varMean(), Torch.callList("torch.var_mean(a)", x), "var_mean");
        assertClose(x.varMean(new int[] {1}, 0, true), Torch.callList("torch.var_mean(a, [1], correction=0, keepdim=True)", x), "var_mean dim");
        assertClose(x.stdMean(new int[] {0}, 1, false), Torch.callList("torch.std_mean(a, [0], correction=1)", x), "std_mean dim");
    }

    @Test
    void cdist() {
        Tensor a = Inputs.randn(rng, DType.FLOAT32, 2, 5, 3), b = Inputs.randn(rng, DType.FLOAT32, 4, 3);
        assertClose(Tensor.cdist(a, b), Torch.call("torch.cdist(a, b)", a, b), "p=2, batch broadcast");
        for (double p : new double[] {1, 0.5, 3, Double.POSITIVE_INFINITY, 0}) {
            assertClose(Tensor.cdist(a, b, p), Torch.call("torch.cdist(a, b, c)", a, b, p), "p=" + p);
        }
        // above 25 rows libtorch's p=2 takes |a|² + |b|² - 2ab: the same distances to rounding
        Tensor big = Inputs.randn(rng, DType.FLOAT64, 30, 4), other = Inputs.randn(rng, DType.FLOAT64, 27, 4);
        assertClose(Tensor.cdist(big, other), Torch.call("torch.cdist(a, b)", big, other), "many rows", TorchAssert.Tolerance.of(1e-10, 1e-10));
        Tensor wide = Tensor.zeros(3, 4);
        checkError(() -> Tensor.cdist(b, wide), "torch.cdist(a, b)", b, wide, "X1 and X2 must have the same number of columns. X1: 3 X2: 4");
    }

    @Test
    void compiledEqualsEagerWithGradients() {
        Fn2<Tensor, Tensor, Tensor> fn = (x, y) -> {
            Tensor s = x.logaddexp(y).add(x.hypot(y)).add(x.abs().add(0.1).xlogy(y.abs().add(0.5)));
            Tensor d = s.diff(1, 1).sum(1, true);
            Tensor c = x.narrow(1, 0, 3).cross(y.narrow(1, 0, 3), 1);
            Tensor t = x.tensordot(y.t(), 1).sum();
            Tensor m = Tensor.cdist(x.unsqueeze(0), y.unsqueeze(0)).squeeze(0).nanmean();
            return d.add(c.sum(1, true)).add(t).add(m).add(x.varMean(new int[] {1}, 1, true).get(0)).sum();
        };
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 4, 5).requiresGrad(true), y = Inputs.randn(rng, DType.FLOAT32, 4, 5).requiresGrad(true);
        ExplainOutput explain = Ember.explain(fn).with(x, y);
        assertEquals(1, explain.graphCount(), explain.toString());
        assertEquals(0, explain.graphBreakCount(), explain.toString());
        Tensor eager = fn.apply(x, y);
        List<Tensor> eagerGrads = Autograd.grad(eager, x, y);
        var compiled = Ember.compile(fn);
        Tensor out = compiled.apply(x, y);
        List<Tensor> grads = Autograd.grad(out, x, y);
        assertClose(out, eager, "compiled value", TorchAssert.Tolerance.of(1e-5, 1e-4));
        assertClose(grads.get(0), eagerGrads.get(0), "compiled d/dx", TorchAssert.Tolerance.of(1e-5, 1e-4));
        assertClose(grads.get(1), eagerGrads.get(1), "compiled d/dy", TorchAssert.Tolerance.of(1e-5, 1e-4));
    }

    /** Ember refuses with {@code words}, and so does libtorch (its message holds the same words). */
    private static void checkError(Runnable ember, String torch, Object first, String words) { checkError(ember, torch, first, null, words); }

    private static void checkError(Runnable ember, String torch, Object first, Object second, String words) {
        var e = assertThrows(RuntimeException.class, ember::run);
        assertTrue(e.getMessage().contains(words), "Ember's message: " + e.getMessage());
        var t = assertThrows(RuntimeException.class, () -> { if (second == null) Torch.call(torch, first); else Torch.call(torch, first, second); });
        assertTrue(t.getMessage().contains(words), "libtorch's message: " + t.getMessage());
    }
}
