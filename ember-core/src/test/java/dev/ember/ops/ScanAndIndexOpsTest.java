package dev.ember.ops;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * cummax, cummin, logcumsumexp, take_along_dim, index_fill, index_copy, rot90, kron and pow_
 * against libtorch (values over dtypes, dims and layouts; NaN, ties and infinities; gradients
 * through torch.autograd.grad), compiled against eager in aot_eager and inductor (values and
 * gradients), and their errors.
 */
class ScanAndIndexOpsTest {

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    private static Tensor idx(long... v) { return Tensor.of(v, v.length); }

    @Test
    void cummaxAndCumminMatchLibtorchWithTiesAndNaN() {
        Random rng = new Random(1);
        Tensor special = Tensor.of(new double[] {1, 3, 3, Double.NaN, 5, 2, Double.NaN, 7, -1, 7}, 2, 5);
        Tensor ties = Inputs.randint(rng, DType.INT64, -2, 3, 3, 4, 5);
        for (Tensor x : List.of(Inputs.randn(rng, DType.FLOAT32, 4, 6), Inputs.randn(rng, DType.FLOAT64, 3, 4, 5), special, ties, ties.to(DType.INT32),
                ties.gt(0.0), Inputs.nonContiguous(Inputs.randn(rng, DType.FLOAT32, 4, 5)), Tensor.scalar(2.5), Tensor.zeros(0, 3))) {
            for (int dim = -x.dim(); dim < Math.max(x.dim(), 1); dim++) {
                for (String op : List.of("cummax", "cummin")) {
                    List<Tensor> got = op.equals("cummax") ? x.cummax(dim) : x.cummin(dim);
                    NDList want = Torch.callList("torch." + op + "(a, " + dim + ")", x);
                    assertClose(got.get(0), want.get(0), op + " values dim " + dim + " of " + x);
                    assertClose(got.get(1), want.get(1), op + " indices dim " + dim + " of " + x);
                }
            }
        }
    }

    @Test
    void logcumsumexpMatchesLibtorchAcrossLargeRangesAndInfinities() {
        Random rng = new Random(2);
        Tensor wide = Tensor.of(new double[] {-1000, 0, 1000, -1000, Double.NEGATIVE_INFINITY, 3, Double.POSITIVE_INFINITY, 1, Double.NaN, 2}, 2, 5);
        for (Tensor x : List.of(Inputs.randn(rng, DType.FLOAT32, 4, 6).mul(30.0), Inputs.randn(rng, DType.FLOAT64, 3, 4, 5), wide, wide.to(DType.FLOAT32),
                Inputs.nonContiguous(Inputs.randn(rng, DType.FLOAT64, 4, 5)), Tensor.scalar(2.5))) {
            for (int dim = -x.dim(); dim < Math.max(x.dim(), 1); dim++) {
                assertClose(x.logcumsumexp(dim), Torch.call("torch.logcumsumexp(a, " + dim + ")", x), "logcumsumexp dim " + dim + " of " + x);
            }
        }
        var e = assertThrows(IllegalArgumentException.class, () -> idx(1, 2).logcumsumexp(0));
        assertEquals("logcumsumexp: \"logcumsumexp_out_cpu\" not implemented for 'Long'", e.getMessage());
    }

    @Test
    void takeAlongDimIndexFillAndIndexCopyMatchLibtorch() {
        Random rng = new Random(3);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 4, 5), sorted = x.argsort(1, false);
        assertClose(x.takeAlongDim(sorted, 1), Torch.call("torch.take_along_dim(a, b, 1)", x, sorted), "take_along_dim sorted");
        Tensor column = Inputs.randint(rng, DType.INT64, 0, 4, 3, 1);   // broadcast along dim 1
        assertClose(x.takeAlongDim(column, 0), Torch.call("torch.take_along_dim(a, b, 0)", x, column), "take_along_dim broadcast");
        assertClose(x.takeAlongDim(idx(19, 0, 7)), Torch.call("torch.take_along_dim(a, b)", x, idx(19, 0, 7)), "take_along_dim flat");
        Tensor three = Inputs.randn(rng, DType.FLOAT64, 2, 3, 4);
        Tensor i3 = Inputs.randint(rng, DType.INT64, 0, 3, 2, 5, 1);
        assertClose(three.takeAlongDim(i3, -2), Torch.call("torch.take_along_dim(a, b, -2)", three, i3), "take_along_dim 3-d");

