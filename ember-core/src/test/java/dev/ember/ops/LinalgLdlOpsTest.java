package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.ExplainOutput;
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
import java.util.Arrays;
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
 * torch.linalg's LDL family (ldl_factor, ldl_factor_ex, ldl_solve and its out= form) against
 * libtorch: LD, pivots and info (1x1 and 2x2 pivot blocks, singular D, batches, empty matrices,
 * float32 and float64), solutions with broadcast batches, ATen's refusals, no derivative (as in
 * ATen), and Ember.compile giving eager's values in one graph.
 */
class LinalgLdlOpsTest {
    private final Random rng = new Random(16);

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    @AfterEach
    void reset() { Ember.reset(); }

    /** A random symmetric matrix (batch), indefinite: Bunch-Kaufman takes 1x1 and 2x2 blocks on such inputs. */
    private Tensor symmetric(DType dtype, int... shape) {
        Tensor a = Inputs.randn(rng, DType.FLOAT64, shape);
        return a.add(a.transpose(-2, -1)).to(dtype);
    }

    @Test
    void factorizationsMatchLibtorch() {
        for (DType dtype : FLOATS) {
            TorchAssert.Tolerance tol = tolerance(dtype);
            for (int[] shape : List.of(new int[] {4, 4}, new int[] {6, 6}, new int[] {2, 3, 5, 5}, new int[] {0, 3, 3}, new int[] {2, 0, 0}, new int[] {1, 1})) {
                Tensor a = symmetric(dtype, shape);
                String s = dtype + " " + Arrays.toString(shape);
                assertAll(Linalg.ldlFactorEx(a, false), reference("torch.linalg_ldl_factor_ex(a)", dtype, a), s + " ldl_factor_ex", tol);
                assertAll(Linalg.ldlFactor(a), reference("torch.linalg_ldl_factor(a)", dtype, a), s + " ldl_factor", tol);
                assertAll(LinalgLdlOps.LINALG_LDL_FACTOR_EX.callList(a, true, false), reference("torch.linalg_ldl_factor_ex(a, hermitian=True)", dtype, a),
                        s + " ldl_factor_ex hermitian", tol);
            }
            // past LAPACK's block size (64): libtorch's sytrf factors in blocks (dlasyf), with the same pivots
            Tensor large = symmetric(dtype, 100, 100);
            assertAll(Linalg.ldlFactorEx(large, false), reference("torch.linalg_ldl_factor_ex(a)", dtype, large), dtype + " 100 x 100",
                    dtype == DType.FLOAT32 ? tol : TorchAssert.Tolerance.of(1e-8, 1e-10));
            // only the lower triangle is read: a non-symmetric matrix, and a transposed view of one
            Tensor general = Inputs.randn(rng, DType.FLOAT64, 5, 5).to(dtype);
            assertAll(Linalg.ldlFactorEx(general, false), reference("torch.linalg_ldl_factor_ex(a)", dtype, general), dtype + " lower triangle only", tol);
            Tensor view = general.transpose(0, 1);
            assertAll(Linalg.ldlFactorEx(view, false), reference("torch.linalg_ldl_factor_ex(a)", dtype, view), dtype + " a transposed view", tol);
        }
        // inputs whose pivots are known: a zero diagonal (2x2 blocks from the start), a small diagonal beside large
        // off-diagonal elements (a 2x2 block, then 1x1 ones), a diagonally dominant one (no interchange), row swaps of 1x1 blocks
        List<Tensor> chosen = List.of(
                Tensor.of(new double[] {0, 1, 2, 1, 0, 3, 2, 3, 0}, 3, 3),
                Tensor.of(new double[] {1e-3, 5, 2, 1, 5, 1e-3, 3, 0, 2, 3, 0, 4, 1, 0, 4, 1}, 4, 4),
                Tensor.of(new double[] {10, 1, 2, 1, 10, 3, 2, 3, 10}, 3, 3),
                Tensor.of(new double[] {1, 2, 0, 2, 8, 1, 0, 1, 9}, 3, 3),
                Tensor.of(new double[] {0, 0, 0, 0}, 2, 2));
        for (Tensor a : chosen) {
            assertAll(Linalg.ldlFactorEx(a, false), reference("torch.linalg_ldl_factor_ex(a)", DType.FLOAT64, a), "chosen " + a, tolerance(DType.FLOAT64));
        }
        // singular D: info is the first column where D has an exact zero, per matrix of a batch
        Tensor singular = Tensor.stack(List.of(Tensor.zeros(DType.FLOAT64, 3, 3), Tensor.eye(3).to(DType.FLOAT64),
                Tensor.of(new double[] {1, 0, 0, 0, 0, 0, 0, 0, 1}, 3, 3)), 0);
        assertAll(Linalg.ldlFactorEx(singular, false), reference("torch.linalg_ldl_factor_ex(a)", DType.FLOAT64, singular), "singular", tolerance(DType.FLOAT64));
        assertEquals(List.of(1, 0, 2), Arrays.stream(Linalg.ldlFactorEx(singular, false).get(2).toIntArray()).boxed().toList());
    }

