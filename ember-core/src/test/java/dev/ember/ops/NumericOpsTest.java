package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.Autograd;
import dev.ember.nn.F;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;
import java.util.function.Function;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * deg2rad, rad2deg, float_power, ldexp, trapezoid, cumulative_trapezoid, cov, corrcoef, pdist,
 * hsplit/vsplit/dsplit, msort, diagflat and the new_* factories against libtorch: values over
 * dtypes and layouts, gradients, ATen's refusals, and compiled functions against eager.
 */
class NumericOpsTest {
    private final Random rng = new Random(5);

    @AfterEach
    void reset() { Ember.reset(); }

    private Tensor values(DType d, int... shape) {
        Tensor f = Inputs.randn(rng, DType.FLOAT32, shape);
        return d == DType.BOOL ? f.gt(0.0) : d.isFloatingPoint() ? f.to(d) : f.mul(5.0).to(d);
    }

    private static final DType[] ALL = {DType.FLOAT32, DType.FLOAT64, DType.INT32, DType.INT64, DType.BOOL};

    /** One unary call, Ember's and libtorch's spelling (a: the input), over every dtype and layout. */
    private void unary(String torch, Function<Tensor, Object> ember, DType[] dtypes, int[]... shapes) {
        try (NDManager m = Torch.scope()) {
            for (int[] shape : shapes) {
                for (DType d : dtypes) {
                    for (Inputs.Layout in : Inputs.layouts(values(d, shape))) {
                        Object got = ember.apply(in.tensor());
                        String what = torch + " " + d + " " + in;
                        if (got instanceof Tensor t) assertClose(t, Torch.call(m, torch, in.tensor()), what);
                        else {
                            var want = Torch.callList(m, torch, in.tensor());
                            List<?> parts = (List<?>) got;
                            assertEquals(want.size(), parts.size(), what);
                            for (int i = 0; i < parts.size(); i++) assertClose((Tensor) parts.get(i), want.get(i), what + " part " + i);
                        }
                    }
                }
            }
        }
    }

    @Test
    void anglesAndPowers() {
        unary("torch.deg2rad(a)", Tensor::deg2rad, ALL, new int[] {3, 4}, new int[0], new int[] {0, 2});
        unary("torch.rad2deg(a)", Tensor::rad2deg, ALL, new int[] {3, 4}, new int[0]);
        unary("a.clone().deg2rad_()", x -> x.clone().deg2rad_(), new DType[] {DType.FLOAT32, DType.FLOAT64}, new int[] {3, 4}, new int[0]);
        unary("a.clone().rad2deg_()", x -> x.clone().rad2deg_(), new DType[] {DType.FLOAT32, DType.FLOAT64}, new int[] {3, 4});
        try (NDManager m = Torch.scope()) {
            Tensor ints = Tensor.ofLongs(90, 180);
            ScatterConformanceTest.refused(m, "deg2rad_ on int64", () -> ints.clone().deg2rad_(), "a.clone().deg2rad_()", ints);
        }
        unary("torch.float_power(a, 2.5)", x -> x.floatPower(2.5), ALL, new int[] {3, 4}, new int[0]);
        unary("torch.float_power(a, 3)", x -> x.floatPower(3), ALL, new int[] {3, 4});
        unary("torch.float_power(1.5, a)", x -> Tensor.floatPower(1.5, x), ALL, new int[] {3, 4});
        try (NDManager m = Torch.scope()) {
            for (DType d : ALL) {
                for (DType e : new DType[] {DType.FLOAT32, DType.INT64, DType.INT32}) {
                    Tensor x = d == DType.BOOL ? values(d, 3, 4) : values(d, 3, 4).abs(), y = values(e, 4);
                    assertClose(x.floatPower(y), Torch.call(m, "torch.float_power(a, b)", x, y), "float_power " + d + " ^ " + e);
                    Tensor k = Inputs.randint(rng, e == DType.FLOAT32 ? DType.INT64 : e, -4, 5, 4);
                    assertClose(x.ldexp(k), Torch.call(m, "torch.ldexp(a, b)", x, k), "ldexp " + d + " by " + k.dtype());
                }
            }
            Tensor x = values(DType.FLOAT64, 2, 3), fe = values(DType.FLOAT32, 3);
            assertClose(x.ldexp(fe), Torch.call(m, "torch.ldexp(a, b)", x, fe), "ldexp by floats");
        }
    }

