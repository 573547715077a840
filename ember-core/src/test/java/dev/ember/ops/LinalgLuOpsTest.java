package dev.ember.ops;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Linalg;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.ember.ops.LinalgReference.FLOATS;
import static dev.ember.ops.LinalgReference.assertAll;
import static dev.ember.ops.LinalgReference.reference;
import static dev.ember.ops.LinalgReference.tolerance;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * torch.linalg's LU family (lu_factor, lu_factor_ex, lu, lu_unpack, lu_solve), the triangular
 * solves and the _ex forms of inv, cholesky and solve, and cholesky_inverse, against libtorch:
 * values (square, tall and wide, batched, float32 and float64), singular inputs' info, gradients,
 * ATen's refusals word for word, and Ember.compile giving eager's values and gradients.
 */
class LinalgLuOpsTest {
    private final Random rng = new Random(5);

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    @AfterEach
    void reset() { Ember.reset(); }

    private Tensor randn(DType dtype, int... shape) { return Inputs.randn(rng, DType.FLOAT64, shape).to(dtype); }

    /** Square matrices around 2·I, so triangles and factors are well conditioned. */
    private Tensor wellConditioned(DType dtype, int... shape) {
        int n = shape[shape.length - 1];
        return Inputs.randn(rng, DType.FLOAT64, shape).mul(0.5).add(Tensor.eye(n).to(DType.FLOAT64).mul(2.0)).to(dtype);
    }

    @Test
    void luFactorizationsMatchLibtorch() {
        for (DType dtype : FLOATS) {
            TorchAssert.Tolerance tol = tolerance(dtype);
            for (int[] shape : List.of(new int[] {4, 4}, new int[] {2, 3, 5, 5}, new int[] {5, 3}, new int[] {2, 3, 5}, new int[] {0, 3, 3}, new int[] {1, 1})) {
                Tensor a = randn(dtype, shape);
                String s = dtype + " " + java.util.Arrays.toString(shape);
                assertAll(Linalg.luFactorEx(a, false), reference("torch.linalg_lu_factor_ex(a)", dtype, a), s + " lu_factor_ex", tol);
                assertAll(Linalg.luFactor(a), reference("torch.linalg_lu_factor(a)", dtype, a), s + " lu_factor", tol);
                assertAll(Linalg.lu(a), reference("torch.linalg_lu(a)", dtype, a), s + " lu", tol);
                List<Tensor> f = Linalg.luFactor(a);
                assertAll(Linalg.luUnpack(f.get(0), f.get(1)), reference("torch.lu_unpack(a, b)", dtype, f.get(0), f.get(1)), s + " lu_unpack", tol);
                assertAll(LinalgLuOps.LU_UNPACK.callList(f.get(0), f.get(1), false, true), reference("torch.lu_unpack(a, b, False, True)", dtype, f.get(0), f.get(1)),
                        s + " lu_unpack, pivots only", tol);
                assertAll(LinalgLuOps.LU_UNPACK.callList(f.get(0), f.get(1), true, false), reference("torch.lu_unpack(a, b, True, False)", dtype, f.get(0), f.get(1)),
                        s + " lu_unpack, data only", tol);
            }
            Tensor strided = randn(dtype, 4, 6).transpose(0, 1);
            assertAll(Linalg.lu(strided), reference("torch.linalg_lu(a)", dtype, strided), dtype + " lu of a transposed view", tol);
        }
        // singular matrices: zeros on U's diagonal, reported in info as LAPACK's getrf reports them
        Tensor singular = Tensor.stack(List.of(Tensor.of(new double[] {1, 2, 3, 2, 4, 6, 1, 1, 1}, 3, 3), Tensor.zeros(DType.FLOAT64, 3, 3),
                Tensor.eye(3).to(DType.FLOAT64)), 0);
        assertAll(Linalg.luFactorEx(singular, false), reference("torch.linalg_lu_factor_ex(a)", DType.FLOAT64, singular), "singular lu_factor_ex", tolerance(DType.FLOAT64));
        assertAll(Linalg.lu(singular), reference("torch.linalg_lu(a)", DType.FLOAT64, singular), "singular lu", tolerance(DType.FLOAT64));
    }

