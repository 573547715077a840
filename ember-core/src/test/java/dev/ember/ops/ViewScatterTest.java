package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;

import static dev.ember.testing.TorchAssert.assertClose;

/** select_scatter, slice_scatter and diagonal_scatter against libtorch: values over dtypes and layouts, gradients, refusals, compiled. */
class ViewScatterTest {
    private final Random rng = new Random(17);

    @AfterEach
    void reset() { Ember.reset(); }

    /** One call: self's shape, src's shape, Ember's call, libtorch's spelling (a: self, b: src). */
    private record Case(String torch, int[] self, int[] src, BiFunction<Tensor, Tensor, Tensor> ember) {}

    private static final List<Case> CASES = List.of(
            new Case("torch.select_scatter(a, b, 1, -1)", new int[] {3, 4, 5}, new int[] {3, 5}, (x, s) -> x.selectScatter(s, 1, -1)),
            new Case("torch.select_scatter(a, b, 0, 2)", new int[] {3, 4}, new int[] {4}, (x, s) -> x.selectScatter(s, 0, 2)),
            new Case("torch.select_scatter(a, b, 0, 0)", new int[] {3}, new int[0], (x, s) -> x.selectScatter(s, 0, 0)),
            new Case("torch.slice_scatter(a, b, 1, 1, None, 2)", new int[] {4, 6}, new int[] {4, 3}, (x, s) -> x.sliceScatter(s, 1, 1, null, 2)),
            new Case("torch.slice_scatter(a, b, 0, None, -2)", new int[] {4, 6}, new int[] {2, 6}, (x, s) -> x.sliceScatter(s, 0, null, -2, 1)),
            new Case("torch.slice_scatter(a, b, -1, -10, 100, 4)", new int[] {2, 3, 6}, new int[] {2, 3, 2}, (x, s) -> x.sliceScatter(s, -1, -10, 100, 4)),
            new Case("torch.slice_scatter(a, b, 1, 5, 2)", new int[] {4, 6}, new int[] {4, 0}, (x, s) -> x.sliceScatter(s, 1, 5, 2, 1)),
            new Case("torch.diagonal_scatter(a, b)", new int[] {4, 5}, new int[] {4}, Tensor::diagonalScatter),
            new Case("torch.diagonal_scatter(a, b, 1)", new int[] {4, 5}, new int[] {4}, (x, s) -> x.diagonalScatter(s, 1, 0, 1)),
            new Case("torch.diagonal_scatter(a, b, -2)", new int[] {4, 5}, new int[] {2}, (x, s) -> x.diagonalScatter(s, -2, 0, 1)),
            new Case("torch.diagonal_scatter(a, b, 0, 0, 2)", new int[] {2, 3, 4}, new int[] {3, 2}, (x, s) -> x.diagonalScatter(s, 0, 0, 2)),
            new Case("torch.diagonal_scatter(a, b, 1, -1, 0)", new int[] {2, 3, 4}, new int[] {3, 1}, (x, s) -> x.diagonalScatter(s, 1, -1, 0)),
            new Case("torch.diagonal_scatter(a, b, 7)", new int[] {4, 5}, new int[] {0}, (x, s) -> x.diagonalScatter(s, 7, 0, 1)));

    private Tensor values(DType d, int... shape) {
        Tensor f = Inputs.randn(rng, DType.FLOAT32, shape);
        return d == DType.BOOL ? f.gt(0.0) : d.isFloatingPoint() ? f.to(d) : f.mul(10.0).to(d);
    }

