package dev.ember.ops;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
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
 * det, slogdet, logdet, inverse and linalg.solve against libtorch's float64 results (rounded to
 * float32 for float32 inputs): batched and broadcast shapes, negative and zero determinants,
 * singular matrices and ATen's refusals, gradients against libtorch's, and compiled functions
 * giving eager's values and gradients.
 */
class LuOpsTest {
    private final Random rng = new Random(29);

    @AfterEach
    void reset() { Ember.reset(); }

    /** Matrices around n·I: invertible, determinants of either sign when flipped. */
    private Tensor matrices(DType dtype, int... shape) {
        int n = shape[shape.length - 1];
        return Inputs.randn(rng, DType.FLOAT64, shape).add(Tensor.eye(n).to(DType.FLOAT64).mul(1.5)).to(dtype);
    }

    private static Tensor reference(String expr, DType dtype, Tensor... args) {
        Object[] wide = new Object[args.length];
        for (int i = 0; i < args.length; i++) wide[i] = args[i].to(DType.FLOAT64);
        return Torch.fromNd(Torch.call(expr, wide)).to(dtype);
    }

    @Test
    void valuesMatchLibtorch() {
        for (DType dtype : List.of(DType.FLOAT64, DType.FLOAT32)) {
            TorchAssert.Tolerance tol = dtype == DType.FLOAT32 ? TorchAssert.Tolerance.of(2e-5, 2e-5) : TorchAssert.Tolerance.of(1e-10, 1e-12);
            Tensor a = matrices(dtype, 2, 3, 4, 4), b = matrices(dtype, 5, 5), swapped = b.flip(0);
            for (Tensor m : List.of(a, b, swapped)) {
                assertClose(m.det(), reference("torch.linalg_det(a)", dtype, m), dtype + " det", tol);
                assertClose(m.inverse(), reference("torch.linalg_inv(a)", dtype, m), dtype + " inv", tol);
                List<Tensor> sl = m.slogdet();
                assertClose(sl.get(0), reference("torch.linalg_slogdet(a)[0]", dtype, m), dtype + " slogdet sign", tol);
                assertClose(sl.get(1), reference("torch.linalg_slogdet(a)[1]", dtype, m), dtype + " slogdet logabsdet", tol);
                assertClose(m.logdet(), reference("torch.logdet(a)", dtype, m), dtype + " logdet (NaN where det < 0)", tol);
            }
            Tensor rhs = Inputs.randn(rng, dtype, 3, 4, 2), vector = Inputs.randn(rng, dtype, 4), batchedVector = Inputs.randn(rng, dtype, 2, 3, 4);
            assertClose(Tensor.linalgSolve(a, rhs), reference("torch.linalg_solve(a, b)", dtype, a, rhs), dtype + " solve, B broadcast over the batch", tol);
            assertClose(Tensor.linalgSolve(a, vector), reference("torch.linalg_solve(a, b)", dtype, a, vector), dtype + " solve, a vector", tol);
            assertClose(Tensor.linalgSolve(a, batchedVector), reference("torch.linalg_solve(a, b)", dtype, a, batchedVector), dtype + " solve, batched vectors", tol);
        }
        Tensor singular = Tensor.of(new double[] {1, 2, 2, 4}, 2, 2);
        assertClose(singular.det(), Torch.call("torch.linalg_det(a)", singular), "singular: det 0");
        assertClose(singular.slogdet().get(1), Torch.call("torch.linalg_slogdet(a)[1]", singular), "singular: log|det| = -inf");
        assertEquals(0, Tensor.zeros(DType.FLOAT64, 0, 3, 3).det().numel(), "an empty batch");
        assertEquals(1.0, Tensor.zeros(DType.FLOAT64, 0, 0).det().item(), "the 0x0 matrix's det is 1");
    }

