package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert.Tolerance;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** mm, bmm, addmm, matmul and linear against libtorch: every rank pairing, broadcast batches, layouts, dtypes. */
class LinalgConformanceTest {
    private static final DType[] DTYPES = {DType.FLOAT32, DType.FLOAT64, DType.INT32, DType.INT64};

    /** Operand shape pairs covering every rank pairing of torch.matmul, broadcasting, size-1 and zero-size dims. */
    private static final List<int[][]> MATMUL_SHAPES = List.of(
            new int[][] {{5}, {5}},
            new int[][] {{3, 5}, {5}},
            new int[][] {{5}, {5, 4}},
            new int[][] {{3, 5}, {5, 4}},
            new int[][] {{2, 3, 5}, {5}},
            new int[][] {{5}, {2, 5, 4}},
            new int[][] {{2, 3, 5}, {5, 4}},
            new int[][] {{3, 5}, {2, 5, 4}},
            new int[][] {{2, 3, 5}, {2, 5, 4}},
            new int[][] {{2, 1, 3, 5}, {4, 5, 2}},
            new int[][] {{1, 3, 2, 5}, {2, 1, 5, 4}},
            new int[][] {{3, 1, 5}, {3, 5, 1}},
            new int[][] {{1, 5}, {5, 1}},
            new int[][] {{0, 5}, {5, 4}},
            new int[][] {{3, 0}, {0, 4}},
            new int[][] {{0, 3, 5}, {5, 4}},
            new int[][] {{1, 3, 5}, {0, 5, 4}},
            new int[][] {{0}, {0}});

    private static Tensor random(Random rng, DType dtype, int... shape) {
        return dtype.isFloatingPoint() ? Inputs.randn(rng, dtype, shape) : Inputs.randint(rng, dtype, -6, 7, shape);
    }

    @Test
    void matmulEveryRankLayoutAndDtype() {
        Random rng = new Random(10);
        try (NDManager m = Torch.scope()) {
            for (DType dtype : DTYPES) {
                for (int[][] s : MATMUL_SHAPES) {
                    Tensor a = random(rng, dtype, s[0]), b = random(rng, dtype, s[1]);
                    for (Inputs.Layout la : Inputs.layouts(a)) {
                        for (Inputs.Layout lb : Inputs.layouts(b)) {
                            assertClose(la.tensor().matmul(lb.tensor()), Torch.call(m, "torch.matmul(a, b)", la.tensor(), lb.tensor()),
                                    "matmul " + dtype + " " + la + " @ " + lb);
                        }
                    }
                }
            }
        }
    }

    @Test
    void matmulOfBroadcastAndExpandedOperands() {
        Random rng = new Random(11);
        try (NDManager m = Torch.scope()) {
            Tensor a = Inputs.randn(rng, DType.FLOAT32, 4, 1, 3, 5);
            Tensor b = Inputs.randn(rng, DType.FLOAT32, 1, 5, 2).expand(4, 6, 5, 2);
            assertClose(a.matmul(b), Torch.call(m, "torch.matmul(a, b)", a, b), "expanded batch");
            Tensor row = Inputs.randn(rng, DType.FLOAT64, 1, 5).expand(3, 5);
            Tensor col = Inputs.randn(rng, DType.FLOAT64, 5, 1).expand(5, 4);
            assertClose(row.matmul(col), Torch.call(m, "torch.matmul(a, b)", row, col), "stride-0 matrix dims");
            Tensor v = Inputs.randn(rng, DType.FLOAT64, 1).expand(5);
            assertClose(v.matmul(col), Torch.call(m, "torch.matmul(a, b)", v, col), "stride-0 vector");
            Tensor batches = Inputs.randn(rng, DType.FLOAT32, 3, 4, 5).transpose(0, 1);
            Tensor w = Inputs.randn(rng, DType.FLOAT32, 5, 6);
            assertClose(batches.matmul(w), Torch.call(m, "torch.matmul(a, b)", batches, w), "batches not foldable");
            Tensor sliced = Inputs.randn(rng, DType.FLOAT32, 2, 6, 9).slice(2, 1, 8, 2).slice(1, 0, 6, 2);
            Tensor w2 = Inputs.randn(rng, DType.FLOAT32, 4, 7).slice(1, 1, 7, 2);
            assertClose(sliced.matmul(w2), Torch.call(m, "torch.matmul(a, b)", sliced, w2), "sliced");
        }
    }