    @Test
    void solvesMatchLibtorch() {
        for (DType dtype : FLOATS) {
            TorchAssert.Tolerance tol = tolerance(dtype);
            Tensor a = wellConditioned(dtype, 2, 4, 4);
            List<Tensor> f = Linalg.luFactor(a);
            Tensor lu = f.get(0), piv = f.get(1);
            Tensor b = randn(dtype, 3, 1, 4, 2), bRight = randn(dtype, 2, 3, 4);
            for (boolean adjoint : new boolean[] {false, true}) {
                String flags = "adjoint=" + (adjoint ? "True" : "False");
                assertAll(List.of(Linalg.luSolve(lu, piv, b, true, adjoint)), reference("torch.linalg_lu_solve(a, b, c, " + flags + ")", dtype, lu, piv, b),
                        dtype + " lu_solve left " + flags, tol);
                assertAll(List.of(Linalg.luSolve(lu, piv, bRight, false, adjoint)), reference("torch.linalg_lu_solve(a, b, c, left=False, " + flags + ")", dtype, lu, piv, bRight),
                        dtype + " lu_solve right " + flags, tol);
            }
            Tensor b2 = randn(dtype, 2, 4, 3);
            assertAll(List.of(LinalgLuOps.LU_SOLVE.callTensor(b2, lu, piv)), reference("torch.lu_solve(c, a, b)", dtype, lu, piv, b2), dtype + " lu_solve (legacy)", tol);

            Tensor t = wellConditioned(dtype, 3, 1, 4, 4), rhs = randn(dtype, 2, 4, 3), rhsRight = randn(dtype, 3, 2, 3, 4);
            for (boolean upper : new boolean[] {true, false}) {
                for (boolean unit : new boolean[] {false, true}) {
                    String flags = "upper=" + py(upper) + ", unitriangular=" + py(unit);
                    assertAll(List.of(Linalg.solveTriangular(t, rhs, upper, true, unit)), reference("torch.linalg_solve_triangular(a, b, " + flags + ")", dtype, t, rhs),
                            dtype + " solve_triangular left " + flags, tol);
                    assertAll(List.of(Linalg.solveTriangular(t, rhsRight, upper, false, unit)),
                            reference("torch.linalg_solve_triangular(a, b, left=False, " + flags + ")", dtype, t, rhsRight), dtype + " solve_triangular right " + flags, tol);
                    for (boolean transpose : new boolean[] {false, true}) {
                        String args = py(upper) + ", " + py(transpose) + ", " + py(unit);
                        Tensor bb = randn(dtype, 3, 2, 4, 2);
                        assertAll(Linalg.triangularSolve(bb, t, upper, transpose, unit), reference("torch.triangular_solve(a, b, " + args + ")", dtype, bb, t),
                                dtype + " triangular_solve " + args, tol);
                    }
                }
            }
            assertAll(List.of(Linalg.solveTriangular(t.select(0, 0).select(0, 0), randn(dtype, 4, 0), true)),
                    reference("torch.linalg_solve_triangular(a, b, upper=True)", dtype, t.select(0, 0).select(0, 0), randn(dtype, 4, 0)), dtype + " no right-hand sides", tol);
        }
        Tensor mixed = wellConditioned(DType.FLOAT64, 3, 3), single = randn(DType.FLOAT32, 3, 2);
        assertClose(Linalg.solveTriangular(mixed, single, false), Torch.call("torch.linalg_solve_triangular(a, b, upper=False)", mixed, single), "mixed dtypes promote");
    }

