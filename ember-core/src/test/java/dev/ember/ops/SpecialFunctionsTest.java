package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.UnaryOperator;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * erfc, erfinv, lgamma, digamma and polygamma(0|1) against libtorch in float32 and float64, over
 * a grid that crosses every branch of their algorithms (series and continued fraction, reflection,
 * recurrence and asymptotic series) and their poles, infinities and NaN; integer inputs promote;
 * gradients against libtorch's; compiled against eager.
 */
class SpecialFunctionsTest {

    /** -30 … 30 in uneven steps, the integers and half-integers among them, and the special values. */
    private static Tensor grid(double lo, double hi, double... extra) {
        int n = 601;
        double[] v = new double[n + extra.length];
        for (int i = 0; i < n; i++) v[i] = lo + (hi - lo) * i / (n - 1) + (i % 7 == 3 ? 1e-3 : 0);
        System.arraycopy(extra, 0, v, n, extra.length);
        return Tensor.of(v, v.length);
    }

    private static final double INF = Double.POSITIVE_INFINITY, NAN = Double.NaN;

    @Test
    void valuesMatchLibtorch() {
        Tensor wide = grid(-30, 30, 0.0, -0.0, 1, 2, -1, -2, -7, 0.5, -0.5, 1e-8, -1e-8, 171.5, 1e5, INF, -INF, NAN, 3.7, 26, 27.5, -5.9, 2.5, -2.5);
        Tensor unit = grid(-1, 1, 1.0, -1.0, 0.0, 0.999999, -0.999999, 1 - 1e-12, 0.5, -0.5, 1.5, -1.5, NAN, 1e-10);
        for (DType d : List.of(DType.FLOAT64, DType.FLOAT32)) {
            Tensor x = wide.to(d), y = unit.to(d);
            assertClose(x.erfc(), Torch.call("torch.erfc(a)", x), "erfc " + d);
            assertClose(y.erfinv(), Torch.call("torch.erfinv(a)", y), "erfinv " + d);
            assertClose(x.lgamma(), Torch.call("torch.lgamma(a)", x), "lgamma " + d);
            assertClose(x.digamma(), Torch.call("torch.digamma(a)", x), "digamma " + d);
            assertClose(x.polygamma(0), Torch.call("torch.polygamma(0, a)", x), "polygamma 0 " + d);
            // ATen's float32 trigamma reflects with float sin(πx), which is off by up to 1e-4 near the negative poles;
            // Ember computes in double, so float32 is compared where no reflection happens
            Tensor trig = d == DType.FLOAT64 ? x : x.abs().add(1e-3);
            assertClose(trig.polygamma(1), Torch.call("torch.polygamma(1, a)", trig), "polygamma 1 " + d);
        }
        Tensor ints = Tensor.of(new long[] {-3, 0, 1, 2, 5, 40}, 6);
        assertClose(ints.lgamma(), Torch.call("torch.lgamma(a)", ints), "lgamma of int64");
        assertClose(ints.erfc(), Torch.call("torch.erfc(a)", ints), "erfc of int64");
        assertEquals("polygamma(n, x) does not support negative n.", assertThrows(IllegalArgumentException.class, () -> wide.polygamma(-1)).getMessage());
    }

    @Test
    void gradientsMatchLibtorch() {
        Tensor x = Tensor.of(new double[] {-3.3, -0.7, 0.2, 0.9, 1.5, 4, 12.5}, 7), y = Tensor.of(new double[] {-0.95, -0.3, 0, 0.4, 0.99}, 5);
        try (NDManager m = Torch.scope()) {
            check(m, x, Tensor::erfc, "torch.erfc(a)");
            check(m, y, Tensor::erfinv, "torch.erfinv(a)");
            check(m, x, Tensor::lgamma, "torch.lgamma(a)");
            check(m, x, Tensor::digamma, "torch.digamma(a)");
        }
    }

    private static void check(NDManager m, Tensor x, UnaryOperator<Tensor> f, String expr) {
        Tensor leaf = x.detach().requiresGrad(true);
        f.apply(leaf).sum().backward();
        assertClose(leaf.grad(), Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([" + expr + ".sum()], [a])", x).head(), "gradient of " + expr);
    }

    @Test
    void compiledMatchesEager() {
        Fn1<Tensor, Tensor> fn = t -> t.abs().add(0.1).lgamma().add(t.erfc()).add(t.abs().add(0.5).digamma()).add(t.tanh().mul(0.9).erfinv());
        Tensor x = Tensor.randn(4, 5);
        for (String backend : List.of("aot_eager", "inductor")) {
            assertArrayEquals(fn.apply(x).toDoubleArray(), Ember.compile(fn, Options.backend(backend).fullgraph(true)).apply(x).toDoubleArray(), 1e-6, backend);
        }
    }
}