    @Test
    void solvesMatchLibtorch() {
        for (DType dtype : FLOATS) {
            TorchAssert.Tolerance tol = tolerance(dtype);
            for (int[][] shapes : new int[][][] {{{4, 4}, {4, 2}}, {{4, 4}, {3, 4, 2}}, {{3, 4, 4}, {4, 3}}, {{3, 4, 4}, {3, 4, 1}}, {{5, 5}, {5, 0}}, {{0, 2, 2}, {2, 3}}}) {
                Tensor a = symmetric(dtype, shapes[0]), b = Inputs.randn(rng, DType.FLOAT64, shapes[1]).to(dtype);
                List<Tensor> f = Linalg.ldlFactor(a);
                String s = dtype + " " + Arrays.toString(shapes[0]) + " " + Arrays.toString(shapes[1]);
                assertAll(List.of(Linalg.ldlSolve(f.get(0), f.get(1), b)), reference("torch.linalg_ldl_solve(a, b, c)", dtype, f.get(0), f.get(1), b), s + " ldl_solve", tol);
                assertAll(List.of(LinalgLdlOps.LINALG_LDL_SOLVE.callTensor(f.get(0), f.get(1).to(DType.INT64), b, true)),
                        reference("torch.linalg_ldl_solve(a, b, c, hermitian=True)", dtype, f.get(0), f.get(1).to(DType.INT64), b), s + " ldl_solve, int64 pivots", tol);
            }
        }
        // both batches broadcast (libtorch 2.7 crashes on this one): the solution solves A X = B, as linalg.solve finds it
        Tensor a = symmetric(DType.FLOAT64, 3, 4, 4), b = Inputs.randn(rng, DType.FLOAT64, 2, 1, 4, 2);
        List<Tensor> f = Linalg.ldlFactor(a);
        assertClose(Linalg.ldlSolve(f.get(0), f.get(1), b), Torch.call("torch.linalg_solve(a, b)", a, b), "both batches broadcast", TorchAssert.Tolerance.of(1e-9, 1e-10));
        // the chosen matrices, whose factors mix 1x1 and 2x2 blocks, against linalg.solve too
        for (Tensor m : List.of(Tensor.of(new double[] {0, 1, 2, 1, 0, 3, 2, 3, 0}, 3, 3), Tensor.of(new double[] {1e-3, 5, 2, 1, 5, 1e-3, 3, 0, 2, 3, 0, 4, 1, 0, 4, 1}, 4, 4))) {
            Tensor rhs = Inputs.randn(rng, DType.FLOAT64, m.size(0), 3);
            List<Tensor> g = Linalg.ldlFactor(m);
            assertClose(Linalg.ldlSolve(g.get(0), g.get(1), rhs), Torch.call("torch.linalg_solve(a, b)", m, rhs), "2x2 blocks " + m, TorchAssert.Tolerance.of(1e-9, 1e-10));
        }
    }