    @Test
    void exFormsAndCholeskyInverseMatchLibtorch() {
        for (DType dtype : FLOATS) {
            TorchAssert.Tolerance tol = tolerance(dtype);
            Tensor a = wellConditioned(dtype, 2, 4, 4), b = randn(dtype, 3, 1, 4, 2), v = randn(dtype, 4);
            Tensor spd = a.matmul(a.transpose(-2, -1));
            assertAll(Linalg.invEx(a, false), reference("torch.linalg_inv_ex(a)", dtype, a), dtype + " inv_ex", tol);
            assertAll(Linalg.choleskyEx(spd, false, false), reference("torch.linalg_cholesky_ex(a)", dtype, spd), dtype + " cholesky_ex", tol);
            assertAll(Linalg.choleskyEx(spd, true, false), reference("torch.linalg_cholesky_ex(a, upper=True)", dtype, spd), dtype + " cholesky_ex upper", tol);
            assertAll(Linalg.solveEx(a, b, true, false), reference("torch.linalg_solve_ex(a, b)", dtype, a, b), dtype + " solve_ex, B broadcast", tol);
            assertAll(Linalg.solveEx(a, v, true, false), reference("torch.linalg_solve_ex(a, b)", dtype, a, v), dtype + " solve_ex, a vector", tol);
            Tensor bRight = randn(dtype, 2, 3, 4);
            assertAll(Linalg.solveEx(a, bRight, false, false), reference("torch.linalg_solve_ex(a, b, left=False)", dtype, a, bRight), dtype + " solve_ex, left=False", tol);
            Tensor l = Linalg.cholesky(spd);
            for (boolean upper : new boolean[] {false, true}) {
                Tensor factor = upper ? l.transpose(-2, -1).contiguous() : l;
                assertAll(List.of(Linalg.choleskyInverse(factor, upper)), reference("torch.cholesky_inverse(a, " + py(upper) + ")", dtype, factor),
                        dtype + " cholesky_inverse upper=" + upper, TorchAssert.Tolerance.of(dtype == DType.FLOAT32 ? 2e-4 : 1e-9, 1e-6));
            }
        }
        // info for singular and indefinite inputs; the values there are not compared (LAPACK leaves them unspecified)
        Tensor singular = Tensor.stack(List.of(Tensor.eye(3).to(DType.FLOAT64), Tensor.zeros(DType.FLOAT64, 3, 3),
                Tensor.of(new double[] {1, 2, 3, 2, 4, 6, 0, 1, 1}, 3, 3)), 0);
        Tensor indefinite = Tensor.stack(List.of(Tensor.eye(3).to(DType.FLOAT64), Tensor.of(new double[] {1, 2, 0, 2, 1, 0, 0, 0, 1}, 3, 3),
                Tensor.of(new double[] {4, 0, 0, 0, 1, 0, 0, 0, -1}, 3, 3)), 0);
        assertClose(Linalg.invEx(singular, false).get(1), Torch.callList("torch.linalg_inv_ex(a)", singular).get(1), "inv_ex info");
        assertClose(Linalg.solveEx(singular, Tensor.ones(DType.FLOAT64, 3, 1), true, false).get(1),
                Torch.callList("torch.linalg_solve_ex(a, b)", singular, Tensor.ones(DType.FLOAT64, 3, 1)).get(1), "solve_ex info");
        assertClose(Linalg.choleskyEx(indefinite, false, false).get(1), Torch.callList("torch.linalg_cholesky_ex(a)", indefinite).get(1), "cholesky_ex info");
    }

    private static String py(boolean b) { return b ? "True" : "False"; }