    @Test
    void largeProductsMatchAFloat64Reference() {
        Random rng = new Random(12);
        try (NDManager m = Torch.scope()) {
            Tensor a = Inputs.randn(rng, DType.FLOAT32, 300, 257), b = Inputs.randn(rng, DType.FLOAT32, 257, 190);
            Tolerance f32 = Tolerance.of(1e-5, 1e-4);
            assertClose(a.matmul(b), Torch.call(m, "torch.matmul(a.double(), b.double()).float()", a, b), "300x257x190", f32);
            assertClose(a.t().matmul(a), Torch.call(m, "torch.matmul(a.double().t(), a.double()).float()", a), "transposed left", f32);
            Tensor x = Inputs.randn(rng, DType.FLOAT32, 6, 40, 64), y = Inputs.randn(rng, DType.FLOAT32, 6, 64, 50);
            assertClose(x.bmm(y), Torch.call(m, "torch.bmm(a.double(), b.double()).float()", x, y), "small batched GEMMs side by side", f32);
            Tensor big = Inputs.randn(rng, DType.FLOAT32, 3, 128, 96), big2 = Inputs.randn(rng, DType.FLOAT32, 3, 96, 160);
            assertClose(big.bmm(big2), Torch.call(m, "torch.bmm(a.double(), b.double()).float()", big, big2), "large batched GEMMs", f32);
            // 100 rows, n*k = 8192: each product is cut into row bands of 32, 32, 32 and 4 spread across cores
            Tensor q = Inputs.randn(rng, DType.FLOAT32, 4, 100, 64), kt = Inputs.randn(rng, DType.FLOAT32, 4, 128, 64).transpose(1, 2);
            assertClose(q.bmm(kt), Torch.call(m, "torch.bmm(a.double(), b.double()).float()", q, kt), "batched GEMMs in row bands", f32);
            Tensor qt = Inputs.randn(rng, DType.FLOAT32, 4, 64, 100).transpose(1, 2);
            assertClose(qt.bmm(kt), Torch.call(m, "torch.bmm(a.double(), b.double()).float()", qt, kt), "row bands of a transposed left operand", f32);
            Tensor i = Inputs.randint(rng, DType.INT32, -50, 50, 70, 90), j = Inputs.randint(rng, DType.INT32, -50, 50, 90, 60);
            assertClose(i.matmul(j), Torch.call(m, "torch.matmul(a, b)", i, j), "int32 split across cores");
            Tensor d = Inputs.randn(rng, DType.FLOAT64, 2, 150, 70);
            assertClose(d.matmul(d.transpose(1, 2)), Torch.call(m, "torch.matmul(a, a.transpose(1, 2))", d), "float64 batched");
        }
    }

    @Test
    void mmAndBmm() {
        Random rng = new Random(13);
        try (NDManager m = Torch.scope()) {
            for (DType dtype : DTYPES) {
                Tensor a = random(rng, dtype, 4, 6), b = random(rng, dtype, 6, 3);
                for (Inputs.Layout la : Inputs.layouts(a)) {
                    for (Inputs.Layout lb : Inputs.layouts(b)) {
                        assertClose(la.tensor().mm(lb.tensor()), Torch.call(m, "torch.mm(a, b)", la.tensor(), lb.tensor()), "mm " + dtype + " " + la + " @ " + lb);
                    }
                }
                Tensor x = random(rng, dtype, 3, 4, 6), y = random(rng, dtype, 3, 6, 2);
                for (Inputs.Layout lx : Inputs.layouts(x)) {
                    for (Inputs.Layout ly : Inputs.layouts(y)) {
                        assertClose(lx.tensor().bmm(ly.tensor()), Torch.call(m, "torch.bmm(a, b)", lx.tensor(), ly.tensor()), "bmm " + dtype + " " + lx + " @ " + ly);
                    }
                }
                Tensor empty = random(rng, dtype, 0, 4, 6);
                assertClose(empty.bmm(random(rng, dtype, 0, 6, 2)), Torch.call(m, "torch.bmm(a, b)", empty, random(rng, dtype, 0, 6, 2)), "bmm empty " + dtype);
            }
        }
    }

    @Test
    void addmmWithBetaAndAlpha() {
        Random rng = new Random(14);
        try (NDManager m = Torch.scope()) {
            for (DType dtype : DTYPES) {
                Tensor a = random(rng, dtype, 4, 6), b = random(rng, dtype, 6, 3);
                for (int[] selfShape : new int[][] {{4, 3}, {3}, {1, 3}, {4, 1}, {}}) {
                    Tensor self = random(rng, dtype, selfShape);
                    for (Inputs.Layout ls : Inputs.layouts(self)) {
                        String ctx = "addmm " + dtype + " self " + ls;
                        assertClose(Tensor.addmm(ls.tensor(), a, b), Torch.call(m, "torch.addmm(a, b, c)", ls.tensor(), a, b), ctx);
                        if (dtype.isFloatingPoint()) {
                            assertClose(Tensor.addmm(ls.tensor(), a.t().contiguous().t(), b, 0.5, -2.0),
                                    Torch.call(m, "torch.addmm(a, b, c, beta=0.5, alpha=-2.0)", ls.tensor(), a, b), ctx + " beta/alpha");
                        } else {
                            assertClose(Tensor.addmm(ls.tensor(), a, b, 3, -2), Torch.call(m, "torch.addmm(a, b, c, beta=3, alpha=-2)", ls.tensor(), a, b), ctx + " beta/alpha");
                        }
                    }
                }
            }
            Tensor nan = Tensor.full(Double.NaN, 4, 3), a = Inputs.randn(rng, DType.FLOAT32, 4, 6), b = Inputs.randn(rng, DType.FLOAT32, 6, 3);
            assertClose(Tensor.addmm(nan, a, b, 0.0, 1.0), Torch.call(m, "torch.addmm(a, b, c, beta=0.0)", nan, a, b), "beta=0 ignores NaN in self");
        }
    }

