package dev.ember.ops;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.GradCheck;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static dev.ember.ops.ScatterConformanceTest.refused;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * median (whole and along a dim), nanmedian, kthvalue and mode against libtorch: values over every
 * numeric dtype, shape and layout; indices exactly where libtorch's are determined (distinct values,
 * NaN, mode's slices of up to 16), and otherwise an index of the returned value; their gradients;
 * and under Ember.compile, eager's results in one graph.
 */
class OrderStatisticsTest {

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    static Stream<DType> numericDtypes() { return Arrays.stream(DType.values()).filter(d -> d != DType.BOOL); }

    static Stream<DType> floatDtypes() { return Stream.of(DType.FLOAT32, DType.FLOAT64); }

    /** Distinct values (a permutation), so that every statistic has one index. */
    static Tensor distinct(Random rng, DType d, int... shape) {
        int n = Arrays.stream(shape).reduce(1, (a, b) -> a * b);
        List<Double> v = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) v.add((double) i - n / 2);
        java.util.Collections.shuffle(v, rng);
        return Inputs.fromDoubles(v.stream().mapToDouble(Double::doubleValue).toArray(), d, shape);
    }

    /** Many ties: a few small integers. */
    static Tensor ties(Random rng, DType d, int... shape) { return Inputs.randint(rng, DType.INT64, -2, 3, shape).to(d); }

    /** The indices point at the values: {@code self.gather(dim, indices) == values}. */
    static void assertIndexOfValue(Tensor self, int dim, List<Tensor> got, boolean keepdim, String ctx) {
        Tensor idx = keepdim || self.dim() == 0 ? got.get(1) : got.get(1).unsqueeze(dim);
        Tensor at = self.dim() == 0 ? self : self.gather(dim, idx).reshape(got.get(0).shape());
        assertArrayEquals(got.get(0).toDoubleArray(), at.toDoubleArray(), 0, ctx + ": indices do not point at the values");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("numericDtypes")
    void wholeMedianMatchesLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 3);
        try (NDManager m = Torch.scope()) {
            for (int[] shape : Inputs.SHAPES) {
                if (!d.isFloatingPoint() && Arrays.stream(shape).anyMatch(s -> s == 0)) continue;   // libtorch: see badCalls
                Tensor x = ties(rng, d, shape);
                for (Inputs.Layout in : Inputs.layouts(x)) {
                    String ctx = d + " " + Arrays.toString(shape) + " " + in;
                    assertClose(in.tensor().median(), Torch.call(m, "torch.median(a)", in.tensor()), "median " + ctx);
                    assertClose(in.tensor().nanmedian(), Torch.call(m, "torch.nanmedian(a)", in.tensor()), "nanmedian " + ctx);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("numericDtypes")
    void alongADimMatchesLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 13);
        try (NDManager m = Torch.scope()) {
            for (int[] shape : List.of(new int[] {4, 7}, new int[] {3, 6, 5}, new int[] {9}, new int[] {}, new int[] {0, 3})) {
                Tensor x = distinct(rng, d, shape), tied = ties(rng, d, shape);
                for (Inputs.Layout in : Inputs.layouts(x)) {
                    for (int dim : shape.length == 0 ? new int[] {0, -1} : new int[] {0, -1}) {
                        if (shape.length > 0 && shape[dim < 0 ? dim + shape.length : dim] == 0) continue;
                        for (boolean keepdim : new boolean[] {false, true}) {
                            String ctx = d + " " + Arrays.toString(shape) + " " + in + " dim " + dim + " keepdim " + keepdim;
                            String args = "a, " + dim + ", " + (keepdim ? "True" : "False");
                            assertClose(in.tensor().median(dim, keepdim), Torch.callList(m, "torch.median(" + args + ")", in.tensor()), "median " + ctx);
                            assertClose(in.tensor().nanmedian(dim, keepdim), Torch.callList(m, "torch.nanmedian(" + args + ")", in.tensor()), "nanmedian " + ctx);
                            int size = shape.length == 0 ? 1 : shape[dim < 0 ? dim + shape.length : dim];
                            for (int k : new int[] {1, (size + 1) / 2, size}) {
                                assertClose(in.tensor().kthvalue(k, dim, keepdim), Torch.callList(m, "torch.kthvalue(a, " + k + ", " + dim + ", " + (keepdim ? "True" : "False") + ")", in.tensor()),
                                        "kthvalue " + k + " " + ctx);
                            }
                            // ties: libtorch's index is any of the equal values' (nth_element); the values are exact
                            Tensor t = in.tensor().dim() == tied.dim() ? tied : tied;
                            List<Tensor> med = t.median(dim, keepdim);
                            assertClose(med.get(0), Torch.callList(m, "torch.median(" + args + ")", t).get(0), "median ties " + ctx);
                            assertIndexOfValue(t, dim, med, keepdim, "median ties " + ctx);
                            List<Tensor> kth = t.kthvalue(size, dim, keepdim);
                            assertClose(kth.get(0), Torch.callList(m, "torch.kthvalue(a, " + size + ", " + dim + ", " + (keepdim ? "True" : "False") + ")", t).get(0), "kthvalue ties " + ctx);
                            assertIndexOfValue(t, dim, kth, keepdim, "kthvalue ties " + ctx);
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("floatDtypes")
    void nanPropagatesThroughMedianAndNanmedianSkipsIt(DType d) {
        double nan = Double.NaN;
        Tensor x = Inputs.fromDoubles(new double[] {
                3, nan, 1, 2, nan,      // NaN among numbers: median NaN at the first NaN (1); nanmedian 2
                nan, nan, nan, nan, nan, // all NaN
                5, 4, 9, -1, 0,          // none
                nan, 7, -2, 6, 1}, d, 4, 5);
        try (NDManager m = Torch.scope()) {
            for (Inputs.Layout in : Inputs.layouts(x)) {
                assertClose(in.tensor().median(1, false), Torch.callList(m, "torch.median(a, 1)", in.tensor()), "median " + in);
                // an all-NaN slice's index is where libtorch's nth_element leaves it (2 of 5); Ember's is 0
                List<Tensor> nanmedian = in.tensor().nanmedian(1, false);
                NDList want = Torch.callList(m, "torch.nanmedian(a, 1)", in.tensor());
                assertClose(nanmedian.get(0), want.get(0), "nanmedian " + in);
                assertArrayEquals(new long[] {3, 0, 1, 4}, nanmedian.get(1).toLongArray(), "nanmedian indices " + in);
                assertEquals(2, Torch.fromNd(want.get(1)).toLongArray()[1], "libtorch's index of the all-NaN slice");
                assertClose(in.tensor().kthvalue(5, 1, false), Torch.callList(m, "torch.kthvalue(a, 5, 1)", in.tensor()), "kthvalue " + in);
                assertClose(in.tensor().median(), Torch.call(m, "torch.median(a)", in.tensor()), "median all " + in);
                assertClose(in.tensor().nanmedian(), Torch.call(m, "torch.nanmedian(a)", in.tensor()), "nanmedian all " + in);
            }
            Tensor allNan = Inputs.fromDoubles(new double[] {nan, nan}, d, 2);
            assertClose(allNan.nanmedian(), Torch.call(m, "torch.nanmedian(a)", allNan), "nanmedian of NaNs");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("numericDtypes")
    void modeMatchesLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 23);
        try (NDManager m = Torch.scope()) {
            for (int[] shape : List.of(new int[] {5, 7}, new int[] {3, 4, 6}, new int[] {16}, new int[] {}, new int[] {0, 3})) {
                Tensor x = ties(rng, d, shape);
                for (Inputs.Layout in : Inputs.layouts(x)) {
                    for (int dim : new int[] {0, -1}) {
                        if (shape.length > 0 && shape[dim < 0 ? dim + shape.length : dim] == 0) continue;
                        for (boolean keepdim : new boolean[] {false, true}) {
                            String ctx = "mode " + d + " " + Arrays.toString(shape) + " " + in + " dim " + dim + " keepdim " + keepdim;
                            assertClose(in.tensor().mode(dim, keepdim), Torch.callList(m, "torch.mode(a, " + dim + ", " + (keepdim ? "True" : "False") + ")", in.tensor()), ctx);
                        }
                    }
                }
            }
            // beyond 16 elements libtorch's index is any occurrence (std::sort is not stable): the values agree
            Tensor big = ties(rng, d, 3, 50);
            List<Tensor> got = big.mode(1, false);
            NDList want = Torch.callList(m, "torch.mode(a, 1)", big);
            assertClose(got.get(0), want.get(0), "mode of 50");
            assertIndexOfValue(big, 1, got, false, "mode of 50");
        }
    }

    /** docs/tensors.md, "Training ops", the order statistics, as written there. */
    @Test
    void docsExample() {
        Tensor v = Tensor.of(new float[] {3, 1, 4, 1, 5, 9, 2, 6}, 2, 4);
        Tensor m = v.median();                              // 3: the lower of the two middle values (3, 4)
        List<Tensor> rowMedians = v.median(1, false);       // values [1, 5], indices [3, 0]
        List<Tensor> second = v.kthvalue(2, 1, false);      // values [1, 5], indices [3, 0]: the 2nd smallest
        List<Tensor> common = Tensor.ofLongs(2, 7, 7, 2, 3).mode(0, false);   // value 2 (ties: the smallest), index 3
        assertEquals(3.0, m.item());
        assertArrayEquals(new float[] {1, 5}, rowMedians.get(0).toFloatArray());
        assertArrayEquals(new long[] {3, 0}, rowMedians.get(1).toLongArray());
        assertArrayEquals(new float[] {1, 5}, second.get(0).toFloatArray());
        assertArrayEquals(new long[] {3, 0}, second.get(1).toLongArray());
        assertEquals(2L, common.get(0).longItem());
        assertEquals(3L, common.get(1).longItem());
    }

    @Test
    void badCallsFailLikeLibtorch() {
        Tensor x = Tensor.randn(3, 4);
        try (NDManager m = Torch.scope()) {
            refused(m, "k too large", () -> x.kthvalue(5, 1, false).getFirst(), "torch.kthvalue(a, 5, 1)", x);
            refused(m, "k zero", () -> x.kthvalue(0, 1, false).getFirst(), "torch.kthvalue(a, 0, 1)", x);
            refused(m, "dim", () -> x.median(2, false).getFirst(), "torch.median(a, 2)", x);
            Tensor empty = Tensor.zeros(0, 3);
            refused(m, "median of an empty dim", () -> empty.median(0, false).getFirst(), "torch.median(a, 0)", empty);
            refused(m, "nanmedian of an empty dim", () -> empty.nanmedian(0, false).getFirst(), "torch.nanmedian(a, 0)", empty);
            refused(m, "mode of an empty dim", () -> empty.mode(0, false).getFirst(), "torch.mode(a, 0)", empty);
            // no integers: libtorch's NaN converted to the integer type, its smallest value (x86's conversion of NaN)
            for (DType d : new DType[] {DType.INT64, DType.INT32}) {
                Tensor noInts = Tensor.zeros(d, 0);
                assertClose(noInts.median(), Torch.call(m, "torch.median(a)", noInts), "median of no " + d);
                assertClose(noInts.nanmedian(), Torch.call(m, "torch.nanmedian(a)", noInts), "nanmedian of no " + d);
            }
            Tensor bools = Tensor.of(new boolean[] {true, false, true}, 3);
            refused(m, "median of bools", bools::median, "torch.median(a)", bools);
            refused(m, "nanmedian of bools", bools::nanmedian, "torch.nanmedian(a)", bools);
            refused(m, "median of bools along a dim", () -> bools.median(0, false).getFirst(), "torch.median(a, 0)", bools);
            refused(m, "kthvalue of bools", () -> bools.kthvalue(1, 0, false).getFirst(), "torch.kthvalue(a, 1, 0)", bools);
            assertClose(bools.mode(0, false), Torch.callList(m, "torch.mode(a, 0)", bools), "mode of bools");
        }
    }

    @Test
    void gradientsGoToTheSelectedElement() {
        Tensor x = Tensor.randn(4, 5).to(DType.FLOAT64).requiresGrad(true);
        GradCheck.check(in -> in.get(0).median(1, false).get(0), x);
        GradCheck.check(in -> in.get(0).median(0, true).get(0), x);
        GradCheck.check(in -> in.get(0).nanmedian(1, false).get(0), x);
        GradCheck.check(in -> in.get(0).kthvalue(2, 0, false).get(0), x);
        GradCheck.check(in -> in.get(0).mode(1, false).get(0), x);
        GradCheck.check(in -> in.get(0).median(), x);
        GradCheck.check(in -> in.get(0).nanmedian(), x);
    }

    @Test
    void wholeMedianGradientIsSharedByTiesAsLibtorchsIs() {
        Tensor x = Tensor.of(new float[] {2, 1, 2, 3, 2, 5}, 2, 3);
        for (boolean nan : new boolean[] {false, true}) {
            Tensor in = nan ? x.maskedFill(Tensor.of(new boolean[] {false, false, false, true, false, true}, 2, 3), Double.NaN) : x;
            Tensor leaf = in.detach().requiresGrad(true);
            leaf.median().mul(3.0).backward();
            try (NDManager m = Torch.scope()) {
                Tensor want = Torch.fromNd(Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([torch.median(a) * 3.0], [a])", in).head());
                assertArrayEquals(want.toFloatArray(), leaf.grad().toFloatArray(), 1e-6f, "NaN " + nan);
            }
        }
    }

    // ------------------------------------------------------------------ under Ember.compile

    static Tensor statistics(Tensor x, Tensor y) {
        Tensor s = x.add(y);
        List<Tensor> med = s.median(1, false), kth = s.kthvalue(2, 0, true), mode = s.round().mode(1, false);
        Tensor nan = s.nanmedian(0, false).get(0);
        return Tensor.cat(List.of(med.get(0), med.get(1).to(DType.FLOAT32), kth.get(0).reshape(-1), kth.get(1).to(DType.FLOAT32).reshape(-1),
                mode.get(0), mode.get(1).to(DType.FLOAT32), nan, s.median().reshape(1), s.nanmedian().reshape(1)), 0);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerInOneGraph(String backend) {
        Tensor.manualSeed(9);
        Tensor x = Tensor.randn(4, 6), y = Tensor.randn(4, 6);
        ExplainOutput e = Ember.explain((Fn2<Tensor, Tensor, Tensor>) OrderStatisticsTest::statistics).with(x, y);
        assertEquals(0, e.graphBreakCount(), e.toString());
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(OrderStatisticsTest::statistics, Options.backend(backend).fullgraph(true));
        assertArrayEquals(statistics(x, y).toFloatArray(), f.apply(x, y).toFloatArray(), 0f, backend);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledGradientsMatchEager(String backend) {
        Tensor.manualSeed(10);
        Tensor x = Tensor.randn(4, 6).to(DType.FLOAT64), y = Tensor.randn(4, 6).to(DType.FLOAT64);
        Tensor ex = x.requiresGrad(true), cx = x.detach().requiresGrad(true);
        Tensor weights = Tensor.randn(40).to(DType.FLOAT64);
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(OrderStatisticsTest::statistics, Options.backend(backend));
        Tensor want = statistics(ex, y), got = f.apply(cx, y);
        want.mul(weights.narrow(0, 0, want.numel())).sum().backward();
        got.mul(weights.narrow(0, 0, got.numel())).sum().backward();
        assertArrayEquals(ex.grad().toDoubleArray(), cx.grad().toDoubleArray(), 1e-12, backend);
    }
}