    @Test
    void gradientsMatchLibtorch() {
        Tensor sq = randn(DType.FLOAT64, 2, 4, 4), tall = randn(DType.FLOAT64, 5, 3), wide = randn(DType.FLOAT64, 3, 5);
        for (Tensor a : List.of(sq, tall, wide)) {
            Tensor leaf = a.detach().requiresGrad(true);
            List<Tensor> plu = Linalg.lu(leaf);
            List<Tensor> f = Linalg.luFactor(leaf);
            Tensor loss = plu.get(1).sin().sum().add(plu.get(2).mul(plu.get(2)).sum()).add(f.get(0).cos().sum());
            Tensor got = Autograd.grad(List.of(loss), List.of(leaf), null, false, false, false).get(0);
            String body = "a = a.detach().requires_grad_(True)\nP, L, U = torch.linalg_lu(a)\nLU, piv = torch.linalg_lu_factor(a)\n"
                    + "y = L.sin().sum() + (U * U).sum() + LU.cos().sum()\nreturn torch.autograd.grad([y], [a])";
            try (NDManager m = Torch.scope()) {
                assertClose(got, Torch.callListWithGrad(m, body, a).get(0), "lu and lu_factor gradients " + java.util.Arrays.toString(a.shape()), TorchAssert.Tolerance.of(1e-8, 1e-10));
            }
        }
        Tensor a = wellConditioned(DType.FLOAT64, 2, 3, 3), b = randn(DType.FLOAT64, 2, 3, 2), c = randn(DType.FLOAT64, 2, 2, 3);
        Tensor la = a.detach().requiresGrad(true), lb = b.detach().requiresGrad(true), lc = c.detach().requiresGrad(true);
        List<Tensor> f = Linalg.luFactor(la);
        Tensor loss = Linalg.luSolve(f.get(0), f.get(1), lb).sin().sum()
                .add(Linalg.luSolve(f.get(0), f.get(1), lc, false, true).square().sum())
                .add(Linalg.solveTriangular(la, lb, true).sum()).add(Linalg.solveTriangular(la, lc, false, false, true).cos().sum())
                .add(Linalg.triangularSolve(lb, la, false, true, false).get(0).sum()).add(Linalg.triangularSolve(lb, la, true, false, false).get(1).square().sum())
                .add(Linalg.invEx(la, false).get(0).sum()).add(Linalg.solveEx(la, lb, true, false).get(0).square().sum());
        List<Tensor> got = Autograd.grad(List.of(loss), List.of(la, lb, lc), null, false, false, false);
        String body = "a = a.detach().requires_grad_(True)\nb = b.detach().requires_grad_(True)\nc = c.detach().requires_grad_(True)\n"
                + "LU, piv = torch.linalg_lu_factor(a)\n"
                + "y = torch.linalg_lu_solve(LU, piv, b).sin().sum() + torch.linalg_lu_solve(LU, piv, c, left=False, adjoint=True).square().sum()\n"
                + "y = y + torch.linalg_solve_triangular(a, b, upper=True).sum() + torch.linalg_solve_triangular(a, c, upper=False, left=False, unitriangular=True).cos().sum()\n"
                + "y = y + torch.triangular_solve(b, a, False, True, False)[0].sum() + torch.triangular_solve(b, a, True, False, False)[1].square().sum()\n"
                + "y = y + torch.linalg_inv_ex(a)[0].sum() + torch.linalg_solve_ex(a, b)[0].square().sum()\n"
                + "return torch.autograd.grad([y], [a, b, c])";
        try (NDManager m = Torch.scope()) {
            NDList want = Torch.callListWithGrad(m, body, a, b, c);
            assertClose(got, want, "lu_solve, solve_triangular, triangular_solve, inv_ex and solve_ex gradients", TorchAssert.Tolerance.of(1e-8, 1e-10));
        }
        // cholesky_inverse's gradient treats the whole factor as L, as ATen's (so an input with an upper part checks that too)
        Tensor factor = wellConditioned(DType.FLOAT64, 2, 3, 3), lf = factor.detach().requiresGrad(true), uf = factor.detach().requiresGrad(true);
        Tensor spd = a.matmul(a.transpose(-2, -1)), ls = spd.detach().requiresGrad(true);
        Tensor total = Linalg.choleskyInverse(lf, false).sin().sum().add(Linalg.choleskyInverse(uf, true).square().sum())
                .add(Linalg.choleskyEx(ls, false, false).get(0).sin().sum());
        List<Tensor> g = Autograd.grad(List.of(total), List.of(lf, uf, ls), null, false, false, false);
        String chol = "a = a.detach().requires_grad_(True)\nu = a.detach().requires_grad_(True)\ns = s0.detach().requires_grad_(True)\n"
                + "y = torch.cholesky_inverse(a, False).sin().sum() + torch.cholesky_inverse(u, True).square().sum() + torch.linalg_cholesky_ex(s)[0].sin().sum()\n"
                + "return torch.autograd.grad([y], [a, u, s])";
        try (NDManager m = Torch.scope()) {
            NDList want = Torch.callListWithGrad(m, chol.replace("s0", "b"), factor, spd);
            assertClose(g, want, "cholesky_inverse and cholesky_ex gradients", TorchAssert.Tolerance.of(1e-8, 1e-10));
        }
    }

    /** Ember's refusal, and libtorch's for the same call: Ember's message is in libtorch's text. */
    private static void sameRefusal(Executable ember, String torchExpr, Object... args) {
        Throwable e = assertThrows(RuntimeException.class, ember);
        RuntimeException torch = assertThrows(RuntimeException.class, () -> Torch.callList(torchExpr, args));
        assertTrue(Torch.refusalText(torch).contains(e.getMessage()), "Ember: " + e.getMessage() + "\nlibtorch: " + Torch.refusalText(torch));
    }