    @Test
    void outFormWritesIntoOut() {
        Tensor a = symmetric(DType.FLOAT32, 2, 3, 3), b = Inputs.randn(rng, DType.FLOAT32, 2, 3, 2);
        List<Tensor> f = Linalg.ldlFactor(a);
        Tensor out = Tensor.zeros(DType.FLOAT32, 2, 3, 2);
        Tensor returned = LinalgLdlOps.LINALG_LDL_SOLVE_OUT.callTensor(f.get(0), f.get(1), b, false, out);
        assertTrue(returned == out, "out= returns out");
        assertClose(out, Torch.call("torch.linalg_ldl_solve(a, b, c)", f.get(0), f.get(1), b), "ldl_solve.out");
        Tensor wrongDtype = Tensor.zeros(DType.FLOAT64, 2, 3, 2);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LinalgLdlOps.LINALG_LDL_SOLVE_OUT.call(f.get(0), f.get(1), b, false, wrongDtype));
        assertEquals("linalg_ldl_solve: Expected out tensor to have dtype float, but got double instead", e.getMessage());
    }

    /** Ember's refusal, and libtorch's for the same call: Ember's message is in libtorch's text. */
    private static void sameRefusal(Executable ember, String torchExpr, Object... args) {
        Throwable e = assertThrows(RuntimeException.class, ember);
        RuntimeException torch = assertThrows(RuntimeException.class, () -> Torch.callList(torchExpr, args));
        assertTrue(Torch.refusalText(torch).contains(e.getMessage()), "Ember: " + e.getMessage() + "\nlibtorch: " + Torch.refusalText(torch));
    }

    @Test
    void badInputIsRefusedWithAtensWords() {
        Tensor m = symmetric(DType.FLOAT64, 3, 3), v = Inputs.randn(rng, DType.FLOAT64, 3), rect = Inputs.randn(rng, DType.FLOAT64, 2, 3);
        Tensor ints = Tensor.ofLongs(1, 2, 2, 1).reshape(2, 2), single = Inputs.randn(rng, DType.FLOAT32, 3, 2);
        List<Tensor> f = Linalg.ldlFactor(m);
        Tensor ld = f.get(0), piv = f.get(1), b = Inputs.randn(rng, DType.FLOAT64, 3, 2);
        sameRefusal(() -> Linalg.ldlFactorEx(v, false), "torch.linalg_ldl_factor_ex(a)", v);
        sameRefusal(() -> Linalg.ldlFactorEx(rect, false), "torch.linalg_ldl_factor_ex(a)", rect);
        sameRefusal(() -> Linalg.ldlFactorEx(ints, false), "torch.linalg_ldl_factor_ex(a)", ints);
        sameRefusal(() -> Linalg.ldlFactor(rect), "torch.linalg_ldl_factor(a)", rect);
        sameRefusal(() -> Linalg.ldlSolve(v, piv, b), "torch.linalg_ldl_solve(a, b, c)", v, piv, b);
        sameRefusal(() -> Linalg.ldlSolve(rect, piv, b), "torch.linalg_ldl_solve(a, b, c)", rect, piv, b);
        sameRefusal(() -> Linalg.ldlSolve(ints, Tensor.of(new int[] {1, 2}, 2), ints), "torch.linalg_ldl_solve(a, b, c)", ints, Tensor.of(new int[] {1, 2}, 2), ints);
        sameRefusal(() -> Linalg.ldlSolve(ld, piv, single), "torch.linalg_ldl_solve(a, b, c)", ld, piv, single);
        sameRefusal(() -> Linalg.ldlSolve(ld, piv, rect), "torch.linalg_ldl_solve(a, b, c)", ld, piv, rect);
        sameRefusal(() -> Linalg.ldlSolve(ld, piv.narrow(0, 0, 2), b), "torch.linalg_ldl_solve(a, b, c)", ld, piv.narrow(0, 0, 2), b);
        sameRefusal(() -> Linalg.ldlSolve(ld, piv.to(DType.FLOAT32), b), "torch.linalg_ldl_solve(a, b, c)", ld, piv.to(DType.FLOAT32), b);
        Tensor batchLd = symmetric(DType.FLOAT64, 2, 3, 3), batchB = Inputs.randn(rng, DType.FLOAT64, 3, 3, 2);
        List<Tensor> bf = Linalg.ldlFactor(batchLd);
        // batches that do not broadcast: libtorch 2.7 through DJL refuses without its words; these are PyTorch 2.13's
        IllegalArgumentException batches = assertThrows(IllegalArgumentException.class, () -> Linalg.ldlSolve(bf.get(0), bf.get(1), batchB));
        assertEquals("The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0", batches.getMessage());
        assertThrows(RuntimeException.class, () -> Torch.call("torch.linalg_ldl_solve(a, b, c)", bf.get(0), bf.get(1), batchB));

        // a vector B: ATen's own check is unreachable (an IndexError comes first); Ember gives the check's words
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Linalg.ldlSolve(ld, piv, v));
        assertEquals("torch.linalg.ldl_solve: Expected B to have at least 2 dimensions, but it has 1 dimensions instead", e.getMessage());
        assertThrows(RuntimeException.class, () -> Torch.call("torch.linalg_ldl_solve(a, b, c)", ld, piv, v));

        // a singular D with errors checked: ATen fails an internal assert ("Unknown error code"); Ember says what info means
        Tensor zeros = Tensor.zeros(DType.FLOAT64, 2, 2, 2);
        for (String call : List.of("ldl_factor", "ldl_factor_ex")) {
            Executable ember = call.equals("ldl_factor") ? () -> Linalg.ldlFactor(zeros) : () -> Linalg.ldlFactorEx(zeros, true);
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, ember);
            assertTrue(refused.getMessage().startsWith("torch.linalg." + call + ": (Batch element 0): D[1,1] is exactly zero"), refused.getMessage());
            String torchCall = call.equals("ldl_factor") ? "torch.linalg_ldl_factor(a)" : "torch.linalg_ldl_factor_ex(a, check_errors=True)";
            RuntimeException torch = assertThrows(RuntimeException.class, () -> Torch.callList(torchCall, zeros));
            assertTrue(Torch.refusalText(torch).contains("torch.linalg." + call), Torch.refusalText(torch));
        }

        // pivots ldl_factor cannot have made: LAPACK's sytrs would read out of bounds; Ember names the bad one
        for (int[] bad : List.of(new int[] {1, 4, 3}, new int[] {0, 2, 3}, new int[] {1, 2, -3}, new int[] {-2, 2, 3})) {
            IllegalArgumentException p = assertThrows(IllegalArgumentException.class, () -> Linalg.ldlSolve(ld, Tensor.of(bad, 3), b));
            assertTrue(p.getMessage().startsWith("torch.linalg.ldl_solve: pivots["), p.getMessage());
        }
    }

    @Test
    void noDerivativeAsInAten() {
        Tensor a = symmetric(DType.FLOAT64, 3, 3).requiresGrad(true);
        List<Tensor> f = Linalg.ldlFactor(a);
        assertTrue(f.get(0).requiresGrad(), "LD records, as in ATen, whose backward then refuses");
        Tensor b = Inputs.randn(rng, DType.FLOAT64, 3, 2);
        assertClose(f.get(0).detach(), Torch.callList("torch.linalg_ldl_factor(a)", a.detach()).get(0), "values with grad recording");
        RuntimeException e = assertThrows(RuntimeException.class, () -> Linalg.ldlSolve(f.get(0), f.get(1), b).sum().backward());
        assertTrue(e.getMessage().contains("the derivative for 'aten.linalg_ldl_solve.default' is not implemented"), e.getMessage());
        RuntimeException torch = assertThrows(RuntimeException.class, () -> Torch.callListWithGrad(Torch.manager(),
                "a = a.detach().requires_grad_(True)\nLD, p = torch.linalg_ldl_factor(a)\nreturn torch.autograd.grad([LD.sum()], [a])", a.detach()));
        assertTrue(Torch.refusalText(torch).contains("derivative for aten::linalg_ldl_factor_ex is not implemented"), Torch.refusalText(torch));
    }

    static Tensor ldlProgram(Tensor a, Tensor b) {
        Tensor symmetric = a.add(a.transpose(-2, -1));
        List<Tensor> f = Linalg.ldlFactorEx(symmetric, false);
        Tensor x = Linalg.ldlSolve(f.get(0), f.get(1), b);
        return CompiledOpsCheck.flattenedAndJoined(List.of(f.get(0), f.get(1).to(a.dtype()), f.get(2).to(a.dtype()), x.mul(2.0)));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerInOneGraph(String backend) {
        Tensor a = Inputs.randn(rng, DType.FLOAT32, 2, 4, 4), b = Inputs.randn(rng, DType.FLOAT32, 2, 4, 3);
        Fn2<Tensor, Tensor, Tensor> fn = LinalgLdlOpsTest::ldlProgram;
        ExplainOutput e = Ember.explain(fn).with(a, b);
        assertEquals(0, e.graphBreakCount(), e.toString());
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(fn, Options.backend(backend).fullgraph(true));
        assertClose(f.apply(a, b), fn.apply(a, b), backend);
    }

    /** docs/tensors.md, "LDL of symmetric matrices", as written there: the shapes it promises, and what the solve undoes. */
    @Test
    void docsExample() {
        Tensor s = Tensor.randn(2, 4, 4);
        Tensor a = s.add(s.transpose(-2, -1)), b = Tensor.randn(2, 4, 3);   // symmetric, indefinite
        List<Tensor> ldl = Linalg.ldlFactor(a);                             // LD [2, 4, 4], pivots [2, 4] int32
        Tensor x = Linalg.ldlSolve(ldl.get(0), ldl.get(1), b);              // a · x = b
        Tensor info = Linalg.ldlFactorEx(Tensor.zeros(3, 3), false).get(2); // 1: D's first element is 0
        assertEquals(List.of(2, 4, 4), Arrays.stream(ldl.get(0).shape()).boxed().toList());
        assertEquals(List.of(2, 4), Arrays.stream(ldl.get(1).shape()).boxed().toList());
        assertEquals(DType.INT32, ldl.get(1).dtype());
        // a backward-stable solve: the residual is float32 rounding of |a| |x|, whatever a's condition
        double residual = a.to(DType.FLOAT64).matmul(x.to(DType.FLOAT64)).sub(b.to(DType.FLOAT64)).abs().max().item();
        double scale = a.abs().max().item() * x.abs().max().item() * 4;
        assertTrue(residual <= 1e-5 * scale, "a · x = b: residual " + residual + " against |a| |x| " + scale);
        assertEquals(1L, info.to(DType.INT64).item());
    }

    /** docs/ops.md's example, as written there: the ops it names, computing what their targets do. */
    @Test
    void opsPageExample() {
        Tensor s = Tensor.randn(4, 4), a = s.add(s.transpose(0, 1));
        List<Tensor> ldl = Linalg.ldlFactor(a);                      // aten.linalg_ldl_factor
        Tensor x = Linalg.ldlSolve(ldl.get(0), ldl.get(1), Tensor.randn(4, 2));
        Tensor y = a.clip(-1.0, 1.0).arccos().angle();               // aten.clip, aten.arccos, aten.angle
        assertEquals(List.of(4, 2), Arrays.stream(x.shape()).boxed().toList());
        assertClose(y, Torch.call("torch.angle(torch.arccos(torch.clip(a, -1.0, 1.0)))", a), "clip, arccos, angle");
    }
}
