package dev.ember.ops;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn3;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static dev.ember.ops.PointwiseBinaryTest.check;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * scatter_reduce and index_reduce (functional and in place), every reduction with and without
 * self, against libtorch: values over the numeric dtypes, layouts and dims with repeated indices,
 * NaNs in amax/amin, their gradients (zeros in prod, ties in amax/amin), refusals, and compiled.
 */
class ScatterReduceTest {

    private static final String[] SCATTER_REDUCTIONS = {"sum", "prod", "mean", "amax", "amin"};
    private static final String[] INDEX_REDUCTIONS = {"prod", "mean", "amax", "amin"};

    @AfterEach
    void reset() { Ember.reset(); }

    static Stream<DType> dtypes() { return Stream.of(DType.FLOAT32, DType.FLOAT64, DType.INT32, DType.INT64); }

    private static String py(boolean b) { return b ? "True" : "False"; }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dtypes")
    void scatterReduceMatchesLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 5);
        try (NDManager m = Torch.scope()) {
            Tensor self = ScatterConformanceTest.values(rng, d, 4, 5, 6), src = ScatterConformanceTest.values(rng, d, 4, 5, 7);
            if (d.isFloatingPoint()) {
                self.storage().writeDouble(3, Double.NaN);   // a NaN in self, and one in src, for amax and amin
                src.storage().writeDouble(8, Double.NaN);
            }
            for (Inputs.Layout in : Inputs.layouts(self)) {
                Tensor t = in.tensor();
                for (int dim : new int[] {0, 1, -1}) {
                    // few distinct positions, so most are written more than once; and some not at all
                    Tensor index = Inputs.randint(rng, DType.INT64, 0, Math.min(t.size(dim), 3), 3, 4, 5);
                    for (String reduce : SCATTER_REDUCTIONS) {
                        for (boolean include : new boolean[] {true, false}) {
                            String ctx = d + " " + in + " dim " + dim + " " + reduce + " include_self " + include;
                            String args = dim + ", b, c, '" + reduce + "', include_self=" + py(include) + ")";
                            check(m, "scatter_reduce " + ctx, () -> t.scatterReduce(dim, index, src, reduce, include), "torch.scatter_reduce(a, " + args, t, index, src);
                            check(m, "scatter_reduce_ " + ctx, () -> t.clone().scatterReduce_(dim, index, Inputs.nonContiguous(src), reduce, include),
                                    "a.clone().scatter_reduce_(" + args, t, index, src);
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dtypes")
    void indexReduceMatchesLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 11);
        try (NDManager m = Torch.scope()) {
            Tensor self = ScatterConformanceTest.values(rng, d, 4, 5, 6);
            if (d.isFloatingPoint()) self.storage().writeDouble(7, Double.NaN);
            for (Inputs.Layout in : Inputs.layouts(self)) {
                Tensor t = in.tensor();
                for (int dim : new int[] {0, 1, -1}) {
                    int[] shape = t.shape().clone();
                    shape[Math.floorMod(dim, 3)] = 7;
                    Tensor source = ScatterConformanceTest.values(rng, d, shape);
                    if (d.isFloatingPoint()) source.storage().writeDouble(2, Double.NaN);
                    Tensor index = Inputs.randint(rng, DType.INT64, 0, Math.min(t.size(dim), 3), 7);
                    for (DType indexType : new DType[] {DType.INT64, DType.INT32}) {
                        Tensor idx = index.to(indexType);
                        for (String reduce : INDEX_REDUCTIONS) {
                            for (boolean include : new boolean[] {true, false}) {
                                String ctx = d + " " + in + " dim " + dim + " " + indexType + " " + reduce + " include_self " + include;
                                String args = dim + ", b, c, '" + reduce + "', include_self=" + py(include) + ")";
                                check(m, "index_reduce " + ctx, () -> t.indexReduce(dim, idx, source, reduce, include), "torch.index_reduce(a, " + args, t, idx, source);
                                check(m, "index_reduce_ " + ctx, () -> t.clone().indexReduce_(dim, idx, source, reduce, include), "a.clone().index_reduce_(" + args, t, idx, source);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void boolAndBadArgumentsAreRefusedAsInAten() {
        try (NDManager m = Torch.scope()) {
            Tensor b = Tensor.of(new boolean[] {true, false, true}, 3), i = Tensor.ofLongs(0, 0, 1), x = Tensor.of(1.0, 2, 3);
            Tensor bs = Tensor.of(new boolean[] {true, false, false, true, false, true}, 6), bi = Tensor.ofLongs(0, 0, 1, 1, 2, 2);
            for (String reduce : SCATTER_REDUCTIONS) {
                for (boolean include : new boolean[] {true, false}) {
                    check(m, "bool scatter_reduce " + reduce + " " + include, () -> b.scatterReduce(0, bi, bs, reduce, include),
                            "torch.scatter_reduce(a, 0, b, c, '" + reduce + "', include_self=" + py(include) + ")", b, bi, bs);
                }
            }
            check(m, "bool index_reduce", () -> b.indexReduce(0, i, b, "amax", true), "torch.index_reduce(a, 0, b, c, 'amax')", b, i, b);
            check(m, "unknown reduce", () -> x.scatterReduce(0, i, x, "median", true), "torch.scatter_reduce(a, 0, b, c, 'median')", x, i, x);
            check(m, "max, amax's alias", () -> x.scatterReduce(0, i, x, "max", false), "torch.scatter_reduce(a, 0, b, c, 'max', include_self=False)", x, i, x);
            check(m, "min, amin's alias", () -> x.scatterReduce(0, i, x, "min", false), "torch.scatter_reduce(a, 0, b, c, 'min', include_self=False)", x, i, x);
            check(m, "no alias for index_reduce", () -> x.indexReduce(0, i, x, "max", true), "torch.index_reduce(a, 0, b, c, 'max')", x, i, x);
            check(m, "sum is no index_reduce", () -> x.indexReduce(0, i, x, "sum", true), "torch.index_reduce(a, 0, b, c, 'sum')", x, i, x);
            check(m, "int32 scatter index", () -> x.scatterReduce(0, i.to(DType.INT32), x, "sum", true), "torch.scatter_reduce(a, 0, b, c, 'sum')", x, i.to(DType.INT32), x);
            check(m, "dtype mismatch", () -> x.scatterReduce(0, i, x.to(DType.FLOAT32), "sum", true), "torch.scatter_reduce(a, 0, b, c, 'sum')", x, i, x.to(DType.FLOAT32));
            check(m, "index count", () -> x.indexReduce(0, Tensor.ofLongs(0, 1), x, "prod", true), "torch.index_reduce(a, 0, b, c, 'prod')", x, Tensor.ofLongs(0, 1), x);
        }
        Tensor x = Tensor.of(1.0, 2, 3), before = x.clone();
        var e = assertThrows(IndexOutOfBoundsException.class, () -> x.scatterReduce_(0, Tensor.ofLongs(0, 3, 1), x, "sum", true));
        assertTrue(e.getMessage().contains("index 3 is out of bounds for dimension 0 with size 3"), e.getMessage());
        assertClose(x, before, "nothing written before the bad index is found");
        String aten = Torch.refusalText(assertThrows(RuntimeException.class, () -> Torch.call("torch.scatter_reduce(a, 0, b, a, 'sum')", x, Tensor.ofLongs(0, 3, 1))));
        assertTrue(aten.contains("index 3 is out of bounds for dimension 0 with size 3"), aten);
    }

    /** Gradients of self and src for one call, Ember's beside libtorch's torch.autograd.grad. */
    private static void checkGradients(NDManager m, String op, String torchOp, Tensor self, int dim, Tensor index, Tensor src, String reduce, boolean include, String ctx) {
        Tensor a = self.detach().requiresGrad(true), c = src.detach().requiresGrad(true);
        Tensor y = op.equals("scatter_reduce") ? a.scatterReduce(dim, index, c, reduce, include) : a.indexReduce(dim, index, c, reduce, include);
        Tensor go = Inputs.randn(new Random(ctx.hashCode()), DType.FLOAT64, y.shape());
        List<Tensor> got = Autograd.grad(List.of(y), List.of(a, c), List.of(go), false, false, false);
        NDList want = Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nc = c.detach().requires_grad_(True)\n"
                + "y = " + torchOp + "(a, " + dim + ", b, c, '" + reduce + "', include_self=" + py(include) + ")\n"
                + "go: List[Optional[Tensor]] = [d]\nreturn torch.autograd.grad([y], [a, c], go)", self, index, src, go);
        assertClose(got.get(0), want.get(0), ctx + " self's gradient");
        assertClose(got.get(1), want.get(1), ctx + " src's gradient");
    }

    @Test
    void scatterReduceGradientsMatchLibtorch() {
        Random rng = new Random(3);
        try (NDManager m = Torch.scope()) {
            // small integers, so amax/amin tie and prod meets zeros: one zero at a position, and two
            Tensor self = Inputs.randint(rng, DType.FLOAT64, -2, 3, 4, 5), src = Inputs.randint(rng, DType.FLOAT64, -2, 3, 6, 5);
            Tensor smooth = Inputs.randn(rng, DType.FLOAT64, 4, 5), smoothSrc = Inputs.randn(rng, DType.FLOAT64, 6, 5);
            Tensor index = Inputs.randint(rng, DType.INT64, 0, 3, 6, 5);
            for (String reduce : SCATTER_REDUCTIONS) {
                for (boolean include : new boolean[] {true, false}) {
                    String ctx = "scatter_reduce " + reduce + " include_self " + include;
                    checkGradients(m, "scatter_reduce", "torch.scatter_reduce", self, 0, index, src, reduce, include, ctx + " (ties and zeros)");
                    checkGradients(m, "scatter_reduce", "torch.scatter_reduce", smooth, 0, index, smoothSrc, reduce, include, ctx);
                }
            }
        }
    }

    @Test
    void indexReduceGradientsMatchLibtorch() {
        Random rng = new Random(4);
        try (NDManager m = Torch.scope()) {
            Tensor self = Inputs.randint(rng, DType.FLOAT64, -2, 3, 4, 5), src = Inputs.randint(rng, DType.FLOAT64, -2, 3, 4, 7);
            Tensor smooth = Inputs.randn(rng, DType.FLOAT64, 4, 5), smoothSrc = Inputs.randn(rng, DType.FLOAT64, 4, 7);
            Tensor index = Tensor.ofLongs(0, 2, 2, 4, 0, 2, 1);
            for (String reduce : INDEX_REDUCTIONS) {
                for (boolean include : new boolean[] {true, false}) {
                    String ctx = "index_reduce " + reduce + " include_self " + include;
                    checkGradients(m, "index_reduce", "torch.index_reduce", self, 1, index, src, reduce, include, ctx + " (ties and zeros)");
                    checkGradients(m, "index_reduce", "torch.index_reduce", smooth, 1, index, smoothSrc, reduce, include, ctx);
                }
            }
        }
    }

    static Tensor segmentMeans(Tensor x, Tensor index, Tensor values) {
        return x.scatterReduce(0, index, values, "mean", false).add(x.t().indexReduce(1, index.select(1, 0), values.t(), "amax", true).t().sum());
    }

    @Test
    void compiledMatchesEagerWithGradients() {
        Random rng = new Random(9);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 4, 3), values = Inputs.randn(rng, DType.FLOAT32, 6, 3);
        Tensor index = Inputs.randint(rng, DType.INT64, 0, 3, 6, 3);
        Fn3<Tensor, Tensor, Tensor, Tensor> f = Ember.compile(ScatterReduceTest::segmentMeans);
        Tensor xe = x.detach().requiresGrad(true), ve = values.detach().requiresGrad(true);
        Tensor xc = x.detach().requiresGrad(true), vc = values.detach().requiresGrad(true);
        Tensor eager = segmentMeans(xe, index, ve), compiled = f.apply(xc, index, vc);
        assertClose(compiled.detach(), eager.detach(), "compiled values");
        Tensor go = Inputs.randn(rng, DType.FLOAT32, eager.shape());
        eager.backward(go);
        compiled.backward(go);
        assertClose(xc.grad(), xe.grad(), "compiled gradient of x");
        assertClose(vc.grad(), ve.grad(), "compiled gradient of values");
        assertEquals(DType.FLOAT32, compiled.dtype());
    }
}