    @Test
    void gradientsMatchLibtorch() {
        Tensor a = matrices(DType.FLOAT64, 2, 3, 3), b = Inputs.randn(rng, DType.FLOAT64, 3, 2);
        Tensor leafA = a.detach().requiresGrad(true), leafB = b.detach().requiresGrad(true);
        Tensor loss = leafA.det().sum().add(leafA.inverse().square().sum()).add(leafA.slogdet().get(1).sum())
                .add(Tensor.linalgSolve(leafA, leafB).sin().sum());
        List<Tensor> got = Autograd.grad(List.of(loss), List.of(leafA, leafB), null, false, false, false);
        String body = "a = a.detach().requires_grad_(True)\nb = b.detach().requires_grad_(True)\n"
                + "y = torch.linalg_det(a).sum() + torch.linalg_inv(a).square().sum() + torch.linalg_slogdet(a)[1].sum() + torch.linalg_solve(a, b).sin().sum()\n"
                + "return torch.autograd.grad([y], [a, b])";
        try (NDManager m = Torch.scope()) {
            NDList want = Torch.callListWithGrad(m, body, a, b);
            assertClose(got.get(0), want.get(0), "gradient of A", TorchAssert.Tolerance.of(1e-9, 1e-10));
            assertClose(got.get(1), want.get(1), "gradient of B (summed over A's batch)", TorchAssert.Tolerance.of(1e-9, 1e-10));
        }
    }