    @Test
    void badInputIsRefusedWithAtensWords() {
        Tensor m = randn(DType.FLOAT64, 3, 3), v = randn(DType.FLOAT64, 3), ints = Tensor.ofLongs(1, 2, 3, 4).reshape(2, 2), single = randn(DType.FLOAT32, 3, 3);
        Tensor rect = randn(DType.FLOAT64, 2, 3), zeros = Tensor.zeros(DType.FLOAT64, 3, 3), batchZeros = Tensor.zeros(DType.FLOAT64, 2, 3, 3);
        Tensor piv = Tensor.of(new int[] {1, 2, 3}, 3), longPiv = Tensor.ofLongs(1, 2, 3);
        sameRefusal(() -> Linalg.luFactorEx(v, false), "torch.linalg_lu_factor_ex(a)", v);
        sameRefusal(() -> Linalg.luFactorEx(ints, false), "torch.linalg_lu_factor_ex(a)", ints);
        sameRefusal(() -> LinalgLuOps.LINALG_LU_FACTOR_EX.call(m, false, false), "torch.linalg_lu_factor_ex(a, pivot=False)", m);
        sameRefusal(() -> Linalg.luFactorEx(zeros, true), "torch.linalg_lu_factor_ex(a, check_errors=True)", zeros);
        sameRefusal(() -> Linalg.luFactorEx(batchZeros, true), "torch.linalg_lu_factor_ex(a, check_errors=True)", batchZeros);
        sameRefusal(() -> Linalg.luFactor(zeros), "torch.linalg_lu_factor(a)", zeros);
        sameRefusal(() -> Linalg.luFactor(batchZeros), "torch.linalg_lu_factor(a)", batchZeros);
        sameRefusal(() -> Linalg.lu(v), "torch.linalg_lu(a)", v);
        sameRefusal(() -> Linalg.lu(ints), "torch.linalg_lu(a)", ints);
        sameRefusal(() -> LinalgLuOps.LINALG_LU.call(m, false), "torch.linalg_lu(a, pivot=False)", m);
        sameRefusal(() -> Linalg.luUnpack(v, piv), "torch.lu_unpack(a, b)", v, piv);
        sameRefusal(() -> Linalg.luUnpack(m, longPiv), "torch.lu_unpack(a, b)", m, longPiv);
        sameRefusal(() -> Linalg.luUnpack(m, Tensor.of(new int[] {1, 4, 3}, 3)), "torch.lu_unpack(a, b)", m, Tensor.of(new int[] {1, 4, 3}, 3));
        sameRefusal(() -> Linalg.luSolve(m, longPiv, m), "torch.linalg_lu_solve(a, b, c)", m, longPiv, m);
        sameRefusal(() -> Linalg.luSolve(m, piv, single), "torch.linalg_lu_solve(a, b, c)", m, piv, single);
        sameRefusal(() -> Linalg.luSolve(ints, piv, ints), "torch.linalg_lu_solve(a, b, c)", ints, piv, ints);
        sameRefusal(() -> Linalg.luSolve(rect, piv, m), "torch.linalg_lu_solve(a, b, c)", rect, piv, m);
        sameRefusal(() -> Linalg.luSolve(m, piv, rect), "torch.linalg_lu_solve(a, b, c)", m, piv, rect);
        sameRefusal(() -> Linalg.luSolve(m, piv, rect.transpose(0, 1), false, false), "torch.linalg_lu_solve(a, b, c, left=False)", m, piv, rect.transpose(0, 1));
        sameRefusal(() -> Linalg.luSolve(m, Tensor.of(new int[] {1, 2}, 2), m), "torch.linalg_lu_solve(a, b, c)", m, Tensor.of(new int[] {1, 2}, 2), m);
        sameRefusal(() -> Linalg.luSolve(m, piv, v), "torch.linalg_lu_solve(a, b, c)", m, piv, v);
        sameRefusal(() -> Linalg.luSolve(m, Tensor.of(new int[] {1, 2, 3, 1, 2, 3}, 2, 3), m), "torch.linalg_lu_solve(a, b, c)", m, Tensor.of(new int[] {1, 2, 3, 1, 2, 3}, 2, 3), m);
        sameRefusal(() -> LinalgLuOps.LU_SOLVE.call(rect, m, piv), "torch.lu_solve(c, a, b)", m, piv, rect);
        sameRefusal(() -> Linalg.solveTriangular(ints, ints, true), "torch.linalg_solve_triangular(a, b, upper=True)", ints, ints);
        sameRefusal(() -> Linalg.solveTriangular(rect, m, true), "torch.linalg_solve_triangular(a, b, upper=True)", rect, m);
        sameRefusal(() -> Linalg.solveTriangular(m, rect, true), "torch.linalg_solve_triangular(a, b, upper=True)", m, rect);
        sameRefusal(() -> Linalg.solveTriangular(m, v, true), "torch.linalg_solve_triangular(a, b, upper=True)", m, v);
        sameRefusal(() -> Linalg.solveTriangular(m, rect.transpose(0, 1), true, false, false), "torch.linalg_solve_triangular(a, b, upper=True, left=False)", m, rect.transpose(0, 1));
        sameRefusal(() -> Linalg.triangularSolve(v, m, true, false, false), "torch.triangular_solve(a, b)", v, m);
        sameRefusal(() -> Linalg.triangularSolve(m, v, true, false, false), "torch.triangular_solve(a, b)", m, v);
        sameRefusal(() -> Linalg.triangularSolve(single, m, true, false, false), "torch.triangular_solve(a, b)", single, m);
        sameRefusal(() -> Linalg.triangularSolve(rect, m, true, false, false), "torch.triangular_solve(a, b)", rect, m);
        sameRefusal(() -> Linalg.triangularSolve(m, rect, true, false, false), "torch.triangular_solve(a, b)", m, rect);
        sameRefusal(() -> Linalg.triangularSolve(ints, ints, true, false, false), "torch.triangular_solve(a, b)", ints, ints);
        sameRefusal(() -> Linalg.invEx(rect, false), "torch.linalg_inv_ex(a)", rect);
        sameRefusal(() -> Linalg.invEx(ints, false), "torch.linalg_inv_ex(a)", ints);
        sameRefusal(() -> Linalg.invEx(v, false), "torch.linalg_inv_ex(a)", v);
        sameRefusal(() -> Linalg.invEx(zeros, true), "torch.linalg_inv_ex(a, check_errors=True)", zeros);
        sameRefusal(() -> Linalg.choleskyEx(rect, false, false), "torch.linalg_cholesky_ex(a)", rect);
        sameRefusal(() -> Linalg.choleskyEx(ints, false, false), "torch.linalg_cholesky_ex(a)", ints);
        sameRefusal(() -> Linalg.choleskyEx(zeros, false, true), "torch.linalg_cholesky_ex(a, check_errors=True)", zeros);
        sameRefusal(() -> Linalg.choleskyEx(batchZeros, false, true), "torch.linalg_cholesky_ex(a, check_errors=True)", batchZeros);
        sameRefusal(() -> Linalg.solveEx(rect, m, true, false), "torch.linalg_solve_ex(a, b)", rect, m);
        sameRefusal(() -> Linalg.solveEx(m, single, true, false), "torch.linalg_solve_ex(a, b)", m, single);
        sameRefusal(() -> Linalg.solveEx(zeros, m, true, true), "torch.linalg_solve_ex(a, b, check_errors=True)", zeros, m);
        sameRefusal(() -> Linalg.choleskyInverse(v, false), "torch.cholesky_inverse(a)", v);
        sameRefusal(() -> Linalg.choleskyInverse(rect, false), "torch.cholesky_inverse(a)", rect);
        sameRefusal(() -> Linalg.choleskyInverse(ints, false), "torch.cholesky_inverse(a)", ints);
        // a pivots tensor of the wrong shape: ATen reads past it; Ember says what it expected
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Linalg.luUnpack(m, Tensor.of(new int[] {1, 2}, 2)));
        assertEquals("torch.lu_unpack: Expected LU_pivots of shape [3] (LU's batch and min(m, n)), but got [2]", e.getMessage());
    }

    @Test
    void geqrfAndHouseholderProductMatchLibtorch() {
        for (DType dtype : FLOATS) {
            TorchAssert.Tolerance tol = tolerance(dtype);
            for (int[] shape : List.of(new int[] {4, 3}, new int[] {3, 5}, new int[] {2, 4, 4}, new int[] {1, 1})) {
                Tensor a = randn(dtype, shape);
                String s = dtype + " " + java.util.Arrays.toString(shape);
                List<Tensor> qr = Linalg.geqrf(a);
                assertAll(qr, reference("torch.geqrf(a)", dtype, a), s + " geqrf", tol);
                if (shape[shape.length - 2] >= shape[shape.length - 1]) {
                    assertAll(List.of(Linalg.householderProduct(qr.get(0), qr.get(1))), reference("torch.linalg_householder_product(a, b)", dtype, qr.get(0), qr.get(1)),
                            s + " householder_product", tol);
                    Tensor fewer = qr.get(1).narrow(-1, 0, 1);
                    assertAll(List.of(HouseholderOps.ORGQR.callTensor(qr.get(0), fewer)), reference("torch.orgqr(a, b)", dtype, qr.get(0), fewer),
                            s + " orgqr with fewer reflectors", tol);
                }
            }
        }
        Tensor a = randn(DType.FLOAT64, 2, 4, 3), tau = Tensor.rand(2, 3).to(DType.FLOAT64);
        Tensor la = a.detach().requiresGrad(true), lt = tau.detach().requiresGrad(true);
        Tensor loss = Linalg.householderProduct(la, lt).sin().sum();
        List<Tensor> got = Autograd.grad(List.of(loss), List.of(la, lt), null, false, false, false);
        String body = "a = a.detach().requires_grad_(True)\nb = b.detach().requires_grad_(True)\n"
                + "return torch.autograd.grad([torch.linalg_householder_product(a, b).sin().sum()], [a, b])";
        try (NDManager m = Torch.scope()) {
            assertClose(got, Torch.callListWithGrad(m, body, a, tau), "householder_product's gradients", TorchAssert.Tolerance.of(1e-8, 1e-10));
        }
        Tensor m3 = randn(DType.FLOAT64, 3, 3), v = randn(DType.FLOAT64, 3), ints = Tensor.ofLongs(1, 2, 3, 4).reshape(2, 2);
        sameRefusal(() -> Linalg.geqrf(v), "torch.geqrf(a)", v);
        sameRefusal(() -> Linalg.geqrf(ints), "torch.geqrf(a)", ints);
        sameRefusal(() -> Linalg.householderProduct(m3, randn(DType.FLOAT64, 4)), "torch.linalg_householder_product(a, b)", m3, randn(DType.FLOAT64, 4));
        sameRefusal(() -> Linalg.householderProduct(randn(DType.FLOAT64, 2, 3), v), "torch.linalg_householder_product(a, b)", randn(DType.FLOAT64, 2, 3), v);
        sameRefusal(() -> Linalg.householderProduct(m3, randn(DType.FLOAT32, 3)), "torch.linalg_householder_product(a, b)", m3, randn(DType.FLOAT32, 3));
        sameRefusal(() -> Linalg.householderProduct(m3, randn(DType.FLOAT64, 2, 3)), "torch.linalg_householder_product(a, b)", m3, randn(DType.FLOAT64, 2, 3));
        Tensor leaf = m3.detach().requiresGrad(true);
        sameRefusalBackward(() -> Linalg.geqrf(leaf).get(0).sum().backward(), "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([torch.geqrf(a)[0].sum()], [a])", m3);
    }

    @Test
    void outFormsWriteTheFunctionalResult() {
        Tensor a = wellConditioned(DType.FLOAT64, 2, 3, 3), b = randn(DType.FLOAT64, 2, 3, 2);
        Tensor out = Tensor.zeros(DType.FLOAT64, 2, 3, 2);
        assertTrue(LinalgLuOps.LINALG_SOLVE_TRIANGULAR_OUT.callTensor(a, b, true, true, false, out) == out, "out= returns out");
        assertClose(out, Linalg.solveTriangular(a, b, true), "linalg_solve_triangular.out", TorchAssert.Tolerance.EXACT);
        List<Tensor> f = Linalg.luFactor(a);
        Tensor lu = Tensor.zeros(DType.FLOAT64, 2, 3, 2);
        LinalgLuOps.LINALG_LU_SOLVE_OUT.call(f.get(0), f.get(1), b, true, false, lu);
        assertClose(lu, Linalg.luSolve(f.get(0), f.get(1), b), "linalg_lu_solve.out", TorchAssert.Tolerance.EXACT);
        Tensor ci = Tensor.zeros(DType.FLOAT64, 2, 3, 3);
        LinalgLuOps.CHOLESKY_INVERSE_OUT.call(a, false, ci);
        assertClose(ci, Linalg.choleskyInverse(a, false), "cholesky_inverse.out", TorchAssert.Tolerance.EXACT);
        Tensor q = Tensor.zeros(DType.FLOAT64, 2, 3, 3);
        HouseholderOps.LINALG_HOUSEHOLDER_PRODUCT_OUT.call(a, b.select(-1, 0), q);
        assertClose(q, Linalg.householderProduct(a, b.select(-1, 0)), "householder_product.out", TorchAssert.Tolerance.EXACT);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LinalgLuOps.LINALG_SOLVE_TRIANGULAR_OUT.call(a, b, true, true, false, Tensor.zeros(DType.FLOAT32, 2, 3, 2)));
        assertEquals("linalg_solve_triangular: Expected out tensor to have dtype double, but got float instead", e.getMessage());
    }

    private static void sameRefusalBackward(Executable ember, String torchBody, Object... args) {
        Throwable e = assertThrows(RuntimeException.class, ember);
        RuntimeException torch = assertThrows(RuntimeException.class, () -> {
            try (NDManager m = Torch.scope()) {
                Torch.callListWithGrad(m, torchBody, args);
            }
        });
        assertTrue(Torch.refusalText(torch).contains(e.getMessage()), "Ember: " + e.getMessage() + "\nlibtorch: " + Torch.refusalText(torch));
    }

    /** docs/tensors.md, "LU, triangular solves and the _ex forms", as written there: the shapes it promises, and what each undoes. */
    @Test
    void docsExample() {
        Tensor a = Tensor.randn(2, 4, 4).add(Tensor.eye(4).mul(3.0)), b = Tensor.randn(2, 4, 3);
        List<Tensor> lu = Linalg.luFactor(a);                              // LU [2, 4, 4], pivots [2, 4] int32
        Tensor x = Linalg.luSolve(lu.get(0), lu.get(1), b);                // a · x = b
        List<Tensor> plu = Linalg.lu(Tensor.randn(5, 3));                  // P [5, 5], L [5, 3], U [3, 3]
        Tensor y = Linalg.solveTriangular(a.triu(), b, true);              // reads the upper triangle only
        Tensor info = Linalg.invEx(Tensor.zeros(3, 3), false).get(1);      // 1: U's first diagonal element is 0
        assertEquals(List.of(2, 4, 4), shape(lu.get(0)));
        assertEquals(List.of(2, 4), shape(lu.get(1)));
        assertEquals(DType.INT32, lu.get(1).dtype());
        assertClose(a.matmul(x), b, "a · x = b", TorchAssert.Tolerance.of(1e-4, 1e-4));
        assertEquals(List.of(List.of(5, 5), List.of(5, 3), List.of(3, 3)), plu.stream().map(LinalgLuOpsTest::shape).toList());
        assertClose(a.triu().matmul(y), b, "triu(a) · y = b", TorchAssert.Tolerance.of(1e-4, 1e-4));
        assertEquals(1L, info.to(DType.INT64).item());
    }

    private static List<Integer> shape(Tensor t) { return java.util.Arrays.stream(t.shape()).boxed().toList(); }

    static Tensor luProgram(Tensor a, Tensor b) {
        List<Tensor> f = Linalg.luFactor(a);
        List<Tensor> plu = Linalg.lu(a);
        Tensor x = Linalg.luSolve(f.get(0), f.get(1), b).add(Linalg.solveTriangular(a, b, false, true, true));
        Tensor y = Linalg.triangularSolve(b, a, true, true, false).get(0).add(Linalg.solveEx(a, b, true, false).get(0));
        Tensor z = Linalg.invEx(a, false).get(0).add(plu.get(1)).add(plu.get(2)).add(Linalg.choleskyInverse(a, false))
                .add(Linalg.householderProduct(a, b.select(-1, 0)));
        return CompiledOpsCheck.flattenedAndJoined(List.of(x, y, z));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerInOneGraph(String backend) {
        Tensor a = wellConditioned(DType.FLOAT32, 2, 3, 3), b = randn(DType.FLOAT32, 2, 3, 2);
        CompiledOpsCheck.oneGraphWithEagersValuesAndGradients(LinalgLuOpsTest::luProgram, a, b, backend, "a", "b");
    }
}