    @Test
    void trapezoidRules() {
        try (NDManager m = Torch.scope()) {
            for (DType d : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.INT32, DType.INT64}) {
                Tensor y = values(d, 3, 5);
                for (Inputs.Layout in : Inputs.layouts(y)) {
                    Tensor t = in.tensor();
                    String w = d + " " + in;
                    assertClose(Tensor.trapezoid(t), Torch.call(m, "torch.trapezoid(a)", t), "trapezoid " + w);
                    assertClose(Tensor.trapezoid(t, 0.5, 0), Torch.call(m, "torch.trapezoid(a, dx=0.5, dim=0)", t), "trapezoid dx " + w);
                    Tensor x1 = Tensor.of(new double[] {0, 0.5, 1.5, 3, 3.25}, 5).to(d.isFloatingPoint() ? d : DType.FLOAT32), xs = values(d, 3, 5);
                    assertClose(Tensor.trapezoid(t, x1, 1), Torch.call(m, "torch.trapezoid(a, b, dim=1)", t, x1), "trapezoid x 1-d " + w);
                    assertClose(Tensor.trapezoid(t, xs, -1), Torch.call(m, "torch.trapezoid(a, b)", t, xs), "trapezoid x same shape " + w);
                    Tensor row = values(d, 1, 5);
                    assertClose(Tensor.trapezoid(t, row, -1), Torch.call(m, "torch.trapezoid(a, b)", t, row), "trapezoid x broadcast " + w);
                    assertClose(Tensor.cumulativeTrapezoid(t), Torch.call(m, "torch.cumulative_trapezoid(a)", t), "cumulative " + w);
                    assertClose(Tensor.cumulativeTrapezoid(t, 2.0, 0), Torch.call(m, "torch.cumulative_trapezoid(a, dx=2.0, dim=0)", t), "cumulative dx " + w);
                    assertClose(Tensor.cumulativeTrapezoid(t, x1, 1), Torch.call(m, "torch.cumulative_trapezoid(a, b, dim=1)", t, x1), "cumulative x " + w);
                    assertClose(Tensor.cumulativeTrapezoid(t, xs, 1), Torch.call(m, "torch.cumulative_trapezoid(a, b, dim=1)", t, xs), "cumulative xs " + w);
                }
            }
            Tensor empty = values(DType.FLOAT32, 3, 0);
            assertClose(Tensor.trapezoid(empty), Torch.call(m, "torch.trapezoid(a)", empty), "no samples: zeros");
            assertClose(Tensor.cumulativeTrapezoid(empty), Torch.call(m, "torch.cumulative_trapezoid(a)", empty), "no samples");
            Tensor one = values(DType.FLOAT32, 4);
            assertClose(Tensor.trapezoid(one.narrow(0, 0, 1)), Torch.call(m, "torch.trapezoid(a)", one.narrow(0, 0, 1)), "one sample");
            Tensor y = Tensor.randn(3, 5), b = y.gt(0.0);
            ScatterConformanceTest.refused(m, "bool y", () -> Tensor.trapezoid(b), "torch.trapezoid(a)", b);
            ScatterConformanceTest.refused(m, "x count", () -> Tensor.trapezoid(y, Tensor.randn(4), -1), "torch.trapezoid(a, b)", y, Tensor.randn(4));
            ScatterConformanceTest.refused(m, "cumulative x count", () -> Tensor.cumulativeTrapezoid(y, Tensor.randn(4), -1), "torch.cumulative_trapezoid(a, b)", y, Tensor.randn(4));
        }
    }

    @Test
    void covarianceAndCorrelation() {
        try (NDManager m = Torch.scope()) {
            for (DType d : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.INT32, DType.INT64}) {
                for (int[] shape : List.of(new int[] {3, 6}, new int[] {6}, new int[] {1, 4}, new int[0])) {
                    for (Inputs.Layout in : Inputs.layouts(values(d, shape))) {
                        Tensor x = in.tensor();
                        String w = d + " " + in;
                        assertClose(x.cov(), Torch.call(m, "torch.cov(a)", x), "cov " + w);
                        assertClose(x.cov(0, null, null), Torch.call(m, "torch.cov(a, correction=0)", x), "cov correction 0 " + w);
                        if (x.dim() > 0) assertClose(x.corrcoef(), Torch.call(m, "torch.corrcoef(a)", x), "corrcoef " + w);
                    }
                }
            }
            Tensor x = values(DType.FLOAT64, 3, 5), f = Tensor.ofLongs(1, 3, 0, 2, 1), aw = Inputs.rand(rng, DType.FLOAT64, 5);
            assertClose(x.cov(1, f, null), Torch.call(m, "torch.cov(a, fweights=b)", x, f), "fweights");
            assertClose(x.cov(1, null, aw), Torch.call(m, "torch.cov(a, aweights=b)", x, aw), "aweights");
            assertClose(x.cov(2, f, aw), Torch.call(m, "torch.cov(a, correction=2, fweights=b, aweights=c)", x, f, aw), "both, correction 2");
            assertClose(x.cov(9, null, null), Torch.call(m, "torch.cov(a, correction=9)", x), "too few observations: divided by 0");
            Tensor three = Tensor.randn(2, 2, 2), neg = Tensor.ofLongs(1, -1, 1, 1, 1), x32 = x.to(DType.FLOAT32);
            ScatterConformanceTest.refused(m, "cov rank", () -> three.cov(), "torch.cov(a)", three);
            ScatterConformanceTest.refused(m, "corrcoef rank", () -> three.corrcoef(), "torch.corrcoef(a)", three);
            ScatterConformanceTest.refused(m, "negative fweights", () -> x32.cov(1, neg, null), "torch.cov(a, fweights=b)", x32, neg);
            ScatterConformanceTest.refused(m, "float fweights", () -> x32.cov(1, aw, null), "torch.cov(a, fweights=b)", x32, aw);
            ScatterConformanceTest.refused(m, "fweights count", () -> x32.cov(1, Tensor.ofLongs(1, 2), null), "torch.cov(a, fweights=b)", x32, Tensor.ofLongs(1, 2));
            ScatterConformanceTest.refused(m, "int aweights", () -> x32.cov(1, null, f), "torch.cov(a, aweights=b)", x32, f);
            Tensor zeros = Tensor.zeros(DType.INT64, 5);
            ScatterConformanceTest.refused(m, "zero weights", () -> x32.cov(1, zeros, null), "torch.cov(a, fweights=b)", x32, zeros);
            Tensor b = x.gt(0.0);
            ScatterConformanceTest.refused(m, "bool", () -> b.cov(), "torch.cov(a)", b);
        }
    }

    @Test
    void pairwiseDistancesOfRows() {
        try (NDManager m = Torch.scope()) {
            for (DType d : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
                for (int[] shape : List.of(new int[] {5, 3}, new int[] {1, 3}, new int[] {0, 3}, new int[] {4, 0})) {
                    for (Inputs.Layout in : Inputs.layouts(values(d, shape))) {
                        for (double p : new double[] {2, 1, 0.5, 3, 0, Double.POSITIVE_INFINITY}) {
                            assertClose(F.pdist(in.tensor(), p), Torch.call(m, "torch.pdist(a, b)", in.tensor(), p), "pdist p " + p + " " + d + " " + in);
                        }
                    }
                }
            }
            Tensor ints = Tensor.ofLongs(1, 2, 3, 4).reshape(2, 2), flat = Tensor.randn(4), x = Tensor.randn(3, 2);
            ScatterConformanceTest.refused(m, "pdist ints", () -> F.pdist(ints), "torch.pdist(a)", ints);
            ScatterConformanceTest.refused(m, "pdist 1-d", () -> F.pdist(flat), "torch.pdist(a)", flat);
            ScatterConformanceTest.refused(m, "pdist p", () -> F.pdist(x, -1), "torch.pdist(a, -1.0)", x);
        }
    }

    @Test
    void splitsSortsAndDiagonals() {
        unary("torch.hsplit(a, 2)", x -> x.hsplit(2), ALL, new int[] {3, 4}, new int[] {4}, new int[] {2, 6, 3});
        unary("torch.hsplit(a, [1, 3])", x -> x.hsplit(new int[] {1, 3}), ALL, new int[] {3, 4}, new int[] {5});
        unary("torch.vsplit(a, 3)", x -> x.vsplit(3), ALL, new int[] {6, 2}, new int[] {3, 2, 2});
        unary("torch.vsplit(a, [2, -1])", x -> x.vsplit(new int[] {2, -1}), ALL, new int[] {5, 2});
        unary("torch.dsplit(a, 2)", x -> x.dsplit(2), ALL, new int[] {2, 3, 4});
        unary("torch.dsplit(a, [1])", x -> x.dsplit(new int[] {1}), ALL, new int[] {2, 3, 4});
        unary("torch.msort(a)", Tensor::msort, ALL, new int[] {5, 3}, new int[] {6}, new int[0], new int[] {0, 2});
        unary("torch.diagflat(a)", Tensor::diagflat, ALL, new int[] {2, 2}, new int[] {3}, new int[0]);
        unary("torch.diagflat(a, 2)", x -> x.diagflat(2), ALL, new int[] {3});
        unary("torch.diagflat(a, -1)", x -> x.diagflat(-1), ALL, new int[] {2, 2});
        Tensor x = Tensor.randn(3, 4);
        List<Tensor> parts = x.hsplit(2);
        parts.getFirst().fill_(7.0);
        assertEquals(7.0, x.get(2, 1), "hsplit's pieces are views");
        try (NDManager m = Torch.scope()) {
            Tensor flat = Tensor.randn(4), odd = Tensor.randn(3, 5), zeroD = Tensor.scalar(1.0);
            ScatterConformanceTest.refused(m, "vsplit rank", () -> flat.vsplit(2).getFirst(), "torch.vsplit(a, 2)", flat);
            ScatterConformanceTest.refused(m, "dsplit rank", () -> odd.dsplit(2).getFirst(), "torch.dsplit(a, 2)", odd);
            ScatterConformanceTest.refused(m, "hsplit rank", () -> zeroD.hsplit(1).getFirst(), "torch.hsplit(a, 1)", zeroD);
            ScatterConformanceTest.refused(m, "hsplit divisible", () -> odd.hsplit(2).getFirst(), "torch.hsplit(a, 2)", odd);
        }
    }

    @Test
    void newFactoriesTakeThisDtype() {
        Tensor ints = Tensor.ofLongs(1, 2);
        assertClose(ints.newZeros(2, 3), Tensor.zeros(DType.INT64, 2, 3), "new_zeros");
        assertClose(ints.newOnes(3), Tensor.ones(DType.INT64, 3), "new_ones");
        assertClose(ints.newFull(new int[] {2}, 4), Tensor.full(DType.INT64, 4, 2), "new_full");
        Tensor e = Tensor.randn(2).to(DType.FLOAT64).newEmpty(4, 1);
        assertEquals(DType.FLOAT64, e.dtype());
        assertArrayEquals(new int[] {4, 1}, e.shape());
        Tensor like = Tensor.emptyLike(Tensor.zeros(DType.INT32, 3, 2));
        assertEquals(DType.INT32, like.dtype());
        assertArrayEquals(new int[] {3, 2}, like.shape());
    }

    @Test
    void gradientsMatchLibtorch() {
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 4, 5), k = Tensor.ofLongs(1, -2, 0, 3, 2), s = Inputs.randn(rng, DType.FLOAT64, 5).abs();
        Tensor grid = s.cumsum(0);
        // libtorch's arguments: a = x, b = k, c = the output's weights, d = grid, e = s
        List<Object[]> cases = List.of(
                new Object[] {"torch.deg2rad(a).sin()", (Function<Tensor, Tensor>) t -> t.deg2rad().sin()},
                new Object[] {"torch.rad2deg(a).sin()", (Function<Tensor, Tensor>) t -> t.rad2deg().sin()},
                new Object[] {"torch.float_power(a.abs() + 0.5, 1.7)", (Function<Tensor, Tensor>) t -> t.abs().add(0.5).floatPower(1.7)},
                new Object[] {"torch.float_power(1.3, a)", (Function<Tensor, Tensor>) t -> Tensor.floatPower(1.3, t)},
                new Object[] {"torch.ldexp(a, b)", (Function<Tensor, Tensor>) t -> t.ldexp(k)},
                new Object[] {"torch.trapezoid(a, d, dim=1)", (Function<Tensor, Tensor>) t -> Tensor.trapezoid(t, grid, 1)},
                new Object[] {"torch.trapezoid(a, dx=0.3, dim=0)", (Function<Tensor, Tensor>) t -> Tensor.trapezoid(t, 0.3, 0)},
                new Object[] {"torch.cumulative_trapezoid(a, d, dim=1)", (Function<Tensor, Tensor>) t -> Tensor.cumulativeTrapezoid(t, grid, 1)},
                new Object[] {"torch.cov(a, aweights=e)", (Function<Tensor, Tensor>) t -> t.cov(1, null, s)},
                new Object[] {"torch.corrcoef(a)", (Function<Tensor, Tensor>) Tensor::corrcoef},
                new Object[] {"torch.pdist(a)", (Function<Tensor, Tensor>) F::pdist},
                new Object[] {"torch.pdist(a, 1.5)", (Function<Tensor, Tensor>) t -> F.pdist(t, 1.5)},
                new Object[] {"torch.msort(a)", (Function<Tensor, Tensor>) Tensor::msort},
                new Object[] {"torch.diagflat(a, 1)", (Function<Tensor, Tensor>) t -> t.diagflat(1)});
        for (Object[] c : cases) {
            @SuppressWarnings("unchecked") Function<Tensor, Tensor> f = (Function<Tensor, Tensor>) c[1];
            Tensor xs = x.detach().requiresGrad(true);
            Tensor y = f.apply(xs);
            Tensor weights = Inputs.randn(rng, DType.FLOAT64, y.shape());
            Tensor got = Autograd.grad(List.of(y.mul(weights).sum()), List.of(xs), null, false, false, false).getFirst();
            String body = "a = a.detach().requires_grad_(True)\ny = " + c[0] + "\nreturn torch.autograd.grad([(y * c).sum()], [a])";
            try (NDManager m = Torch.scope()) {
                var want = Torch.callListWithGrad(m, body, x, k, weights, grid, s);
                assertClose(got, want.get(0), (String) c[0]);
            }
        }
    }

    @Test
    void crossWithoutADimTakesSelfsFirstDimOfSizeThree() {
        try (NDManager m = Torch.scope()) {
            for (int[][] shapes : new int[][][] {{{4, 3}, {4, 3}}, {{3, 3}, {3, 3}}, {{2, 3, 5}, {1, 3, 5}}, {{3, 1}, {3, 4}}}) {
                for (DType d : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.INT64}) {
                    Tensor a = values(d, shapes[0]), b = values(d, shapes[1]);
                    assertClose(a.cross(b), Torch.call(m, "torch.cross(a, b)", a, b), "cross " + d + " " + java.util.Arrays.deepToString(shapes));
                }
            }
            Tensor u = values(DType.FLOAT32, 4, 3), v = values(DType.FLOAT32, 4, 3);
            assertClose(dev.ember.tensor.Linalg.cross(u, v), Torch.call(m, "torch.linalg_cross(a, b)", u, v), "Linalg.cross");
            Tensor four = Tensor.randn(2, 4);
            ScatterConformanceTest.refused(m, "no size 3", () -> four.cross(four), "torch.cross(a, b)", four, four);
        }
        Tensor rotation = Tensor.of(new double[] {0, -Math.PI / 2, Math.PI / 2, 0}, 2, 2).matrixExp();   // docs/tensors.md: a quarter turn
        assertClose(rotation, Tensor.of(new double[] {0, -1, 1, 0}, 2, 2), "matrix_exp: a quarter turn", TorchAssert.Tolerance.of(1e-12, 1e-12));
    }

    /** docs/tensors.md, "numpy-style helpers", the example as written there. */
    @Test
    void docsExample() {
        Tensor x = Tensor.randn(4, 6), t = Tensor.arange(0, 6, 1).to(DType.FLOAT32);
        Tensor r = x.deg2rad(), d = r.rad2deg();
        Tensor p = x.abs().floatPower(1.5), q = Tensor.floatPower(2.0, x);
        Tensor s = x.ldexp(Tensor.ofLongs(3));
        Tensor area = Tensor.trapezoid(x, t, 1), run = Tensor.cumulativeTrapezoid(x, 0.5, 1);
        Tensor c = x.cov(), rho = x.corrcoef(), w = x.cov(0, Tensor.ofLongs(1, 2, 1, 1, 3, 1), null);
        Tensor dist = F.pdist(x);
        List<Tensor> halves = x.hsplit(2), rows = x.vsplit(new int[] {1, 3});
        Tensor sorted = x.msort(), m = Tensor.of(1f, 2f).diagflat(1);
        Tensor z = x.newZeros(2, 2), o = x.newOnes(3), f = x.newFull(new int[] {2}, 7), e = Tensor.emptyLike(x);
        assertClose(d, x, "deg2rad then rad2deg", TorchAssert.Tolerance.of(1e-5, 1e-5));
        assertEquals(DType.FLOAT64, p.dtype());
        assertClose(s, x.mul(8.0), "ldexp by 3");
        assertArrayEquals(new int[] {4}, area.shape());
        assertArrayEquals(new int[] {4, 5}, run.shape());
        assertArrayEquals(new int[] {4, 4}, c.shape());
        assertArrayEquals(new int[] {6}, dist.shape());
        assertEquals(2, halves.size());
        assertEquals(3, rows.size());
        assertClose(m, Tensor.of(new float[] {0, 1, 0, 0, 0, 2, 0, 0, 0}, 3, 3), "diagflat(1)");
        assertArrayEquals(new int[] {2}, f.shape());
    }

    static Tensor numerics(Tensor x, Tensor y) {
        Tensor a = x.deg2rad().add(x.rad2deg().mul(0.01)).add(x.abs().floatPower(1.5).to(DType.FLOAT32));
        Tensor b = Tensor.cumulativeTrapezoid(a, 0.5, 1).sum(1).add(Tensor.trapezoid(a, y, 1));
        Tensor c = a.cov().add(a.corrcoef()).add(F.pdist(a).sum()).add(a.msort().sum());
        return c.add(b.diagflat()).add(a.hsplit(2).get(1).sum()).add(x.ldexp(Tensor.ofLongs(2)).sum());
    }

    @Test
    void compiledGivesEagersValuesAndGradients() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 4, 6), y = Inputs.rand(rng, DType.FLOAT32, 6).cumsum(0);
        var compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) NumericOpsTest::numerics, Options.backend("inductor").fullgraph(true));
        assertClose(compiled.apply(x, y), numerics(x, y), "compiled", TorchAssert.Tolerance.of(1e-4, 1e-4));
        var training = Ember.compile((Fn2<Tensor, Tensor, Tensor>) NumericOpsTest::numerics, Options.backend("aot_eager").fullgraph(true));
        Tensor xe = x.detach().requiresGrad(true), xc = x.detach().requiresGrad(true);
        numerics(xe, y).sum().backward();
        training.apply(xc, y).sum().backward();
        assertClose(xc.grad(), xe.grad(), "x's gradient, compiled");
    }
}
