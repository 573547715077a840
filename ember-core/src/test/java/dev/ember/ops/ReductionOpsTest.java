package dev.ember.ops;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * sum, mean, amax, amin, var and std against libtorch: every shape of {@link Inputs#SHAPES} plus
 * shapes big enough for the SIMD, column-wise and parallel paths, every dim list (none, empty,
 * single, negative, pairs in reverse order, all), both keepdims, every dtype the op takes, and each
 * input in every layout (contiguous, transposed, reversed, strided) against one reference.
 */
class ReductionOpsTest {
    private static final DType[] ALL = DType.values();
    private static final DType[] FLOATS = {DType.FLOAT32, DType.FLOAT64};
    /** Shapes that reach the vector loops with tails, column-wise folding (>= 16 adjacent outputs) and both cores. */
    private static final List<int[]> BIG = List.of(new int[] {37, 45}, new int[] {3, 70, 33}, new int[] {160, 450});

    private static final OpOverload SUM = OpRegistry.get("aten.sum.dim_IntList");
    private static final OpOverload SUM_ALL = OpRegistry.get("aten.sum.default");
    private static final OpOverload MEAN = OpRegistry.get("aten.mean.dim");
    private static final OpOverload AMAX = OpRegistry.get("aten.amax.default");
    private static final OpOverload AMIN = OpRegistry.get("aten.amin.default");
    private static final OpOverload VAR = OpRegistry.get("aten.var.correction");
    private static final OpOverload STD = OpRegistry.get("aten.std.correction");

    /** None, [], each single dim (odd ones negative), each pair in reverse order with the later one negative, all dims. */
    static List<int[]> dimLists(int ndim) {
        List<int[]> out = new ArrayList<>();
        out.add(null);
        out.add(new int[0]);
        int n = Math.max(ndim, 1);
        for (int d = 0; d < n; d++) out.add(new int[] {d % 2 == 0 ? d : d - n});
        if (ndim == 0) out.add(new int[] {-1});
        for (int a = 0; a < ndim; a++) for (int b = a + 1; b < ndim; b++) out.add(new int[] {b - n, a});
        if (ndim >= 3) {
            int[] all = new int[ndim];
            for (int d = 0; d < ndim; d++) all[d] = d;
            out.add(all);
        }
        return out;
    }

    static Tensor values(Random rng, DType dtype, int[] shape) {
        return switch (dtype) {
            case FLOAT32, FLOAT64 -> Inputs.randn(rng, dtype, shape);
            case INT32, INT64 -> Inputs.randint(rng, dtype, -50, 50, shape);
            case BOOL -> Inputs.rand(rng, DType.BOOL, shape);
        };
    }

    private static List<int[]> shapes(boolean big) {
        List<int[]> s = new ArrayList<>(Inputs.SHAPES);
        if (big) s.addAll(BIG);
        return s;
    }

    /** For every shape, dim list and keepdim: one libtorch reference, checked against Ember on every layout. */
    private static void sweep(String name, DType[] dtypes, boolean big, String torchExpr,
                              BiFunction<Tensor, Object[], Tensor> ember, DimFilter skip) {
        Random rng = new Random(name.hashCode());
        try (NDManager m = Torch.scope()) {
            for (DType dtype : dtypes) {
                for (int[] shape : shapes(big && (dtype == DType.FLOAT32 || dtype == DType.INT64))) {
                    Tensor x = values(rng, dtype, shape);
                    List<Inputs.Layout> layouts = Inputs.layouts(x);
                    int choice = 0;
                    for (int[] dims : dimLists(shape.length)) {
                        if (skip != null && skip.skip(x, dims)) continue;
                        boolean keepdim = choice++ % 2 == 0;
                        String expr = torchExpr.replace("DIMS", dims == null ? "None" : "c");
                        NDArray expected = dims == null ? Torch.call(m, expr, x, keepdim) : Torch.call(m, expr, x, keepdim, dims);
                        for (Inputs.Layout in : layouts) {
                            assertClose(ember.apply(in.tensor(), new Object[] {dims, keepdim}), expected,
                                    name + " " + dtype + " dims=" + Arrays.toString(dims) + " keepdim=" + keepdim + " " + in);
                        }
                    }
                }
            }
        }
    }

    @FunctionalInterface
    interface DimFilter { boolean skip(Tensor x, int[] dims); }

    /** Reductions without identity cannot reduce nothing: those calls are errors, tested in ReductionErrorsTest. */
    private static boolean reducesNothing(Tensor x, int[] dims) {
        if (x.numel() > 0) return false;
        if (dims == null || dims.length == 0) return true;
        for (int d : dims) if (x.size(d) == 0) return true;
        return false;
    }

    @Test
    void sumMatchesLibtorch() {
        // float32 against a float64 sum: Ember accumulates in double, libtorch in float.
        sweep("sum", new DType[] {DType.FLOAT32}, true, "torch.sum(a.double(), DIMS, keepdim=b).float()",
                (t, a) -> SUM.callTensor(t, a[0], a[1]), null);
        sweep("sum", new DType[] {DType.FLOAT64, DType.INT32, DType.INT64, DType.BOOL}, true, "torch.sum(a, DIMS, keepdim=b)",
                (t, a) -> SUM.callTensor(t, a[0], a[1]), null);
    }

    @Test
    void sumWithDtypeConvertsTheInputFirst() {
        Random rng = new Random(1);
        Tensor f = Inputs.uniform(rng, DType.FLOAT32, -5, 5, 4, 6);
        Tensor i = Inputs.randint(rng, DType.INT32, -9, 9, 4, 6);
        Tensor b = Inputs.rand(rng, DType.BOOL, 4, 6);
        Tensor big = Tensor.of(new long[] {Long.MAX_VALUE, 1, Integer.MAX_VALUE, Integer.MAX_VALUE}, 2, 2);
        try (NDManager m = Torch.scope()) {
            Object[][] cases = {
                {f, DType.FLOAT64, "torch.float64"}, {f, DType.INT64, "torch.int64"}, {f, DType.INT32, "torch.int32"},
                {i, DType.FLOAT32, "torch.float32"}, {i, DType.INT32, "torch.int32"}, {b, DType.INT32, "torch.int32"},
                {b, DType.FLOAT64, "torch.float64"}, {b, DType.BOOL, "torch.bool"}, {big, DType.INT32, "torch.int32"},
                {big, DType.INT64, "torch.int64"},
            };
            for (Object[] c : cases) {
                Tensor x = (Tensor) c[0];
                DType d = (DType) c[1];
                for (Inputs.Layout in : Inputs.layouts(x)) {
                    String ctx = "sum " + x.dtype() + " dtype=" + d + " " + in;
                    assertClose(SUM_ALL.callTensor(in.tensor(), d), Torch.call(m, "torch.sum(a, dtype=" + c[2] + ")", x), ctx);
                    assertClose(SUM.callTensor(in.tensor(), new int[] {1}, true, d),
                            Torch.call(m, "torch.sum(a, [1], keepdim=True, dtype=" + c[2] + ")", x), ctx + " dim 1");
                    assertClose(SUM.callTensor(in.tensor(), new int[] {-2}, false, d),
                            Torch.call(m, "torch.sum(a, [-2], dtype=" + c[2] + ")", x), ctx + " dim -2");
                }
            }
        }
    }

    @Test
    void sumOfIntegersWrapsLikeInt64() {
        Tensor x = Inputs.specials(DType.INT64);
        assertClose(x.sum(), Torch.call("torch.sum(a)", x), "int64 specials");
        Tensor y = Inputs.specials(DType.INT32);
        assertClose(y.sum(), Torch.call("torch.sum(a)", y), "int32 specials sum to int64 without overflow");
    }

    @Test
    void floatSumOfAMillionElementsIsAccurate() {
        Random rng = new Random(7);
        double[] v = new double[1 << 20];
        for (int k = 0; k < v.length; k++) v[k] = 1000 + rng.nextGaussian();
        Tensor x = Inputs.fromDoubles(v, DType.FLOAT32, 1 << 10, 1 << 10);
        try (NDManager m = Torch.scope()) {
            assertClose(x.sum(), Torch.call(m, "torch.sum(a.double()).float()", x), "sum of 1M floats");
            assertClose(x.mean(), Torch.call(m, "torch.mean(a.double()).float()", x), "mean of 1M floats");
            assertClose(x.t().sum(), Torch.call(m, "torch.sum(a.double()).float()", x), "sum of 1M transposed floats");
            assertClose(x.var(), Torch.call(m, "torch.var(a.double()).float()", x), "var of 1M floats");
            assertClose(x.sum(0, false), Torch.call(m, "torch.sum(a.double(), 0).float()", x), "column sums");
            assertClose(x.sum(1, false), Torch.call(m, "torch.sum(a.double(), 1).float()", x), "row sums");
            Tensor flat = x.reshape(-1);
            assertClose(flat.amax(), Torch.call(m, "torch.amax(a)", x), "amax of 1M floats");
        }
    }

    @Test
    void meanMatchesLibtorch() {
        sweep("mean", new DType[] {DType.FLOAT32}, true, "torch.mean(a.double(), DIMS, keepdim=b).float()",
                (t, a) -> MEAN.callTensor(t, a[0], a[1]), null);
        sweep("mean", new DType[] {DType.FLOAT64}, true, "torch.mean(a, DIMS, keepdim=b)",
                (t, a) -> MEAN.callTensor(t, a[0], a[1]), null);
    }

    @Test
    void meanOfIntegersWithAFloatingDtype() {
        Tensor x = Inputs.randint(new Random(3), DType.INT64, -20, 20, 3, 5);
        assertClose(MEAN.callTensor(x, new int[] {1}, false, DType.FLOAT64), Torch.call("torch.mean(a, [1], dtype=torch.float64)", x), "mean int64 as float64");
        assertClose(OpRegistry.get("aten.mean.default").callTensor(x, DType.FLOAT32), Torch.call("torch.mean(a, dtype=torch.float32)", x), "mean int64 as float32");
    }

    @Test
    void amaxAndAminMatchLibtorch() {
        sweep("amax", ALL, true, "torch.amax(a, DIMS, keepdim=b)",
                (t, a) -> AMAX.callTensor(t, a[0] == null ? new int[0] : a[0], a[1]), ReductionOpsTest::reducesNothingOrNone);
        sweep("amin", ALL, true, "torch.amin(a, DIMS, keepdim=b)",
                (t, a) -> AMIN.callTensor(t, a[0] == null ? new int[0] : a[0], a[1]), ReductionOpsTest::reducesNothingOrNone);
    }

    /** amax's dim is a plain int[] (no None); the empty list stands for all dims. */
    private static boolean reducesNothingOrNone(Tensor x, int[] dims) {
        return dims == null || reducesNothing(x, dims);
    }

    @Test
    void amaxAndAminPropagateNan() {
        for (DType d : FLOATS) {
            Tensor x = Inputs.specials(d).reshape(1, 13).expand(2, 13);
            Tensor noNan = Inputs.fromDoubles(new double[] {1, Double.NEGATIVE_INFINITY, -0.0, 0.0, 3}, d, 5);
            for (Tensor t : List.of(x, x.t(), noNan)) {
                assertClose(t.amax(), Torch.call("torch.amax(a)", t), "amax " + d + " " + t.describe());
                assertClose(t.amin(), Torch.call("torch.amin(a)", t), "amin " + d);
                assertClose(t.amax(-1, true), Torch.call("torch.amax(a, -1, True)", t), "amax dim -1 " + d);
                assertClose(t.amin(0, false), Torch.call("torch.amin(a, 0)", t), "amin dim 0 " + d);
            }
        }
    }

    @Test
    void varAndStdMatchLibtorch() {
        for (String op : List.of("var", "std")) {
            OpOverload ember = op.equals("var") ? VAR : STD;
            // correction: default (1), 0, fractional; too large a correction is tested below
            sweep(op, new DType[] {DType.FLOAT32}, true, "torch." + op + "(a.double(), DIMS, keepdim=b).float()",
                    (t, a) -> ember.callTensor(t, a[0], null, a[1]), (x, dims) -> noDegreesOfFreedom(x, dims, 1));
            sweep(op, FLOATS, false, "torch." + op + "(a, DIMS, correction=0, keepdim=b)",
                    (t, a) -> ember.callTensor(t, a[0], 0L, a[1]), (x, dims) -> noDegreesOfFreedom(x, dims, 0));
            sweep(op, new DType[] {DType.FLOAT64}, true, "torch." + op + "(a, DIMS, correction=2.5, keepdim=b)",
                    (t, a) -> ember.callTensor(t, a[0], 2.5, a[1]), (x, dims) -> noDegreesOfFreedom(x, dims, 2.5));
        }
    }

    @Test
    void expandedInputsFoldTheirRepeatedElements() {
        Tensor row = Tensor.of(new float[] {1.5f, -2f, 3f, 0.25f}, 1, 4).expand(40, 4);   // stride 0 along dim 0
        Tensor col = Tensor.of(new float[] {1.5f, -2f, 3f}, 3, 1).expand(3, 50);          // stride 0 along dim 1
        try (NDManager m = Torch.scope()) {
            for (Tensor x : List.of(row, col)) {
                Tensor dense = x.contiguous();
                String ctx = "expanded " + x.describe() + " strides " + Arrays.toString(x.strides());
                assertClose(x.sum(), Torch.call(m, "torch.sum(a)", dense), ctx + " sum");
                assertClose(x.sum(0, false), Torch.call(m, "torch.sum(a, [0])", dense), ctx + " sum 0");
                assertClose(x.mean(1, true), Torch.call(m, "torch.mean(a, [1], True)", dense), ctx + " mean 1");
                assertClose(x.amax(0, false), Torch.call(m, "torch.amax(a, [0])", dense), ctx + " amax 0");
                assertClose(x.var(new int[] {0}, 0, false), Torch.call(m, "torch.var(a.double(), [0], correction=0).float()", dense), ctx + " var 0");
                assertClose(x.argmax(), Torch.call(m, "torch.argmax(a)", dense), ctx + " argmax");
                assertClose(x.argmin(1, false), Torch.call(m, "torch.argmin(a, 1)", dense), ctx + " argmin 1");
                assertClose(x.softmax(0), Torch.call(m, "torch.softmax(a, 0)", dense), ctx + " softmax 0");
            }
        }
    }

    /**
     * libtorch warns on every such call (and on every empty input);
     * {@link #varianceWithoutDegreesOfFreedomIsInfOrNan} covers those cases once.
     */
    private static boolean noDegreesOfFreedom(Tensor x, int[] dims, double correction) {
        if (x.numel() == 0) return true;
        long count = 1;
        if (dims == null || dims.length == 0) count = x.numel();
        else if (x.dim() > 0) for (int d : dims) count *= x.size(d);
        return count - correction <= 0;
    }

    @Test
    void varianceWithoutDegreesOfFreedomIsInfOrNan() {
        Tensor x = Tensor.of(new double[] {1, 2, 4, 1, 2, 4}, 2, 3);
        Tensor flat = Tensor.of(new double[] {3, 3, 3}, 3);
        try (NDManager m = Torch.scope()) {
            assertClose(x.var(new int[] {0}, 2, false), Torch.call(m, "torch.var(a, [0], correction=2)", x), "dof 0, spread: inf");
            assertClose(x.std(new int[] {1}, 7, true), Torch.call(m, "torch.std(a, [1], correction=7, keepdim=True)", x), "dof < 0: inf");
            assertClose(flat.var(new int[] {0}, 3, false), Torch.call(m, "torch.var(a, [0], correction=3)", flat), "dof 0, no spread: nan");
            assertClose(Tensor.scalar(2.0).var(), Torch.call(m, "torch.var(a)", Tensor.scalar(2.0)), "one element: nan");
            Tensor empty = Tensor.zeros(DType.FLOAT64, 3, 0);
            assertClose(empty.std(1, false), Torch.call(m, "torch.std(a, [1])", empty), "no elements: nan");
            assertClose(empty.var(new int[] {1}, -1, true), Torch.call(m, "torch.var(a, [1], correction=-1, keepdim=True)", empty), "no elements, negative correction: nan");
        }
    }

    @Test
    void tensorApiReachesTheOps() {
        Tensor x = Tensor.of(new double[] {1, 2, 3, 4, 5, 6}, 2, 3);
        assertArrayEquals(new double[] {21}, x.sum().toDoubleArray());
        assertArrayEquals(new double[] {6, 15}, x.sum(1, false).toDoubleArray());
        assertArrayEquals(new int[] {1, 3}, x.sum(new int[] {0}, true).shape());
        assertArrayEquals(new double[] {2.5, 3.5, 4.5}, x.mean(0, false).toDoubleArray());
        assertArrayEquals(new double[] {3.5}, x.mean(new int[] {0, 1}, false).toDoubleArray());
        assertArrayEquals(new double[] {3, 6}, x.amax(1, false).toDoubleArray());
        assertArrayEquals(new double[] {1}, x.amin(new int[] {}, false).toDoubleArray());
        assertArrayEquals(new double[] {3.5}, x.var().toDoubleArray());
        assertArrayEquals(new double[] {4.5, 4.5, 4.5}, x.var(0, false).toDoubleArray());
        assertArrayEquals(new double[] {2.25, 2.25, 2.25}, x.var(new int[] {0}, 0, false).toDoubleArray());
        assertArrayEquals(new double[] {1.5, 1.5, 1.5}, x.std(new int[] {0}, 0, false).toDoubleArray());
        assertEquals(1.0, x.std(1, false).get(0), 1e-12);
    }

    @Test
    void reductionsAreTaggedAndRunOnFakeTensors() {
        for (String name : List.of("sum.default", "sum.dim_IntList", "mean.default", "mean.dim", "amax.default", "amin.default",
                "argmax.default", "argmin.default", "var.correction", "std.correction")) {
            assertTrue(OpRegistry.get("aten." + name).hasTag(Tag.REDUCTION), name);
        }
        Tensor fake = new FakeTensor(TensorMeta.contiguous(DType.INT32, 2, 3, 4));
        Tensor s = SUM.callTensor(fake, new int[] {-1, 0}, true);
        assertTrue(s.isFake());
        assertEquals(TensorMeta.contiguous(DType.INT64, 1, 3, 1), s.meta());
        assertEquals(TensorMeta.contiguous(DType.INT64, 2, 4), fake.argmax(1, false).meta());
        Tensor f = new FakeTensor(TensorMeta.contiguous(DType.FLOAT32, 2, 3));
        assertEquals(TensorMeta.contiguous(DType.FLOAT32), f.var().meta());
        assertEquals(TensorMeta.contiguous(DType.FLOAT32, 2, 3), f.softmax(0).meta());
    }
}
