package dev.ember.ops;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.autograd.Autograd;
import dev.ember.autograd.GradCheck;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The everyday reductions and products (aminmax, renorm, take, addr, addbmm, quantile,
 * nanquantile) against libtorch over dtypes, dims, keepdim, NaN, 0-d and empty inputs and
 * non-contiguous layouts; ATen's refusals message for message; gradients against libtorch's and
 * finite differences; Ember.compile giving eager's values and gradients in one graph.
 */
class EverydayReductionOpsTest {

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    private static void sameRefusal(Class<? extends Throwable> type, String words, Executable ember, String torchExpr, Object... args) {
        Throwable e = assertThrows(type, ember, words);
        String torch = assertThrows(RuntimeException.class, () -> Torch.call(torchExpr, args), torchExpr).getMessage();
        assertTrue(e.getMessage().contains(words), "Ember: " + e.getMessage());
        assertTrue(torch.contains(words), "libtorch: " + torch);
    }

    /** Ember's gradient of {@code op(x)} for a seeded upstream gradient against libtorch's of {@code torchExpr} (in {@code a}, with {@code b} constant). */
    private static void gradientMatches(String torchExpr, UnaryOperator<Tensor> op, Tensor x, Tensor b, String what) {
        Tensor leaf = x.detach().requiresGrad(true);
        Tensor y = op.apply(leaf);
        Tensor go = Inputs.randn(new Random(1), y.dtype(), y.shape());
        Tensor got = Autograd.grad(List.of(y), List.of(leaf), List.of(go), false, false, false).get(0);
        try (NDManager m = Torch.scope()) {
            NDList want = Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\ny = " + torchExpr
                    + "\ngo: List[Optional[Tensor]] = [c]\nreturn torch.autograd.grad([y], [a], go)", x, b, go);
            assertClose(got, want.get(0), what + " gradient");
        }
    }

    @Test
    void aminmaxMatchesLibtorch() {
        Random rng = new Random(1);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.INT32, DType.BOOL)) {
            for (int[] shape : List.of(new int[0], new int[] {7}, new int[] {3, 4}, new int[] {2, 3, 4})) {
                for (Inputs.Layout in : Inputs.layouts(CompositeShapeOpsTest.sample(rng, d, shape))) {
                    Tensor x = in.tensor();
                    String what = d + " " + Arrays.toString(shape) + " " + in;
                    assertClose(x.aminmax(), Torch.callList("torch.aminmax(a)", x), "aminmax " + what);
                    assertClose(ReductionOps.AMINMAX.callList(x, null, true), Torch.callList("torch.aminmax(a, keepdim=True)", x), "aminmax keepdim " + what);
                    for (int dim = -Math.max(shape.length, 1); dim < Math.max(shape.length, 1); dim++) {
                        for (boolean keep : new boolean[] {false, true}) {
                            assertClose(x.aminmax(dim, keep), Torch.callList("torch.aminmax(a, dim=" + dim + ", keepdim=" + (keep ? "True" : "False") + ")", x),
                                    "aminmax dim " + dim + " keepdim " + keep + " " + what);
                        }
                    }
                }
            }
        }
        Tensor s = Inputs.specials(DType.FLOAT32).reshape(1, 13);
        assertClose(s.aminmax(1, false), Torch.callList("torch.aminmax(a, dim=1)", s), "NaN propagates");
        Tensor empty = Tensor.zeros(0, 3);
        assertClose(empty.aminmax(1, false), Torch.callList("torch.aminmax(a, dim=1)", empty), "empty slices, nonempty dim");
        sameRefusal(IllegalArgumentException.class, "cannot compute aminmax over an empty dimension as the operation has no identity", empty::aminmax, "torch.aminmax(a)", empty);
        sameRefusal(IllegalArgumentException.class, "Expected reduction dim 0 to have non-zero size", () -> empty.aminmax(0, false), "torch.aminmax(a, dim=0)", empty);
    }

    @Test
    void renormMatchesLibtorch() {
        Random rng = new Random(2);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            for (int[] shape : List.of(new int[] {4, 5}, new int[] {2, 3, 4}, new int[] {3, 0})) {
                for (Inputs.Layout in : Inputs.layouts(Inputs.randn(rng, d, shape))) {
                    Tensor x = in.tensor();
                    // the inf norm of an empty slice has no identity: libtorch refuses it as Ember does
                    for (double p : x.numel() == 0 ? new double[] {1, 2, 3.5} : new double[] {1, 2, 3.5, Double.POSITIVE_INFINITY}) {
                        for (int dim : new int[] {0, -1}) {
                            for (double maxnorm : new double[] {0.0, 0.5, 2.0, 100}) {
                                assertClose(x.renorm(p, dim, maxnorm), Torch.call("torch.renorm(a, b, " + dim + ", c)", x, p, maxnorm),
                                        "renorm p " + p + " dim " + dim + " maxnorm " + maxnorm + " " + d + " " + Arrays.toString(shape) + " " + in);
                            }
                        }
                    }
                }
            }
        }
        Tensor v = Tensor.randn(4), x = Tensor.randn(3, 3), i = Tensor.ofLongs(1, 2, 3, 4).reshape(2, 2);
        sameRefusal(IllegalArgumentException.class, "renorm: input needs at least 2 dimensions, got 1 dimensions", () -> v.renorm(2, 0, 1), "torch.renorm(a, 2.0, 0, 1.0)", v);
        sameRefusal(IllegalArgumentException.class, "renorm: non-positive-norm not supported", () -> x.renorm(0, 0, 1), "torch.renorm(a, 0.0, 0, 1.0)", x);
        sameRefusal(IllegalArgumentException.class, "renorm: expected maxnorm to be >= 0 but got -1", () -> x.renorm(2, 0, -1), "torch.renorm(a, 2.0, 0, -1.0)", x);
        sameRefusal(IllegalArgumentException.class, "Expected a floating point or complex tensor as input. Got Long", () -> i.renorm(2, 0, 1), "torch.renorm(a, 2.0, 0, 1.0)", i);
    }

    @Test
    void takeMatchesLibtorch() {
        Random rng = new Random(3);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.INT32, DType.BOOL)) {
            for (int[] shape : List.of(new int[0], new int[] {7}, new int[] {3, 4}, new int[] {2, 3, 4})) {
                for (Inputs.Layout in : Inputs.layouts(CompositeShapeOpsTest.sample(rng, d, shape))) {
                    Tensor x = in.tensor();
                    int n = x.numel();
                    for (int[] ishape : List.of(new int[0], new int[] {5}, new int[] {2, 3}, new int[] {0})) {
                        Tensor index = Inputs.randint(rng, DType.INT64, -n, n, ishape);
                        assertClose(x.take(index), Torch.call("torch.take(a, b)", x, index), "take " + Arrays.toString(ishape) + " of " + d + " " + Arrays.toString(shape) + " " + in);
                    }
                }
            }
        }
        Tensor x = Tensor.randn(2, 3), empty = Tensor.zeros(0);
        Tensor far = Tensor.ofLongs(0, 6), farNegative = Tensor.ofLongs(-7), ints = Tensor.of(new int[] {0, 1}, 2), none = Tensor.zeros(DType.INT64, 0);
        assertClose(empty.take(none), Torch.call("torch.take(a, b)", empty, none), "empty from empty");
        sameRefusal(IndexOutOfBoundsException.class, "out of range: tried to access index 6 on a tensor of 6 elements.", () -> x.take(far), "torch.take(a, b)", x, far);
        sameRefusal(IndexOutOfBoundsException.class, "out of range: tried to access index -7 on a tensor of 6 elements.", () -> x.take(farNegative), "torch.take(a, b)", x, farNegative);
        sameRefusal(IllegalArgumentException.class, "take(): Expected a long tensor for index, but got Int", () -> x.take(ints), "torch.take(a, b)", x, ints);
        sameRefusal(IndexOutOfBoundsException.class, "take(): tried to take from an empty tensor", () -> empty.take(far), "torch.take(a, b)", empty, far);
    }

    @Test
    void addrAndAddbmmMatchLibtorch() {
        Random rng = new Random(4);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.INT32)) {
            Tensor v1 = CompositeShapeOpsTest.sample(rng, d, 3), v2 = CompositeShapeOpsTest.sample(rng, d, 4);
            for (int[] shape : List.of(new int[] {3, 4}, new int[] {4}, new int[0], new int[] {3, 1})) {
                Tensor self = CompositeShapeOpsTest.sample(rng, d, shape);
                String what = d + " self " + Arrays.toString(shape);
                assertClose(self.addr(v1, v2), Torch.call("torch.addr(a, b, c)", self, v1, v2), "addr " + what);
                if (d.isFloatingPoint()) {
                    assertClose(self.addr(v1, v2, 0.5, -2.0), Torch.call("torch.addr(a, b, c, beta=0.5, alpha=-2.0)", self, v1, v2), "addr scaled " + what);
                } else {
                    assertClose(LinalgOps.ADDR.callTensor(self, v1, v2, 3L, -2L), Torch.call("torch.addr(a, b, c, beta=3, alpha=-2)", self, v1, v2), "addr scaled " + what);
                }
            }
            Tensor b1 = CompositeShapeOpsTest.sample(rng, d, 2, 3, 5), b2 = CompositeShapeOpsTest.sample(rng, d, 2, 5, 4), self = CompositeShapeOpsTest.sample(rng, d, 3, 4);
            assertClose(self.addbmm(b1, b2), Torch.call("torch.addbmm(a, b, c)", self, b1, b2), "addbmm " + d);
            if (d.isFloatingPoint()) {
                assertClose(self.narrow(0, 0, 1).addbmm(Inputs.nonContiguous(b1), b2, 2.0, 0.5),
                        Torch.call("torch.addbmm(a, b, c, beta=2.0, alpha=0.5)", self.narrow(0, 0, 1), Inputs.nonContiguous(b1), b2), "addbmm broadcast, scaled " + d);
                Tensor none1 = Tensor.zeros(d, 0, 3, 5), none2 = Tensor.zeros(d, 0, 5, 4);
                assertClose(self.addbmm(none1, none2), Torch.call("torch.addbmm(a, b, c)", self, none1, none2), "addbmm of no batches " + d);
            }
        }
        Tensor nan = Tensor.full(Double.NaN, 3, 4), v1 = Tensor.randn(3), v2 = Tensor.randn(4);
        assertClose(nan.addr(v1, v2, 0.0, 1.5), Torch.call("torch.addr(a, b, c, beta=0.0, alpha=1.5)", nan, v1, v2), "beta 0: self's NaN is not read");
        Tensor nan64 = nan.to(DType.FLOAT64);
        assertClose(nan64.addr(v1, v2, 0.0, 1.0), Torch.call("torch.addr(a, b, c, beta=0.0)", nan64, v1, v2), "beta 0: self's dtype still promotes");
        Tensor i1 = Tensor.ofLongs(1, 2, 3);
        assertClose(Tensor.zeros(3, 3).addr(i1, v1), Torch.call("torch.addr(a, b, c)", Tensor.zeros(3, 3), i1, v1), "int64 with float32");
        Tensor nanB = Tensor.full(Double.NaN, 3, 4), b1 = Tensor.randn(2, 3, 5), b2 = Tensor.randn(2, 5, 4);
        assertClose(nanB.addbmm(b1, b2, 0.0, 1.0), Torch.call("torch.addbmm(a, b, c, beta=0.0)", nanB, b1, b2), "addbmm beta 0");

        Tensor m = Tensor.randn(3, 4);
        sameRefusal(IllegalArgumentException.class, "addr: Expected 1-D argument vec1, but got 2-D", () -> m.addr(m, v2), "torch.addr(a, b, c)", m, m, v2);
        sameRefusal(IllegalArgumentException.class, "addr: Expected 1-D argument vec2, but got 2-D", () -> m.addr(v1, m), "torch.addr(a, b, c)", m, v1, m);
        Tensor b3 = Tensor.randn(3, 5, 4), b4 = Tensor.randn(2, 4, 4);
        Tensor flat = Tensor.randn(5, 3);
        sameRefusal(IllegalArgumentException.class, "batch1 must be a 3D tensor", () -> m.addbmm(flat, b2), "torch.addbmm(a, b, c)", m, flat, b2);
        Tensor wide = Tensor.randn(5, 4);
        sameRefusal(IllegalArgumentException.class, "The expanded size of the tensor (3) must match the existing size (5) at non-singleton dimension 0",
                () -> wide.addbmm(b1, b2), "torch.addbmm(a, b, c)", wide, b1, b2);
        sameRefusal(IllegalArgumentException.class, "batch1 and batch2 must have same number of batches, got 2 and 3", () -> m.addbmm(b1, b3), "torch.addbmm(a, b, c)", m, b1, b3);
        sameRefusal(IllegalArgumentException.class, "Incompatible matrix sizes for bmm (3x5 and 4x4)", () -> m.addbmm(b1, b4), "torch.addbmm(a, b, c)", m, b1, b4);
    }

    @Test
    void quantileMatchesLibtorch() {
        Random rng = new Random(5);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor qs = Tensor.of(0.0, 0.1, 0.25, 0.5, 0.77, 1.0).to(d), q0 = Tensor.scalar(0.3).to(d);
            for (int[] shape : List.of(new int[0], new int[] {1}, new int[] {7}, new int[] {3, 4}, new int[] {2, 3, 5})) {
                Tensor base = Inputs.randn(rng, d, shape);
                if (base.numel() > 4) base = withRepeatsAndNan(base);
                for (Inputs.Layout in : Inputs.layouts(base)) {
                    Tensor x = in.tensor();
                    String what = d + " " + Arrays.toString(shape) + " " + in;
                    for (String mode : List.of("linear", "lower", "higher", "midpoint", "nearest")) {
                        for (boolean nan : new boolean[] {false, true}) {
                            String op = nan ? "nanquantile" : "quantile";
                            List<Integer> dims = new ArrayList<>(Arrays.asList((Integer) null));
                            for (int k = -Math.max(shape.length, 1); k < Math.max(shape.length, 1); k++) dims.add(k);
                            for (Integer dim : dims) {
                                for (boolean keep : new boolean[] {false, true}) {
                                    String args = ", dim=" + (dim == null ? "None" : dim) + ", keepdim=" + (keep ? "True" : "False") + ", interpolation='" + mode + "')";
                                    String label = op + args + " " + what;
                                    Tensor got1 = nan ? x.nanquantile(qs, dim, keep, mode) : x.quantile(qs, dim, keep, mode);
                                    assertClose(got1, Torch.call("torch." + op + "(a, b" + args, x, qs), label + " q 1-d");
                                    Tensor got0 = nan ? x.nanquantile(q0, dim, keep, mode) : x.quantile(q0, dim, keep, mode);
                                    assertClose(got0, Torch.call("torch." + op + "(a, b" + args, x, q0), label + " q 0-d");
                                    Tensor gotS = nan ? x.nanquantile(0.6, dim, keep, mode) : x.quantile(0.6, dim, keep, mode);
                                    assertClose(gotS, Torch.call("torch." + op + "(a, 0.6" + args, x), label + " q float");
                                }
                            }
                        }
                    }
                }
            }
        }
        Tensor allNan = Tensor.full(Double.NaN, 2, 3);
        assertClose(allNan.nanquantile(0.5, 1, false, "linear"), Torch.call("torch.nanquantile(a, 0.5, dim=1)", allNan), "a slice of NaN only");
    }

    /** {@code x} with a repeated value and a NaN in it: ties and NaN handling both exercised. */
    private static Tensor withRepeatsAndNan(Tensor x) {
        double[] v = x.toDoubleArray();
        v[1] = v[0];
        v[v.length - 2] = Double.NaN;
        return Tensor.of(v, x.shape()).to(x.dtype());
    }

    @Test
    void quantileRefusesAsAten() {
        Tensor x = Tensor.randn(3, 4), empty = Tensor.zeros(0), ints = Tensor.ofLongs(1, 2, 3);
        Tensor q2 = Tensor.zeros(2, 2), q64 = Tensor.of(0.5).to(DType.FLOAT64), qBad = Tensor.of(0.5f, 1.5f);
        sameRefusal(IllegalArgumentException.class, "quantile() input tensor must be non-empty", () -> empty.quantile(0.5), "torch.quantile(a, 0.5)", empty);
        sameRefusal(IllegalArgumentException.class, "quantile() q must be a scalar or 1D tensor", () -> x.quantile(q2, null, false, "linear"), "torch.quantile(a, b)", x, q2);
        sameRefusal(IllegalArgumentException.class, "quantile() input tensor must be either float or double dtype", () -> ints.quantile(0.5), "torch.quantile(a, 0.5)", ints);
        sameRefusal(IllegalArgumentException.class, "quantile() q tensor must be same dtype as the input tensor", () -> x.quantile(q64, null, false, "linear"), "torch.quantile(a, b)", x, q64);
        sameRefusal(IllegalArgumentException.class, "quantile() q values must be in the range [0, 1]", () -> x.nanquantile(qBad, 0, false, "linear"), "torch.nanquantile(a, b, 0)", x, qBad);
        sameRefusal(IllegalArgumentException.class, "quantile() q must be in the range [0, 1] but got", () -> x.quantile(-0.5), "torch.quantile(a, -0.5)", x);
        sameRefusal(IllegalArgumentException.class, "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got cubic",
                () -> x.quantile(0.5, null, false, "cubic"), "torch.quantile(a, 0.5, interpolation='cubic')", x);
        sameRefusal(IndexOutOfBoundsException.class, "Dimension out of range", () -> x.quantile(0.5, 2, false, "linear"), "torch.quantile(a, 0.5, 2)", x);
    }

    @Test
    void gradientsMatchLibtorch() {
        Random rng = new Random(6);
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 3, 5), b = Tensor.zeros(DType.FLOAT64, 1);
        gradientMatches("torch.renorm(a, 2.0, 0, 1.0)", t -> t.renorm(2, 0, 1.0), x, b, "renorm p 2");
        gradientMatches("torch.renorm(a, 3.0, 1, 0.5)", t -> t.renorm(3, 1, 0.5), x, b, "renorm p 3 dim 1");
        gradientMatches("torch.take(a, b)", t -> t.take(Tensor.ofLongs(0, -1, 3, 3, 7).reshape(5, 1)), x, Tensor.ofLongs(0, -1, 3, 3, 7).reshape(5, 1), "take (repeats)");
        Tensor ties = Tensor.of(1.0, 3, 3, 0, 2, -1, 2, 4, 4, 4).reshape(2, 5);
        Tensor qs = Tensor.of(0.1, 0.5, 0.9);
        // libtorch 2.7 has no derivative for aminmax ("not implemented"); Ember's is that of amin and amax, its decomposition
        gradientMatches("torch.stack([torch.amin(a, 1), torch.amax(a, 1)], 0)", t -> Tensor.stack(t.aminmax(1, false), 0), ties, b, "aminmax dim with ties");
        gradientMatches("torch.stack([torch.amin(a), torch.amax(a)], 0)", t -> Tensor.stack(t.aminmax(), 0), ties, b, "aminmax all with ties");
        for (String mode : List.of("linear", "lower", "nearest", "midpoint")) {
            gradientMatches("torch.quantile(a, b, 1, interpolation='" + mode + "')", t -> t.quantile(qs, 1, false, mode), ties, qs, "quantile " + mode + " with ties");
            gradientMatches("torch.nanquantile(a, b, None, interpolation='" + mode + "')", t -> t.nanquantile(qs, null, false, mode), ties, qs, "nanquantile " + mode);
        }
        Tensor self = Inputs.randn(rng, DType.FLOAT64, 3, 4), v1 = Inputs.randn(rng, DType.FLOAT64, 3), v2 = Inputs.randn(rng, DType.FLOAT64, 4);
        Tensor b1 = Inputs.randn(rng, DType.FLOAT64, 2, 3, 5), b2 = Inputs.randn(rng, DType.FLOAT64, 2, 5, 4);
        GradCheck.check(in -> in.get(0).addr(in.get(1), in.get(2), 0.5, 2.0), self.requiresGrad(true), v1.requiresGrad(true), v2.requiresGrad(true));
        GradCheck.check(in -> in.get(0).addbmm(in.get(1), in.get(2), 0.5, 2.0), self.narrow(1, 0, 1).contiguous().detach().requiresGrad(true), b1.requiresGrad(true), b2.requiresGrad(true));
        GradCheck.check(in -> in.get(0).renorm(1.5, -1, 0.8), x.requiresGrad(true));
        GradCheck.check(in -> in.get(0).quantile(0.3, 1, true, "linear"), x.detach().requiresGrad(true));
        GradCheck.check(in -> Tensor.stack(in.get(0).aminmax(0, false), 0), x.detach().requiresGrad(true));
    }

    static Tensor everyday(Tensor x, Tensor b) {
        List<Tensor> mm = x.aminmax(1, true);
        Tensor v1 = x.narrow(1, 0, 1).reshape(-1), v2 = x.narrow(0, 0, 1).reshape(-1);
        List<Tensor> parts = List.of(mm.get(0), mm.get(1), x.renorm(2, 0, 1.0), x.take(Tensor.ofLongs(0, -1, 5).reshape(3, 1)),
                x.addr(v1, v2, 0.5, 2.0), x.addbmm(b, Tensor.cat(List.of(b.transpose(1, 2), b.transpose(1, 2).narrow(2, 0, 2)), 2), 1.0, 0.5),
                x.quantile(0.3, 1, false, "linear"), x.nanquantile(Tensor.of(0.2f, 0.9f).to(x.dtype()), 0, true, "midpoint"), x.quantile(0.5));
        return CompiledOpsCheck.flattenedAndJoined(parts);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerInOneGraph(String backend) {
        Tensor.manualSeed(17);
        Tensor x = Tensor.randn(3, 5), b = Tensor.randn(2, 3, 4);
        CompiledOpsCheck.oneGraphWithEagersValuesAndGradients(EverydayReductionOpsTest::everyday, x, b, backend, "x", "b");
    }
}
