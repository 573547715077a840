package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.Autograd;
import dev.ember.autograd.GradCheck;
import dev.ember.tensor.DType;
import dev.ember.tensor.Linalg;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * linalg.matrix_norm ('fro', 1, -1, inf, -inf; over the last two dims or any two, keepdim) and the
 * {@link Linalg} namespace against libtorch: values in float64 (tolerance 1e-12) and float32
 * (2e-6, one rounding of a short sum), gradients against libtorch's and finite differences,
 * ATen's refusals, and a compiled function giving eager's values and gradients; cholesky_solve the
 * same way (broadcast batches, lower and upper factors).
 */
class LinalgSolversTest {
    private final Random rng = new Random(34);

    @AfterEach
    void reset() { Ember.reset(); }

    private static final double[] NUMBER_ORDERS = {1, -1, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};

    /** An order as TorchScript source: inf spelled as float('inf'). */
    private static String source(double ord) {
        return Double.isInfinite(ord) ? (ord > 0 ? "float('inf')" : "-float('inf')") : Double.toString(ord);
    }

    @Test
    void matrixNormMatchesLibtorch() {
        for (DType dtype : List.of(DType.FLOAT64, DType.FLOAT32)) {
            TorchAssert.Tolerance tol = dtype == DType.FLOAT32 ? TorchAssert.Tolerance.of(2e-6, 2e-6) : TorchAssert.Tolerance.of(1e-12, 1e-12);
            Tensor batched = Inputs.randn(rng, dtype, 2, 3, 4, 5), square = Inputs.randn(rng, dtype, 4, 4);
            for (Tensor a : List.of(batched, square)) {
                assertClose(Linalg.matrixNorm(a), Torch.call("torch.linalg_matrix_norm(a)", a), dtype + " fro", tol);
                for (double ord : NUMBER_ORDERS) {
                    assertClose(Linalg.matrixNorm(a, ord), Torch.call("torch.linalg_matrix_norm(a, " + source(ord) + ")", a), dtype + " ord " + ord, tol);
                }
            }
            // any two dims, in either order, with and without keepdim: the reductions' order and the dim shift of ATen's composite
            for (int[] dims : new int[][] {{0, 2}, {2, 0}, {-1, 1}, {3, 0}}) {
                for (boolean keepdim : new boolean[] {false, true}) {
                    String tail = ", (" + dims[0] + ", " + dims[1] + "), " + (keepdim ? "True" : "False") + ")";
                    String context = dtype + " dims " + dims[0] + "," + dims[1] + " keepdim " + keepdim;
                    assertClose(Linalg.matrixNorm(batched, "fro", dims[0], dims[1], keepdim),
                            Torch.call("torch.linalg_matrix_norm(a, 'fro'" + tail, batched), context + " fro", tol);
                    for (double ord : NUMBER_ORDERS) {
                        assertClose(Linalg.matrixNorm(batched, ord, dims[0], dims[1], keepdim),
                                Torch.call("torch.linalg_matrix_norm(a, " + source(ord) + tail, batched), context + " ord " + ord, tol);
                    }
                }
            }
        }
    }

    private static Tensor norms(Tensor a) {
        return Linalg.matrixNorm(a).add(Linalg.matrixNorm(a, 1).mul(2)).add(Linalg.matrixNorm(a, -1).mul(3))
                .add(Linalg.matrixNorm(a, Double.POSITIVE_INFINITY, 0, 2, false).sum().mul(0.5)).add(Linalg.matrixNorm(a, Double.NEGATIVE_INFINITY));
    }