    @Test
    void valuesMatchLibtorch() {
        try (NDManager m = Torch.scope()) {
            for (Case c : CASES) {
                for (DType d : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.INT32, DType.INT64, DType.BOOL}) {
                    Tensor x = values(d, c.self()), src = values(d, c.src());
                    for (Inputs.Layout in : Inputs.layouts(x)) {
                        for (Inputs.Layout s : Inputs.layouts(src)) {
                            assertClose(c.ember().apply(in.tensor(), s.tensor()), Torch.call(m, c.torch(), in.tensor(), s.tensor()), c.torch() + " " + d + " " + in + " src " + s);
                        }
                    }
                }
                Tensor x = values(DType.FLOAT32, c.self()), wider = values(DType.FLOAT64, c.src());
                assertClose(c.ember().apply(x, wider), Torch.call(m, c.torch(), x, wider), c.torch() + ": a float64 src into float32, converted as copy_");
            }
        }
    }

    @Test
    void gradientsMatchLibtorch() {
        for (Case c : CASES) {
            Tensor x = Inputs.randn(rng, DType.FLOAT64, c.self()), src = Inputs.randn(rng, DType.FLOAT64, c.src());
            Tensor xs = x.detach().requiresGrad(true), ss = src.detach().requiresGrad(true);
            List<Tensor> got = Autograd.grad(List.of(c.ember().apply(xs.mul(3.0), ss.exp()).sin().sum()), List.of(xs, ss), null, false, false, false);
            String call = c.torch().replace("(a, b", "(a * 3.0, b.exp()");
            String body = "a = a.detach().requires_grad_(True)\nb = b.detach().requires_grad_(True)\ny = " + call + ".sin().sum()\nreturn torch.autograd.grad([y], [a, b])";
            try (NDManager m = Torch.scope()) {
                var want = Torch.callListWithGrad(m, body, x, src);
                assertClose(got.get(0), want.get(0), c.torch() + ": self's gradient");
                assertClose(got.get(1), want.get(1), c.torch() + ": src's gradient");
            }
        }
    }

    @Test
    void badCallsAreRefusedAsLibtorch() {
        Tensor x = Tensor.randn(3, 4);
        try (NDManager m = Torch.scope()) {
            ScatterConformanceTest.refused(m, "select src shape", () -> x.selectScatter(Tensor.zeros(3), 0, 1), "torch.select_scatter(a, b, 0, 1)", x, Tensor.zeros(3));
            ScatterConformanceTest.refused(m, "slice src shape", () -> x.sliceScatter(Tensor.zeros(3, 3), 1, 0, 2, 1), "torch.slice_scatter(a, b, 1, 0, 2)", x, Tensor.zeros(3, 3));
            ScatterConformanceTest.refused(m, "diagonal src shape", () -> x.diagonalScatter(Tensor.zeros(4)), "torch.diagonal_scatter(a, b)", x, Tensor.zeros(4));
            ScatterConformanceTest.refused(m, "select index", () -> x.selectScatter(Tensor.zeros(4), 0, 3), "torch.select_scatter(a, b, 0, 3)", x, Tensor.zeros(4));
            ScatterConformanceTest.refused(m, "diagonal dims", () -> x.diagonalScatter(Tensor.zeros(3), 0, 1, -1), "torch.diagonal_scatter(a, b, 0, 1, -1)", x, Tensor.zeros(3));
        }
    }

    static Tensor patch(Tensor x, Tensor s) {
        Tensor y = x.relu().sliceScatter(s, 1, 1, null, 2);
        return y.selectScatter(s.select(1, 0).neg(), 1, 0).diagonalScatter(s.select(1, 1)).add(1.0);
    }

    @Test
    void compiledGivesEagersValuesAndGradients() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 4, 6), s = Inputs.randn(rng, DType.FLOAT32, 4, 3);
        var compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) ViewScatterTest::patch, Options.backend("inductor").fullgraph(true));
        assertClose(compiled.apply(x, s), patch(x, s), "compiled", TorchAssert.Tolerance.of(0, 0));
        var training = Ember.compile((Fn2<Tensor, Tensor, Tensor>) ViewScatterTest::patch, Options.backend("aot_eager").fullgraph(true));
        Tensor xe = x.detach().requiresGrad(true), se = s.detach().requiresGrad(true), xc = x.detach().requiresGrad(true), sc = s.detach().requiresGrad(true);
        patch(xe, se).mul(patch(xe, se)).sum().backward();
        Tensor yc = training.apply(xc, sc);
        yc.mul(yc).sum().backward();
        assertClose(xc.grad(), xe.grad(), "x's gradient, compiled");
        assertClose(sc.grad(), se.grad(), "s's gradient, compiled");
    }
}