        for (Tensor t : List.of(x, x.to(DType.INT64), Inputs.nonContiguous(x), three)) {
            Tensor index = idx(0, -1, 2, 2);
            assertClose(t.indexFill(1, index, -2.0), Torch.call("torch.index_fill(a, 1, b, -2)", t, index), "index_fill " + t.dtype());
            assertClose(t.indexFill(0, idx(1), t.dtype().isFloatingPoint() ? Tensor.scalar(3.5).to(t.dtype()) : Tensor.scalar(3L)),
                    Torch.call("torch.index_fill(a, 0, b, c)", t, idx(1), t.dtype().isFloatingPoint() ? Tensor.scalar(3.5).to(t.dtype()) : Tensor.scalar(3L)), "index_fill tensor value");
        }
        Tensor source = Inputs.randn(rng, DType.FLOAT32, 4, 2);
        assertClose(x.indexCopy(1, idx(4, 0), source), Torch.call("torch.index_copy(a, 1, b, c)", x, idx(4, 0), source), "index_copy dim 1");
        Tensor rows = Inputs.randn(rng, DType.FLOAT64, 2, 3, 4);
        assertClose(three.indexCopy(0, idx(1, 0), rows), Torch.call("torch.index_copy(a, 0, b, c)", three, idx(1, 0), rows), "index_copy 3-d");
        assertClose(Tensor.scalar(1.5).indexCopy(0, Tensor.scalar(0L), Tensor.scalar(4.0)), Torch.call("torch.index_copy(a, 0, b, c)", Tensor.scalar(1.5), Tensor.scalar(0L), Tensor.scalar(4.0)), "index_copy 0-d");
    }

    @Test
    void rot90KronAndPowInPlaceMatchLibtorch() {
        Random rng = new Random(4);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 3, 4);
        for (int k = -5; k <= 5; k++) {
            for (int[] dims : List.of(new int[] {0, 1}, new int[] {1, 2}, new int[] {2, 0}, new int[] {-1, -3})) {
                assertClose(x.rot90(k, dims[0], dims[1]), Torch.call("torch.rot90(a, " + k + ", [" + dims[0] + ", " + dims[1] + "])", x), "rot90 " + k);
            }
        }
        assertClose(Inputs.nonContiguous(x).rot90(1), Torch.call("torch.rot90(a)", Inputs.nonContiguous(x)), "rot90 default dims");
        for (Tensor[] pair : List.of(new Tensor[] {Inputs.randn(rng, DType.FLOAT32, 2, 3), Inputs.randn(rng, DType.FLOAT32, 4, 2)},
                new Tensor[] {Inputs.randn(rng, DType.FLOAT64, 3), Inputs.randn(rng, DType.FLOAT64, 2, 2, 2)},
                new Tensor[] {Inputs.randint(rng, DType.INT64, -3, 4, 2, 2), Inputs.randn(rng, DType.FLOAT32, 3)},
                new Tensor[] {Tensor.scalar(2.0), Inputs.randn(rng, DType.FLOAT64, 2, 3)})) {
            assertClose(pair[0].kron(pair[1]), Torch.call("torch.kron(a, b)", pair[0], pair[1]), "kron");
        }
        Tensor base = Inputs.randn(rng, DType.FLOAT32, 3, 4).abs(), exponent = Inputs.randn(rng, DType.FLOAT32, 4);
        assertClose(base.clone().pow_(2.5), Torch.call("a.clone().pow_(2.5)", base), "pow_ scalar");
        assertClose(base.clone().pow_(exponent), Torch.call("a.clone().pow_(b)", base, exponent), "pow_ tensor");
        Tensor ints = idx(1, 2, 3);
        assertClose(PointwiseOps.POW__SCALAR.callTensor(ints.clone(), 2L), Torch.call("a.clone().pow_(2)", ints), "pow_ int");
        assertEquals("pow_: result type Float can't be cast to the desired output type Long",
                assertThrows(IllegalArgumentException.class, () -> ints.clone().pow_(2.0)).getMessage());   // a float exponent makes a float result, as ATen's
    }

    @Test
    void gradientsMatchLibtorch() {
        Random rng = new Random(5);
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 3, 5), w = Inputs.randn(rng, DType.FLOAT64, 3, 5);
        try (NDManager m = Torch.scope()) {
            check(m, x, w, t -> t.cummax(1).get(0), "torch.cummax(a, 1)[0]");
            check(m, x, w, t -> t.cummin(0).get(0), "torch.cummin(a, 0)[0]");
            check(m, x, w, t -> t.logcumsumexp(1), "torch.logcumsumexp(a, 1)");
            check(m, x, Inputs.randn(rng, DType.FLOAT64, 5, 3), t -> t.rot90(3), "torch.rot90(a, 3)");
            check(m, x, Inputs.randn(rng, DType.FLOAT64, 6, 10), t -> t.kron(Tensor.of(new double[] {1, -2, 3, 0.5}, 2, 2)),
                    "torch.kron(a, torch.tensor([[1.0, -2.0], [3.0, 0.5]], dtype=torch.float64))");
            check(m, x, w, t -> t.indexFill(1, idx(0, 3, 3), -1.0), "torch.index_fill(a, 1, torch.tensor([0, 3, 3]), -1.0)");
            check(m, x, Inputs.randn(rng, DType.FLOAT64, 3, 2), t -> t.takeAlongDim(idx(4, 0).reshape(1, 2), 1), "torch.take_along_dim(a, torch.tensor([[4, 0]]), 1)");
            check(m, x, w, t -> Tensor.zeros(3, 5).to(DType.FLOAT64).indexCopy(1, idx(4, 2, 0, 1, 3), t),
                    "torch.index_copy(torch.zeros(3, 5, dtype=torch.float64), 1, torch.tensor([4, 2, 0, 1, 3]), a)");
        }
        // index_fill's value: each filled slice counted once, repeated indices or not
        Tensor value = Tensor.scalar(2.0).to(DType.FLOAT64).requiresGrad(true);
        Tensor.ones(3, 4).to(DType.FLOAT64).indexFill(1, idx(1, 1, 3), value).sum().backward();
        assertEquals(6.0, value.grad().item());
    }

    /** d(sum(w * f(x)))/dx in Ember and in libtorch (the same expression in TorchScript, applied to {@code a}). */
    private static void check(NDManager m, Tensor x, Tensor w, java.util.function.UnaryOperator<Tensor> f, String torchExpr) {
        Tensor leaf = x.detach().requiresGrad(true);
        f.apply(leaf).mul(w).sum().backward();
        NDArray want = Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([(" + torchExpr + " * b).sum()], [a])", x, w).head();
        assertClose(leaf.grad(), want, "gradient of " + torchExpr);
    }

    static Tensor program(Tensor x, Tensor w) {
        List<Tensor> mx = x.cummax(1), mn = x.cummin(0);
        Tensor a = mx.get(0).add(mn.get(0)).add(mx.get(1).typeAs(x)).add(x.logcumsumexp(1));
        Tensor b = a.takeAlongDim(x.argsort(1, false), 1).indexFill(1, idx(0, 2), -1.0).indexCopy(0, idx(2, 0, 1), w);
        return Tensor.cat(List.of(b.rot90(1).reshape(-1), b.kron(w.narrow(0, 0, 2)).reshape(-1), x.abs().add(0.5).pow_(1.5).reshape(-1)), 0);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerValuesAndGradients(String backend) {
        Tensor.manualSeed(9);
        Tensor x = Tensor.randn(3, 4).to(DType.FLOAT64), w = Tensor.randn(3, 4).to(DType.FLOAT64);
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(ScanAndIndexOpsTest::program, Options.backend(backend).fullgraph(true));
        assertArrayEquals(program(x, w).toDoubleArray(), f.apply(x, w).toDoubleArray(), 1e-12, backend);
        Tensor xe = x.detach().requiresGrad(true), xc = x.detach().requiresGrad(true), we = w.detach().requiresGrad(true), wc = w.detach().requiresGrad(true);
        Tensor weights = Tensor.randn(program(x, w).numel()).to(DType.FLOAT64);
        program(xe, we).mul(weights).sum().backward();
        Ember.compile(ScanAndIndexOpsTest::program, Options.backend(backend)).apply(xc, wc).mul(weights).sum().backward();
        assertArrayEquals(xe.grad().toDoubleArray(), xc.grad().toDoubleArray(), 1e-9, backend + " x");
        assertArrayEquals(we.grad().toDoubleArray(), wc.grad().toDoubleArray(), 1e-9, backend + " w");
    }

    @Test
    void badInputGetsATensErrors() {
        Tensor x = Tensor.zeros(2, 3);
        assertEquals("rot90: expected total rotation dims == 2, but got dims = 1",
                assertThrows(IllegalArgumentException.class, () -> ShapeOps.ROT90.call(x, 1L, new int[] {0})).getMessage());
        assertEquals("rot90: expected rotation dims to be different, but got dim0 = 1 and dim1 = -1",
                assertThrows(IllegalArgumentException.class, () -> x.rot90(1, 1, -1)).getMessage());
        assertEquals("rot90: expected total dims >= 2, but got total dims = 1", assertThrows(IllegalArgumentException.class, () -> Tensor.zeros(3).rot90(1)).getMessage());
        assertEquals("take_along_dim: torch.take_along_dim(): dtype of indices should be Long but got Int",
                assertThrows(IllegalArgumentException.class, () -> x.takeAlongDim(idx(0).to(DType.INT32), 0)).getMessage());
        assertEquals("index_fill_(): Index has to be a vector/scalar", assertThrows(IllegalArgumentException.class, () -> x.indexFill(0, idx(0, 1).reshape(1, 2), 1.0)).getMessage());
        assertEquals("index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s).",
                assertThrows(IllegalArgumentException.class, () -> x.indexFill(0, idx(0), Tensor.zeros(1))).getMessage());
        assertEquals("index_copy_(): Number of indices (1) should be equal to source.size(dim) (2)",
                assertThrows(IllegalArgumentException.class, () -> x.indexCopy(0, idx(0), Tensor.zeros(2, 3))).getMessage());
        assertEquals("index_copy_(): self and source expected to have the same dtype, but got (self) Float and (source) Double",
                assertThrows(IllegalArgumentException.class, () -> x.indexCopy(0, idx(0), Tensor.zeros(1, 3).to(DType.FLOAT64))).getMessage());
        assertThrows(RuntimeException.class, () -> x.indexFill(1, idx(3), 1.0));   // out of range: the scatter's index check
    }
}