    /**
     * The Torch.call spelling of argument {@code a} with {@code x}'s contiguity: the harness hands
     * libtorch contiguous copies, and linear's path (and so which biases it accepts) depends on it.
     */
    private static String sameContiguity(Tensor x) {
        return x.isContiguous() ? "a" : "torch.stack([a, a], -1).select(-1, 0)";
    }

    @Test
    void linearEveryInputRank() {
        Random rng = new Random(15);
        var linear = OpRegistry.get("aten.linear.default");
        try (NDManager m = Torch.scope()) {
            for (DType dtype : DTYPES) {
                Tensor w = random(rng, dtype, 4, 5), bias = random(rng, dtype, 4);
                for (int[] shape : new int[][] {{5}, {3, 5}, {2, 3, 5}, {2, 1, 3, 5}, {0, 5}}) {
                    Tensor x = random(rng, dtype, shape);
                    for (Inputs.Layout lx : Inputs.layouts(x)) {
                        String in = sameContiguity(lx.tensor());
                        for (Inputs.Layout lw : Inputs.layouts(w)) {
                            String ctx = "linear " + dtype + " " + lx + " w " + lw;
                            assertClose(linear.callTensor(lx.tensor(), lw.tensor()), Torch.call(m, "torch.linear(" + in + ", b)", lx.tensor(), lw.tensor()), ctx);
                            assertClose(linear.callTensor(lx.tensor(), lw.tensor(), bias), Torch.call(m, "torch.linear(" + in + ", b, c)", lx.tensor(), lw.tensor(), bias), ctx + " bias");
                        }
                    }
                }
            }
            Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 3, 5), w = Inputs.randn(rng, DType.FLOAT32, 4, 5), nc = Inputs.transposed(x);
            Tensor bias2d = Inputs.randn(rng, DType.FLOAT32, 3, 4), bias0d = Inputs.randn(rng, DType.FLOAT32), bias6 = Inputs.randn(rng, DType.FLOAT32, 6, 4);
            String ncx = sameContiguity(nc);
            assertClose(linear.callTensor(nc, w, bias2d), Torch.call(m, "torch.linear(" + ncx + ", b, c)", nc, w, bias2d), "linear: 2-d bias added to a non-contiguous input's product");
            assertClose(linear.callTensor(x, w, bias6), Torch.call(m, "torch.linear(a, b, c)", x, w, bias6), "linear: contiguous 3-d input flattened for addmm");
            assertClose(linear.callTensor(x, w, bias0d), Torch.call(m, "torch.linear(a, b, c)", x, w, bias0d), "linear 0-d bias");
            Tensor x4 = Inputs.randn(rng, DType.FLOAT32, 2, 2, 3, 5);
            assertClose(linear.callTensor(x4, w, bias2d), Torch.call(m, "torch.linear(a, b, c)", x4, w, bias2d), "linear: contiguous 4-d input, 2-d bias added after");
            Tensor bias64 = Inputs.randn(rng, DType.FLOAT64, 4);
            assertClose(linear.callTensor(nc, w, bias64), Torch.call(m, "torch.linear(" + ncx + ", b, c)", nc, w, bias64),
                    "linear: float64 bias added in place to a non-contiguous input's product");
            Tensor v = Inputs.randn(rng, DType.FLOAT32, 5);
            assertClose(linear.callTensor(x, v), Torch.call(m, "torch.linear(a, b)", x, v), "linear 1-d weight");
        }
    }

    @Test
    void resultsAreContiguousAndKeepTheInputDtype() {
        Random rng = new Random(16);
        Tensor a = Inputs.randn(rng, DType.FLOAT64, 2, 3, 4).transpose(1, 2);
        Tensor out = a.matmul(Inputs.randn(rng, DType.FLOAT64, 3, 5));
        assertTrue(out.isContiguous(), () -> "strides " + Arrays.toString(out.strides()));
        assertEquals(DType.FLOAT64, out.dtype());
    }
}