    @Test
    void badInputIsRefusedWithAtensWords() {
        // Aᵀ's factorization (the one ATen's LAPACK call makes): after its first column's elimination (pivot 4,
        // multipliers 1/4 and 1/2, exact) the second column is all 0, so U's element 2 is zero
        Tensor singular = Tensor.of(new double[] {1, 2, 3, 2, 4, 7, 4, 8, 1}, 3, 3).transpose(0, 1).contiguous();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, singular::inverse);
        assertEquals("linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the input matrix is singular.", e.getMessage());
        RuntimeException torch = assertThrows(RuntimeException.class, () -> Torch.call("torch.linalg_inv(a)", singular));
        assertTrue(Torch.refusalText(torch).contains("linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the input matrix is singular."), Torch.refusalText(torch));
        e = assertThrows(IllegalArgumentException.class, () -> Tensor.linalgSolve(singular, Tensor.ones(DType.FLOAT64, 3)));
        assertEquals("torch.linalg.solve: The solver failed because the input matrix is singular.", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Tensor.zeros(DType.FLOAT64, 2, 3).det());
        assertEquals("linalg.det: A must be batches of square matrices, but they are 2 by 3 matrices", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Tensor.ofLongs(1, 2, 3, 4).reshape(2, 2).det());
        assertEquals("linalg.det: Expected a floating point or complex tensor as input. Got Long", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Tensor.linalgSolve(Tensor.eye(3).to(DType.FLOAT64), Tensor.ones(DType.FLOAT64, 2, 4)));
        assertEquals("linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 2x4)", e.getMessage());
        RuntimeException torchShapes = assertThrows(RuntimeException.class,
                () -> Torch.call("torch.linalg_solve(a, b)", Tensor.eye(3).to(DType.FLOAT64), Tensor.ones(DType.FLOAT64, 2, 4)));
        assertTrue(Torch.refusalText(torchShapes).contains("Incompatible shapes of A and B for the equation AX = B (3x3 and 2x4)"), Torch.refusalText(torchShapes));
        Tensor batch = Tensor.stack(List.of(Tensor.eye(3).to(DType.FLOAT64), singular), 0);
        e = assertThrows(IllegalArgumentException.class, batch::inverse);
        assertEquals("linalg.inv: (Batch element 1): The diagonal element 2 is zero, the inversion could not be completed because the input matrix is singular.", e.getMessage());
    }

    private Tensor spd(DType dtype, int batch, int n) {
        Tensor m = Inputs.randn(rng, DType.FLOAT64, batch, n, n);
        return m.matmul(m.transpose(-2, -1)).add(Tensor.eye(n).to(DType.FLOAT64).mul(0.5)).to(dtype);
    }

    @Test
    void choleskyAndMatrixPowerMatchLibtorch() {
        for (DType dtype : List.of(DType.FLOAT64, DType.FLOAT32)) {
            TorchAssert.Tolerance tol = dtype == DType.FLOAT32 ? TorchAssert.Tolerance.of(5e-5, 5e-5) : TorchAssert.Tolerance.of(1e-10, 1e-12);
            Tensor a = spd(dtype, 3, 4);
            assertClose(a.cholesky(), reference("torch.linalg_cholesky(a)", dtype, a), dtype + " cholesky", tol);
            assertClose(a.cholesky(true), reference("torch.linalg_cholesky(a, upper=True)", dtype, a), dtype + " cholesky upper", tol);
            Tensor m = matrices(dtype, 2, 3, 3).mul(0.5);
            for (int n : new int[] {-3, -1, 0, 1, 2, 5}) {
                assertClose(m.matrixPower(n), reference("torch.linalg_matrix_power(a, " + n + ")", dtype, m), dtype + " matrix_power " + n, tol);
            }
        }
        Tensor a = spd(DType.FLOAT64, 2, 3), leaf = a.detach().requiresGrad(true);
        Tensor loss = leaf.cholesky().sin().sum().add(leaf.matrixPower(-2).square().sum()).add(leaf.matrixPower(3).sum());
        Tensor got = Autograd.grad(List.of(loss), List.of(leaf), null, false, false, false).get(0);
        String body = "a = a.detach().requires_grad_(True)\n"
                + "y = torch.linalg_cholesky(a).sin().sum() + torch.linalg_matrix_power(a, -2).square().sum() + torch.linalg_matrix_power(a, 3).sum()\n"
                + "return torch.autograd.grad([y], [a])";
        try (NDManager nd = Torch.scope()) {
            assertClose(got, Torch.callListWithGrad(nd, body, a).get(0), "gradients of cholesky and matrix_power", TorchAssert.Tolerance.of(1e-9, 1e-10));
        }
        Tensor indefinite = Tensor.of(new double[] {1, 2, 2, 1}, 2, 2);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, indefinite::cholesky);
        assertEquals("linalg.cholesky: The factorization could not be completed because the input is not positive-definite "
                + "(the leading minor of order 2 is not positive-definite).", e.getMessage());
        RuntimeException torch = assertThrows(RuntimeException.class, () -> Torch.call("torch.linalg_cholesky(a)", indefinite));
        assertTrue(Torch.refusalText(torch).contains(e.getMessage()), Torch.refusalText(torch));
    }


    static Tensor solveThenNormalize(Tensor a, Tensor b) {
        Tensor x = Tensor.linalgSolve(a, b);
        return x.div(a.det().unsqueeze(-1).unsqueeze(-1)).add(a.inverse().sum());
    }

    @Test
    void compiledGivesEagersValuesAndGradients() {
        Tensor a = matrices(DType.FLOAT32, 2, 3, 3), b = Inputs.randn(rng, DType.FLOAT32, 2, 3, 2);
        Fn2<Tensor, Tensor, Tensor> compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) LuOpsTest::solveThenNormalize, Options.backend("inductor"));
        Tensor ea = a.detach().requiresGrad(true), ca = a.detach().requiresGrad(true);
        Tensor want = solveThenNormalize(ea, b), got = compiled.apply(ca, b);
        assertClose(got, want, "compiled values", TorchAssert.Tolerance.of(1e-6, 1e-6));
        Tensor gw = Autograd.grad(List.of(want.sum()), List.of(ea), null, false, false, false).get(0);
        Tensor gg = Autograd.grad(List.of(got.sum()), List.of(ca), null, false, false, false).get(0);
        assertClose(gg, gw, "compiled gradient", TorchAssert.Tolerance.of(1e-5, 1e-5));
    }
}