    @Test
    void matrixNormGradientsMatchLibtorchAndFiniteDifferences() {
        Tensor a = Inputs.randn(rng, DType.FLOAT64, 2, 3, 4), leaf = a.detach().requiresGrad(true);
        Tensor got = Autograd.grad(List.of(norms(leaf).sum()), List.of(leaf), null, false, false, false).get(0);
        String body = "a = a.detach().requires_grad_(True)\n"
                + "y = torch.linalg_matrix_norm(a) + 2 * torch.linalg_matrix_norm(a, 1) + 3 * torch.linalg_matrix_norm(a, -1)"
                + " + 0.5 * torch.linalg_matrix_norm(a, float('inf'), (0, 2)).sum() + torch.linalg_matrix_norm(a, -float('inf'))\n"
                + "return torch.autograd.grad([y.sum()], [a])";
        try (NDManager nd = Torch.scope()) {
            assertClose(got, Torch.callListWithGrad(nd, body, a).get(0), "gradient of the matrix norms", TorchAssert.Tolerance.of(1e-12, 1e-12));
        }
        // away from ties between column/row sums and from zero entries, the max/min and |x| are smooth
        GradCheck.check(in -> norms(in.get(0)), a.detach().requiresGrad(true));
    }


    @Test
    void matrixNormRefusesWithAtensWords() {
        Tensor a = Inputs.randn(rng, DType.FLOAT64, 3, 3);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Linalg.matrixNorm(a, 3));
        assertEquals("linalg.matrix_norm: Order 3 not supported.", e.getMessage());
        assertTrue(Torch.refusalText(assertThrows(RuntimeException.class, () -> Torch.call("torch.linalg_matrix_norm(a, 3.0)", a))).contains(e.getMessage()));
        e = assertThrows(IllegalArgumentException.class, () -> Linalg.matrixNorm(a, "abc"));
        assertEquals("linalg.matrix_norm: Order abc not supported.", e.getMessage());
        assertTrue(Torch.refusalText(assertThrows(RuntimeException.class, () -> Torch.call("torch.linalg_matrix_norm(a, 'abc')", a))).contains(e.getMessage()));
        e = assertThrows(IllegalArgumentException.class, () -> Linalg.matrixNorm(a, 1, 1, -1, false));
        assertEquals("linalg.matrix_norm: dims must be different. Got (1, 1)", e.getMessage());
        assertTrue(Torch.refusalText(assertThrows(RuntimeException.class, () -> Torch.call("torch.linalg_matrix_norm(a, 1.0, (1, -1))", a))).contains(e.getMessage()));
        Tensor vector = Inputs.randn(rng, DType.FLOAT64, 3);
        e = assertThrows(IllegalArgumentException.class, () -> Linalg.matrixNorm(vector));
        assertEquals("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.", e.getMessage());
        assertTrue(Torch.refusalText(assertThrows(RuntimeException.class, () -> Torch.call("torch.linalg_matrix_norm(a)", vector))).contains(e.getMessage()));
        Tensor longs = Tensor.ofLongs(1, 2, 3, 4).reshape(2, 2);
        e = assertThrows(IllegalArgumentException.class, () -> Linalg.matrixNorm(longs, 1));
        assertEquals("linalg.matrix_norm: Expected a floating point or complex tensor as input. Got Long", e.getMessage());
        assertTrue(Torch.refusalText(assertThrows(RuntimeException.class, () -> Torch.call("torch.linalg_matrix_norm(a, 1.0)", longs))).contains(e.getMessage()));
    }

    @Test
    void namespaceMatchesTorchLinalg() {
        Tensor a = Inputs.randn(rng, DType.FLOAT64, 2, 3, 3).add(Tensor.eye(3).to(DType.FLOAT64).mul(2)), b = Inputs.randn(rng, DType.FLOAT64, 3, 2);
        TorchAssert.Tolerance tol = TorchAssert.Tolerance.of(1e-10, 1e-12);
        assertClose(Linalg.det(a), Torch.call("torch.linalg_det(a)", a), "det", tol);
        assertClose(Linalg.inv(a), Torch.call("torch.linalg_inv(a)", a), "inv", tol);
        assertClose(Linalg.solve(a, b), Torch.call("torch.linalg_solve(a, b)", a, b), "solve", tol);
        assertClose(Linalg.slogdet(a).get(1), Torch.call("torch.linalg_slogdet(a)[1]", a), "slogdet", tol);
        assertClose(Linalg.matrixPower(a, -2), Torch.call("torch.linalg_matrix_power(a, -2)", a), "matrix_power", tol);
        Tensor spd = a.matmul(a.transpose(-2, -1));
        assertClose(Linalg.cholesky(spd, true), Torch.call("torch.linalg_cholesky(a, upper=True)", spd), "cholesky", tol);
    }

    /** Lower Cholesky factors of well-conditioned symmetric positive-definite matrices ({@code M Mᵀ + I}). */
    private Tensor factors(int... shape) {
        Tensor m = Inputs.randn(rng, DType.FLOAT64, shape);
        int n = shape[shape.length - 1];
        return m.matmul(m.transpose(-2, -1)).add(Tensor.eye(n).to(DType.FLOAT64)).cholesky();
    }

    @Test
    void choleskySolveMatchesLibtorch() {
        Tensor l = factors(4, 3, 3), b = Inputs.randn(rng, DType.FLOAT64, 2, 1, 3, 2);   // batch dims broadcast to [2, 4]
        Tensor square = factors(3, 3), bSquare = Inputs.randn(rng, DType.FLOAT64, 3, 3);
        for (DType dtype : List.of(DType.FLOAT64, DType.FLOAT32)) {
            TorchAssert.Tolerance tol = dtype == DType.FLOAT32 ? TorchAssert.Tolerance.of(5e-5, 5e-5) : TorchAssert.Tolerance.of(1e-10, 1e-12);
            for (boolean upper : new boolean[] {false, true}) {
                Tensor f = (upper ? l.transpose(-2, -1) : l).to(dtype), fs = (upper ? square.transpose(-2, -1) : square).to(dtype);
                String call = "torch.cholesky_solve(a, b, " + (upper ? "True" : "False") + ")";
                assertClose(Linalg.choleskySolve(b.to(dtype), f, upper), Torch.fromNd(Torch.call(call, b.to(DType.FLOAT64), f.to(DType.FLOAT64))).to(dtype), dtype + " upper " + upper, tol);
                assertClose(Linalg.choleskySolve(bSquare.to(dtype), fs, upper), Torch.fromNd(Torch.call(call, bSquare.to(DType.FLOAT64), fs.to(DType.FLOAT64))).to(dtype), dtype + " square B, upper " + upper, tol);
            }
        }
        Tensor leafL = l.detach().requiresGrad(true), leafB = b.detach().requiresGrad(true);
        Tensor loss = Linalg.choleskySolve(leafB, leafL, false).sin().sum().add(Linalg.choleskySolve(leafB, leafL.transpose(-2, -1), true).square().sum());
        List<Tensor> got = Autograd.grad(List.of(loss), List.of(leafL, leafB), null, false, false, false);
        String body = "a = a.detach().requires_grad_(True)\nb = b.detach().requires_grad_(True)\n"
                + "y = torch.cholesky_solve(b, a, False).sin().sum() + torch.cholesky_solve(b, a.transpose(-2, -1), True).square().sum()\n"
                + "return torch.autograd.grad([y], [a, b])";
        try (NDManager nd = Torch.scope()) {
            var want = Torch.callListWithGrad(nd, body, l, b);
            assertClose(got.get(0), want.get(0), "gradient of the factor", TorchAssert.Tolerance.of(1e-9, 1e-10));
            assertClose(got.get(1), want.get(1), "gradient of B", TorchAssert.Tolerance.of(1e-9, 1e-10));
        }
        Tensor wrongRows = Inputs.randn(rng, DType.FLOAT64, 2, 4);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Linalg.choleskySolve(wrongRows, square, false));
        assertEquals("cholesky_solve: Incompatible matrix sizes for cholesky_solve: each A matrix is 3 by 3 but each b matrix is 2 by 4", e.getMessage());
        assertTrue(Torch.refusalText(assertThrows(RuntimeException.class, () -> Torch.call("torch.cholesky_solve(a, b)", wrongRows, square)))
                .contains("Incompatible matrix sizes for cholesky_solve: each A matrix is 3 by 3 but each b matrix is 2 by 4"));
        Tensor vector = Inputs.randn(rng, DType.FLOAT64, 3);
        e = assertThrows(IllegalArgumentException.class, () -> Linalg.choleskySolve(vector, square, false));
        assertEquals("cholesky_solve: b should have at least 2 dimensions, but has 1 dimensions instead", e.getMessage());
        String torchWords = Torch.refusalText(assertThrows(RuntimeException.class, () -> Torch.call("torch.cholesky_solve(a, b)", vector, square)));
        assertTrue(torchWords.contains("b should have at least 2 dimensions, but has 1 dimensions instead"), torchWords);   // ATen's words, named by op here
    }

    static Tensor solveWithFactor(Tensor b, Tensor factor) {
        return Linalg.choleskySolve(b, factor, false).add(Linalg.choleskySolve(b, factor.transpose(-2, -1), true).mul(0.5));
    }

    @Test
    void choleskySolveGradcheckAndCompiled() {
        Tensor l = factors(2, 3, 3), b = Inputs.randn(rng, DType.FLOAT64, 3, 2);
        GradCheck.check(in -> solveWithFactor(in.get(0), in.get(1)), b.detach().requiresGrad(true), l.detach().requiresGrad(true));
        Fn2<Tensor, Tensor, Tensor> compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) LinalgSolversTest::solveWithFactor, Options.backend("inductor"));
        Tensor lf = l.to(DType.FLOAT32), bf = b.to(DType.FLOAT32);
        Tensor el = lf.detach().requiresGrad(true), cl = lf.detach().requiresGrad(true);
        Tensor want = solveWithFactor(bf, el), got = compiled.apply(bf, cl);
        assertClose(got, want, "compiled values", TorchAssert.Tolerance.of(1e-5, 1e-5));
        Tensor gw = Autograd.grad(List.of(want.square().sum()), List.of(el), null, false, false, false).get(0);
        Tensor gg = Autograd.grad(List.of(got.square().sum()), List.of(cl), null, false, false, false).get(0);
        assertClose(gg, gw, "compiled gradient of the factor", TorchAssert.Tolerance.of(1e-4, 1e-4));
    }

    /** docs/tensors.md, "Determinants, inverse, solve", as written there: the shapes it promises, and the solve undone. */
    @Test
    void docsExample() {
        Tensor a = Tensor.randn(2, 3, 3).add(Tensor.eye(3).mul(2.0)), b = Tensor.randn(3, 2);
        Tensor spd = a.matmul(a.transpose(-2, -1)), l = spd.cholesky();
        Tensor fro = Linalg.matrixNorm(a), maxRowSum = Linalg.matrixNorm(a, Double.POSITIVE_INFINITY);
        Tensor y = Linalg.choleskySolve(b, l, false);   // (L Lᵀ)⁻¹ b
        assertEquals(List.of(2), java.util.Arrays.stream(fro.shape()).boxed().toList());
        assertEquals(List.of(2), java.util.Arrays.stream(maxRowSum.shape()).boxed().toList());
        assertClose(spd.matmul(y), b.expand(2, 3, 2).contiguous(), "L Lᵀ y = b", TorchAssert.Tolerance.of(1e-4, 1e-4));
    }

    static Tensor normalized(Tensor a) {
        return a.div(Linalg.matrixNorm(a, 1).unsqueeze(-1).unsqueeze(-1)).add(Linalg.matrixNorm(a, Double.NEGATIVE_INFINITY, 0, 1, true));
    }

    @Test
    void compiledMatrixNormGivesEagersValuesAndGradients() {
        Tensor a = Inputs.randn(rng, DType.FLOAT32, 2, 3, 4);
        Fn1<Tensor, Tensor> compiled = Ember.compile((Fn1<Tensor, Tensor>) LinalgSolversTest::normalized, Options.backend("inductor"));
        Tensor ea = a.detach().requiresGrad(true), ca = a.detach().requiresGrad(true);
        Tensor want = normalized(ea), got = compiled.apply(ca);
        assertClose(got, want, "compiled values", TorchAssert.Tolerance.of(1e-6, 1e-6));
        Tensor gw = Autograd.grad(List.of(want.square().sum()), List.of(ea), null, false, false, false).get(0);
        Tensor gg = Autograd.grad(List.of(got.square().sum()), List.of(ca), null, false, false, false).get(0);
        assertClose(gg, gw, "compiled gradient", TorchAssert.Tolerance.of(1e-5, 1e-5));
    }
}
