package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Special;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * torch.special's ndtri, zeta, gammainc/gammaincc (igamma/igammac), multigammaln (mvlgamma),
 * polygamma for every n, the Bessel family, the Scalar overloads of zeta, xlogy and xlog1py, the
 * in-place forms and the aliases against libtorch: across each function's branches and at its
 * edges (0, negative, ±inf, NaN, large), every dtype; gradients against libtorch's, the refused
 * ones with its words; and Ember.compile giving eager's values and gradients in one graph.
 */
class SpecialFunctionOpsTest {
    private static final List<DType> DTYPES = List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.INT32, DType.BOOL);

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    /** libtorch on float64 copies, rounded to {@code dtype}: Ember computes in float64 and rounds once, libtorch's float32 kernels in float32. */
    private static Tensor reference(String expr, DType dtype, Tensor... args) {
        Object[] wide = new Object[args.length];
        for (int i = 0; i < args.length; i++) wide[i] = args[i].dtype().isFloatingPoint() ? args[i].to(DType.FLOAT64) : args[i];
        return Torch.fromNd(Torch.call(expr, wide)).to(dtype);
    }

    /** Values across the functions' branches (Bessel: 2, 5, 8; ndtri: exp(−2), exp(−32)) and their edges. */
    private static Tensor across(DType dtype) {
        double[] v = {-1e3, -30, -8.5, -5, -2, -1, -1e-6, 0, 1e-7, 1e-5, 0.3, 1, 1.9, 2, 2.1, 4.9, 5, 5.1, 7.9, 8, 8.1, 10, 25.3, 85, 100, 700, 713, 1e3, 1e5,
            Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN};
        return Inputs.fromDoubles(v, dtype, v.length);
    }

    private static final Map<String, OpOverload> UNARY = Map.ofEntries(
            Map.entry("special_bessel_j0", SpecialFunctionOps.SPECIAL_BESSEL_J0), Map.entry("special_bessel_j1", SpecialFunctionOps.SPECIAL_BESSEL_J1),
            Map.entry("special_bessel_y0", SpecialFunctionOps.SPECIAL_BESSEL_Y0), Map.entry("special_bessel_y1", SpecialFunctionOps.SPECIAL_BESSEL_Y1),
            Map.entry("special_modified_bessel_i0", SpecialFunctionOps.SPECIAL_MODIFIED_BESSEL_I0),
            Map.entry("special_modified_bessel_i1", SpecialFunctionOps.SPECIAL_MODIFIED_BESSEL_I1),
            Map.entry("special_modified_bessel_k0", SpecialFunctionOps.SPECIAL_MODIFIED_BESSEL_K0),
            Map.entry("special_modified_bessel_k1", SpecialFunctionOps.SPECIAL_MODIFIED_BESSEL_K1),
            Map.entry("special_scaled_modified_bessel_k0", SpecialFunctionOps.SPECIAL_SCALED_MODIFIED_BESSEL_K0),
            Map.entry("special_scaled_modified_bessel_k1", SpecialFunctionOps.SPECIAL_SCALED_MODIFIED_BESSEL_K1),
            Map.entry("special_spherical_bessel_j0", SpecialFunctionOps.SPECIAL_SPHERICAL_BESSEL_J0),
            Map.entry("special_airy_ai", SpecialFunctionOps.SPECIAL_AIRY_AI),
            Map.entry("special_ndtri", SpecialFunctionOps.SPECIAL_NDTRI));

    @Test
    void oneArgumentFunctionsMatchLibtorch() {
        for (var op : UNARY.entrySet()) {
            for (DType d : DTYPES) {
                Tensor s = Inputs.specials(d);
                // integers reach ATen's kernel as floats: libtorch's float64 run on those floats is the reference
                DType result = TypePromotion.toFloating(d);
                assertClose(op.getValue().callTensor(s), reference("torch." + op.getKey() + "(a)", result, s.to(result)), op.getKey() + " specials " + d);
            }
            for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
                Tensor x = across(d);
                assertClose(op.getValue().callTensor(x), reference("torch." + op.getKey() + "(a)", d, x), op.getKey() + " across its branches " + d);
            }
        }
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            double[] p = {0, 1e-300, 1e-20, 1.2e-14, 1.3e-14, 1e-5, 0.1, 0.1353, 0.1354, 0.3, 0.5, 0.7, 0.8646, 0.8647, 0.99, 1 - 1e-10, 1, 1.5, -0.5, Double.NaN};
            Tensor y = Inputs.fromDoubles(p, d, p.length);
            assertClose(Special.ndtri(y), reference("torch.special_ndtri(a)", d, y), "ndtri across its branches " + d);
        }
        Tensor leaf = Tensor.of(new double[] {0.01, 0.2, 0.5, 0.9, 0.999}, 5).requiresGrad(true);
        Special.ndtri(leaf).sum().backward();
        assertClose(leaf.grad(), grad("torch.special_ndtri(a)", leaf.detach()), "ndtri's gradient");
        Tensor bessel = Special.besselJ0(Tensor.randn(3).to(DType.FLOAT64).requiresGrad(true));
        assertFalse(bessel.requiresGrad(), "the Bessel functions are non_differentiable in derivatives.yaml: no gradient flows");
    }

    private static Tensor grad(String fn, Tensor x) {
        try (NDManager m = Torch.scope()) {
            return Torch.fromNd(Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([" + fn + ".sum()], [a])", x).get(0));
        }
    }

    @Test
    void zetaMatchesLibtorch() {
        double[] xs = {1, 1.5, 2, 3.7, 10, 50, 0.5, -1, -2, Double.POSITIVE_INFINITY, Double.NaN};
        double[] qs = {-2, -1.5, -0.5, 0, 1e-3, 0.1, 1, 2.5, 9.5, 10, 1e3, 1e8, Double.POSITIVE_INFINITY, Double.NaN};
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor x = Inputs.fromDoubles(xs, d, xs.length, 1), q = Inputs.fromDoubles(qs, d, 1, qs.length);
            assertClose(Special.zeta(x, q), reference("torch.special_zeta(a, b)", d, x, q), "zeta " + d);
            assertClose(SpecialFunctionOps.SPECIAL_ZETA_SELF_SCALAR.callTensor(3.0, q), Torch.call("torch.special_zeta(3.0, a)", q), "zeta(3.0, q) " + d);
            assertClose(SpecialFunctionOps.SPECIAL_ZETA_OTHER_SCALAR.callTensor(x, 2.5), Torch.call("torch.special_zeta(a, 2.5)", x), "zeta(x, 2.5) " + d);
        }
        Tensor ints = Tensor.ofLongs(2, 3, 4);
        assertClose(Special.zeta(ints, ints), Torch.call("torch.special_zeta(a, b)", ints, ints), "zeta of integers: the default float");
        assertClose(SpecialFunctionOps.SPECIAL_ZETA_SELF_SCALAR.callTensor(2L, ints), Torch.call("torch.special_zeta(2, a)", ints), "zeta(2, ints)");
        for (long n = 0; n <= 5; n++) {
            Tensor x = Inputs.fromDoubles(new double[] {-2.5, -1, -0.5, 0, 1e-3, 0.7, 1, 3.2, 12, 1e4, Double.NaN}, DType.FLOAT64, 11);
            assertClose(x.polygamma((int) n), Torch.call("torch.polygamma(" + n + ", a)", x), "polygamma " + n);
        }
        // ∂ζ/∂q against libtorch; ∂ζ/∂x refused in its words
        Tensor x = Tensor.of(new double[] {2, 3.5, 5}, 3), q = Tensor.of(new double[] {0.5, 1.2, 4}, 3), lq = q.detach().requiresGrad(true);
        Special.zeta(x, lq).sum().backward();
        try (NDManager m = Torch.scope()) {
            assertClose(lq.grad(), Torch.callListWithGrad(m, "b = b.detach().requires_grad_(True)\nreturn torch.autograd.grad([torch.special_zeta(a, b).sum()], [b])", x, q).get(0),
                    "zeta's gradient in q");
        }
        sameRefusal(() -> Special.zeta(x.detach().requiresGrad(true), q).sum().backward(),
                "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([torch.special_zeta(a, b).sum()], [a])", x, q);
        Tensor p = Tensor.of(new double[] {0.3, 2, 7}, 3), lp = p.detach().requiresGrad(true);
        lp.polygamma(3).sum().backward();
        assertClose(lp.grad(), grad("torch.polygamma(3, a)", p), "polygamma(3)'s gradient");
    }

    @Test
    void incompleteGammaMatchesLibtorch() {
        double[] as = {0, 1e-3, 0.5, 1, 2.5, 10, 21, 25, 60, 150, 199, 250, 1e3, 1e5, Double.POSITIVE_INFINITY, Double.NaN, -1};
        double[] xs = {0, 1e-3, 0.3, 0.5, 0.6, 1, 1.05, 1.2, 2, 10, 20, 24, 30, 55, 150, 180, 260, 1e3, 1.01e5, Double.POSITIVE_INFINITY, Double.NaN, -1};
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor a = Inputs.fromDoubles(as, d, as.length, 1), x = Inputs.fromDoubles(xs, d, 1, xs.length);
            // where a > 20 and x is near a, ATen's uniform asymptotic expansion divides by √(2πa) with π in float32
            // (c10::pi<float>): its values there are off by about 1e-9 relative, Ember's series and fraction are not
            TorchAssert.Tolerance tol = d == DType.FLOAT64 ? TorchAssert.Tolerance.of(1e-8, 1e-13) : TorchAssert.Tolerance.forDtype(d);
            assertClose(Special.gammainc(a, x), reference("torch.special_gammainc(a, b)", d, a, x), "gammainc " + d, tol);
            assertClose(Special.gammaincc(a, x), reference("torch.special_gammaincc(a, b)", d, a, x), "gammaincc " + d, tol);
            assertClose(SpecialFunctionOps.IGAMMA.callTensor(a, x), reference("torch.igamma(a, b)", d, a, x), "igamma " + d, tol);
        }
        Tensor mixed = Tensor.of(new float[] {0.5f, 3f}, 2), wide = Tensor.of(new double[] {1, 2}, 2);
        assertClose(Special.gammaincc(mixed, wide), Torch.call("torch.igammac(a, b)", mixed, wide), "float32 with float64 promotes");
        Tensor a = Tensor.of(new double[] {0.5, 2, 30}, 3), x = Tensor.of(new double[] {0.7, 3, 28}, 3);
        Tensor lx = x.detach().requiresGrad(true), cx = x.detach().requiresGrad(true);
        Special.gammainc(a, lx).sum().backward();
        Special.gammaincc(a, cx).sum().backward();
        assertClose(lx.grad(), gradSecond("torch.igamma(a, b)", a, x), "igamma's gradient in x");
        assertClose(cx.grad(), gradSecond("torch.igammac(a, b)", a, x), "igammac's gradient in x");
        sameRefusal(() -> Special.gammainc(a.detach().requiresGrad(true), x).sum().backward(),
                "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([torch.igamma(a, b).sum()], [a])", a, x);
        sameRefusal(() -> Special.gammaincc(a.detach().requiresGrad(true), x).sum().backward(),
                "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([torch.igammac(a, b).sum()], [a])", a, x);
    }

    private static Tensor gradSecond(String fn, Tensor a, Tensor b) {
        try (NDManager m = Torch.scope()) {
            return Torch.fromNd(Torch.callListWithGrad(m, "b = b.detach().requires_grad_(True)\nreturn torch.autograd.grad([" + fn + ".sum()], [b])", a, b).get(0));
        }
    }

    @Test
    void multigammalnMatchesLibtorch() {
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            for (int p = 1; p <= 4; p++) {
                Tensor x = Inputs.fromDoubles(new double[] {0.5 * p + 0.01, 2, 3.3, 10, 171, 1e5, Double.POSITIVE_INFINITY}, d, 7);
                assertClose(Special.multigammaln(x, p), reference("torch.mvlgamma(a, " + p + ")", d, x), "mvlgamma p=" + p + " " + d);
            }
        }
        Tensor ints = Tensor.ofLongs(2, 3, 9);
        assertClose(Special.multigammaln(ints, 3), Torch.call("torch.special_multigammaln(a, 3)", ints), "mvlgamma of integers: the default float");
        Tensor x = Tensor.of(new double[] {1.7, 3, 6.5}, 3), leaf = x.detach().requiresGrad(true);
        Special.multigammaln(leaf, 3).sum().backward();
        assertClose(leaf.grad(), grad("torch.mvlgamma(a, 3)", x), "mvlgamma's gradient");
        sameRefusal(() -> Special.multigammaln(x, 0), "torch.mvlgamma(a, 0)", x);
        sameRefusal(() -> Special.multigammaln(Tensor.of(new boolean[] {true}, 1), 2), "torch.mvlgamma(a, 2)", Tensor.of(new boolean[] {true}, 1));
        Tensor below = Tensor.of(new double[] {0.7, 1.2, -0.3}, 3);
        assertClose(Special.multigammaln(below, 4), Torch.call("torch.mvlgamma(a, 4)", below), "mvlgamma below (p - 1)/2: what lgamma gives, as ATen's");
    }

    @Test
    void scalarOverloadsInPlaceFormsAndAliasesMatchLibtorch() {
        Tensor y = Inputs.fromDoubles(new double[] {0, 0.5, 2, -1, Double.NaN}, DType.FLOAT32, 5), ints = Tensor.ofLongs(0, 1, 3);
        for (Tensor t : List.of(y, ints)) {
            assertClose(SpecialFunctionOps.XLOGY_SCALAR_SELF.callTensor(2.0, t), Torch.call("torch.xlogy(2.0, a)", t), "xlogy(2.0, t) " + t.dtype());
            assertClose(SpecialFunctionOps.SPECIAL_XLOGY_SELF_SCALAR.callTensor(0L, t), Torch.call("torch.special_xlogy(0, a)", t), "special_xlogy(0, t) " + t.dtype());
            assertClose(SpecialFunctionOps.SPECIAL_XLOGY_OTHER_SCALAR.callTensor(t, 3.0), Torch.call("torch.special_xlogy(a, 3.0)", t), "special_xlogy(t, 3.0) " + t.dtype());
            assertClose(SpecialFunctionOps.SPECIAL_XLOG1PY_SELF_SCALAR.callTensor(2L, t), Torch.call("torch.special_xlog1py(2, a)", t), "xlog1py(2, t) " + t.dtype());
            assertClose(SpecialFunctionOps.SPECIAL_XLOG1PY_OTHER_SCALAR.callTensor(t, -1.0), Torch.call("torch.special_xlog1py(a, -1.0)", t), "xlog1py(t, -1.0) " + t.dtype());
            assertClose(SpecialFunctionOps.SPECIAL_XLOGY.callTensor(t, t.abs()), Torch.call("torch.special_xlogy(a, b)", t, t.abs()), "special_xlogy " + t.dtype());
        }
        Tensor x = Tensor.of(new double[] {-3, -0.5, 0, 0.25, 0.5, 2.5, 9}, 7), p = Tensor.of(new double[] {0.01, 0.3, 0.5, 0.7, 0.99}, 5);
        String[][] aliases = {{"special_expit", "x"}, {"special_exp2", "x"}, {"special_expm1", "x"}, {"special_log1p", "x"}, {"special_sinc", "x"},
            {"special_i0", "x"}, {"special_psi", "x"}, {"special_digamma", "x"}, {"special_gammaln", "x"}, {"special_erf", "x"}, {"special_erfc", "x"},
            {"special_erfinv", "p"}, {"special_logit", "p"}};
        for (String[] alias : aliases) {
            OpOverload op = OpRegistry.get("aten." + alias[0] + ".default");
            Tensor in = alias[1].equals("x") ? x : p;
            assertClose(op.callTensor(in), Torch.call("torch." + alias[0] + "(a)", in), alias[0]);
            assertClose(op.callTensor(ints), Torch.call("torch." + alias[0] + "(a)", ints), alias[0] + " of integers");
        }
        assertClose(SpecialFunctionOps.SPECIAL_LOGIT.callTensor(p, 0.2), Torch.call("torch.special_logit(a, 0.2)", p), "special_logit eps");
        assertClose(SpecialFunctionOps.SPECIAL_ROUND.callTensor(x.mul(1.37), 1L), Torch.call("torch.special_round(a, decimals=1)", x.mul(1.37)), "special_round");
        assertClose(SpecialFunctionOps.SPECIAL_POLYGAMMA.callTensor(2L, p), Torch.call("torch.special_polygamma(2, a)", p), "special_polygamma");
        Tensor m = x.reshape(7, 1).mul(Tensor.of(new double[] {1, -2}, 2));
        assertClose(SpecialFunctionOps.SPECIAL_SOFTMAX.callTensor(m, 1L, null), Torch.call("torch.special_softmax(a, 1)", m), "special_softmax");
        assertClose(SpecialFunctionOps.SPECIAL_LOG_SOFTMAX.callTensor(m, 0L, null), Torch.call("torch.special_log_softmax(a, 0)", m), "special_log_softmax");
        sameRefusal(() -> SpecialFunctionOps.SPECIAL_ROUND.call(ints), "torch.special_round(a)", ints);

        // in place: the result written into self
        Tensor i0 = x.clone(), ig = p.clone(), mv = x.abs().add(1.0);
        SpecialFunctionOps.I0_.call(i0);
        SpecialFunctionOps.IGAMMA_.call(ig, p.mul(3.0));
        Tensor mvIn = mv.clone();
        SpecialFunctionOps.MVLGAMMA_.call(mv, 2L);
        assertClose(i0, Torch.call("a.i0_()", x.clone()), "i0_");
        assertClose(ig, Torch.call("a.igamma_(b)", p.clone(), p.mul(3.0)), "igamma_");
        assertClose(mv, Torch.call("a.mvlgamma_(2)", mvIn), "mvlgamma_");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SpecialFunctionOps.I0_.call(ints.clone()));
        assertEquals("i0_: result type Float can't be cast to the desired output type Long", e.getMessage());
        RuntimeException torch = assertThrows(RuntimeException.class, () -> Torch.call("a.i0_()", ints.clone()));
        assertTrue(Torch.refusalText(torch).contains("result type Float can't be cast to the desired output type Long"), Torch.refusalText(torch));
    }

    @Test
    void bernoulliWithTensorProbabilities() {
        Tensor self = Tensor.zeros(DType.FLOAT64, 2000, 3);
        Tensor p = Tensor.of(new double[] {0, 0.3, 1}, 3);
        Tensor.manualSeed(4);
        SpecialFunctionOps.BERNOULLI__TENSOR.call(self, p, null);
        Tensor column = self.mean(0);
        assertEquals(0.0, column.toDoubleArray()[0], "p = 0: never");
        assertEquals(1.0, column.toDoubleArray()[2], "p = 1: always");
        assertEquals(0.3, column.toDoubleArray()[1], 0.04, "p = 0.3: about 30%");
        Tensor ints = Tensor.zeros(DType.INT64, 4);
        SpecialFunctionOps.BERNOULLI__TENSOR.call(ints, Tensor.ones(DType.FLOAT32, 4), null);
        assertClose(ints, Tensor.ones(DType.INT64, 4), "self's dtype kept");
        Tensor bad = Tensor.of(new double[] {0.5, 1.5, 0.2}, 3);
        sameRefusal(() -> SpecialFunctionOps.BERNOULLI__TENSOR.call(Tensor.zeros(DType.FLOAT64, 3, 3), bad, null), "a.bernoulli_(b)",
                Tensor.zeros(DType.FLOAT64, 3, 3), bad);
    }

    /** Ember's refusal, and libtorch's for the same call: Ember's message is in libtorch's text. */
    private static void sameRefusal(Executable ember, String torchExpr, Object... args) {
        Throwable e = assertThrows(RuntimeException.class, ember);
        RuntimeException torch = assertThrows(RuntimeException.class, () -> {
            try (NDManager m = Torch.scope()) {
                Torch.callListWithGrad(m, torchExpr, args);
            }
        });
        assertTrue(Torch.refusalText(torch).contains(e.getMessage()), "Ember: " + e.getMessage() + "\nlibtorch: " + Torch.refusalText(torch));
    }

    @Test
    void refusalsAreAtens() {
        Tensor ints = Tensor.ofLongs(1, 2, 3), f = Tensor.of(new double[] {1, 2}, 2);
        sameRefusal(() -> Special.gammainc(ints, ints), "torch.igamma(a, b)", ints, ints);
        sameRefusal(() -> Special.gammaincc(ints, ints), "torch.igammac(a, b)", ints, ints);
        sameRefusal(() -> Special.gammainc(Tensor.of(new double[] {1, 2}, 2).requiresGrad(true), f).sum().backward(),
                "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([torch.special_gammainc(a, b).sum()], [a])", f, f);
    }

    @Test
    void orthogonalPolynomialsMatchLibtorch() {
        String[] names = {"chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
            "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
            "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"};
        double[] xs = {-1.5, -1, -0.7, -0.2, 0, 0.3, 0.5, 0.9, 1, 1.2, 3, Double.NaN, Double.POSITIVE_INFINITY};
        double[] ns = {-1, 0, 1, 2, 3, 5, 7, 9, 12, 2.7, Double.NaN, Double.POSITIVE_INFINITY};
        for (String name : names) {
            OpOverload op = OpRegistry.get("aten.special_" + name + ".default");
            for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
                Tensor x = Inputs.fromDoubles(xs, d, xs.length, 1), n = Inputs.fromDoubles(ns, d, 1, ns.length);
                TorchAssert.Tolerance tol = d == DType.FLOAT32 ? TorchAssert.Tolerance.of(2e-5, 2e-5) : TorchAssert.Tolerance.of(1e-12, 1e-12);
                assertClose(op.callTensor(x, n), reference("torch.special_" + name + "(a, b)", d, x, n), name + " " + d, tol);
            }
            Tensor ints = Tensor.ofLongs(0, 1, 4), x = Tensor.of(new double[] {-0.4, 0.25, 2}, 3);
            assertClose(op.callTensor(x, ints), Torch.call("torch.special_" + name + "(a, b)", x, ints), name + " with integer degrees");
            assertClose(OpRegistry.get("aten.special_" + name + ".x_scalar").callTensor(0.3, ints), Torch.call("torch.special_" + name + "(0.3, a)", ints),
                    name + " x a number");
            assertClose(OpRegistry.get("aten.special_" + name + ".n_scalar").callTensor(x, 3L), Torch.call("torch.special_" + name + "(a, 3)", x), name + " n a number");
            assertFalse(op.callTensor(x.detach().requiresGrad(true), ints).requiresGrad(), name + " is non_differentiable, as in derivatives.yaml");
        }
    }

    @Test
    void outFormsWriteTheResultAsLibtorchDoes() {
        Tensor x = Tensor.of(new float[] {2f, 3.5f, 6f}, 3), q = Tensor.of(new float[] {0.5f, 1f, 4f}, 3);
        Tensor out = Tensor.zeros(DType.FLOAT64, 3);
        Tensor returned = SpecialFunctionOps.SPECIAL_ZETA_OUT.callTensor(x, q, out);
        assertTrue(returned == out, "out= returns out");
        assertClose(out, Torch.call("c = torch.zeros([3], dtype=torch.float64)\ntorch.special_zeta(a, b, out=c)\nreturn c", x, q), "special_zeta.out into float64");
        Tensor g = Tensor.zeros(DType.FLOAT32, 3);
        SpecialFunctionOps.IGAMMAC_OUT.call(q, x, g);
        assertClose(g, Torch.call("c = torch.zeros([3])\ntorch.igammac(a, b, out=c)\nreturn c", q, x), "igammac.out");
        Tensor j = Tensor.zeros(DType.FLOAT32, 3);
        SpecialFunctionOps.SPECIAL_BESSEL_Y1_OUT.call(x, j);
        assertClose(j, Torch.call("c = torch.zeros([3])\ntorch.special_bessel_y1(a, out=c)\nreturn c", x), "special_bessel_y1.out");
        Tensor mv = Tensor.zeros(DType.FLOAT32, 3);
        SpecialFunctionOps.MVLGAMMA_OUT.call(x, 2L, mv);
        assertClose(mv, Torch.call("c = torch.zeros([3])\ntorch.mvlgamma(a, 2, out=c)\nreturn c", x), "mvlgamma.out");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SpecialFunctionOps.SPECIAL_NDTRI_OUT.call(x, Tensor.zeros(DType.INT64, 3)));
        assertEquals("special_ndtri: result type Float can't be cast to the desired output type Long", e.getMessage());
        RuntimeException torch = assertThrows(RuntimeException.class, () -> Torch.call("c = torch.zeros([3], dtype=torch.int64)\ntorch.special_ndtri(a, out=c)\nreturn c", x));
        assertTrue(Torch.refusalText(torch).contains("result type Float can't be cast to the desired output type Long"), Torch.refusalText(torch));
        Tensor leaf = x.detach().requiresGrad(true);
        assertThrows(RuntimeException.class, () -> SpecialFunctionOps.SPECIAL_NDTRI_OUT.call(leaf, Tensor.zeros(DType.FLOAT32, 3)), "out= refuses inputs that require grad, as ATen's");
    }

    /** docs/tensors.md, "torch.special", as written there: the values it promises. */
    @Test
    void docsExample() {
        Tensor q = Special.ndtri(Tensor.of(0.025, 0.5, 0.975));            // [-1.96, 0, 1.96]
        Tensor z = Special.zeta(Tensor.of(2.0), Tensor.of(1.0));           // π²/6
        Tensor p = Special.gammainc(Tensor.of(2.0, 3.0), Tensor.of(1.0, 4.0));
        Tensor j = Special.besselJ0(Tensor.of(0.0, 2.404825557695773));    // [1, ~0]
        assertClose(q, Torch.call("torch.special_ndtri(a)", Tensor.of(0.025, 0.5, 0.975)), "ndtri");
        assertEquals(1.96, q.toDoubleArray()[2], 1e-3);
        assertClose(z, Tensor.of(Math.PI * Math.PI / 6), "ζ(2, 1)", TorchAssert.Tolerance.of(1e-14, 0));
        // P(2, x) = 1 − e^(−x)(1 + x), P(3, x) = 1 − e^(−x)(1 + x + x²/2)
        assertClose(p, Tensor.of(1 - Math.exp(-1) * 2, 1 - Math.exp(-4) * (1 + 4 + 8)), "gammainc", TorchAssert.Tolerance.of(1e-13, 1e-15));
        assertClose(j, Torch.call("torch.special_bessel_j0(a)", Tensor.of(0.0, 2.404825557695773)), "J₀ at 0 and its first zero");
        assertEquals(1.0, j.toDoubleArray()[0]);
        assertEquals(0.0, j.toDoubleArray()[1], 1e-15);
    }

    static Tensor special(Tensor x, Tensor y) {
        // zeta's and the incomplete gammas' first arguments have no gradient in ATen: constants here
        Tensor q = y.abs().add(0.5), a = x.detach().abs().add(0.1);
        return Special.zeta(a.add(1.5), q).add(Special.gammainc(a, q)).add(Special.gammaincc(a, q.mul(2.0))).add(Special.ndtri(x.sigmoid()))
                .add(Special.multigammaln(q.add(1.0), 2)).add(Special.besselJ0(x)).add(Special.modifiedBesselK1(q)).add(q.polygamma(2));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerInOneGraph(String backend) {
        Tensor.manualSeed(7);
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(4);
        CompiledOpsCheck.oneGraphWithEagersValuesAndGradients(SpecialFunctionOpsTest::special, x, y, backend, "x", "y");
    }
}
