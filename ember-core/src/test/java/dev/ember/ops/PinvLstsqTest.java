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
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ops composed of the SVD and eigh — linalg.pinv, pinverse, matrix_rank, lstsq (gelsy's
 * minimum-norm solution), cond, and matrix_norm's 2, -2 and 'nuc' — against libtorch's float64
 * results (rounded to float32 for float32 inputs), full-rank and rank-deficient; their gradients
 * against libtorch's; ATen's refusals; compiled functions giving eager's values and gradients.
 */
class PinvLstsqTest {
    private final Random rng = new Random(43);

    @AfterEach
    void reset() { Ember.reset(); }

    private static Tensor reference(String expr, DType dtype, Tensor... args) {
        Object[] wide = new Object[args.length];
        for (int i = 0; i < args.length; i++) wide[i] = args[i].dtype().isFloatingPoint() ? args[i].to(DType.FLOAT64) : args[i];
        Tensor t = Torch.fromNd(Torch.call(expr, wide));
        return t.dtype().isFloatingPoint() ? t.to(dtype) : t;
    }

    private static TorchAssert.Tolerance tolerance(DType dtype) {
        return dtype == DType.FLOAT32 ? TorchAssert.Tolerance.of(2e-4, 2e-4) : TorchAssert.Tolerance.of(1e-9, 1e-10);
    }

    /** Rank 2 of {@code shape}'s min: a product through two dims. */
    private Tensor rankTwo(DType dtype, int m, int n) {
        return Inputs.randn(rng, DType.FLOAT64, m, 2).matmul(Inputs.randn(rng, DType.FLOAT64, 2, n)).to(dtype);
    }

    @Test
    void pinvAndMatrixRankMatchLibtorch() {
        for (DType dtype : List.of(DType.FLOAT64, DType.FLOAT32)) {
            Tensor square = Inputs.randn(rng, dtype, 4, 4);
            Tensor symmetric = square.add(square.transpose(0, 1));
            List<Tensor> inputs = List.of(Inputs.randn(rng, dtype, 5, 3), Inputs.randn(rng, dtype, 3, 5), Inputs.randn(rng, dtype, 2, 4, 4), rankTwo(dtype, 5, 4), symmetric);
            for (Tensor a : inputs) {
                String where = dtype + " " + Arrays.toString(a.shape());
                // a rank-2 matrix rounded to float32 is full rank in float64, its third singular value near float32's
                // default tolerance: the default tolerances have no one right answer there, given ones do
                if (dtype == DType.FLOAT64 || a != inputs.get(3)) {
                    assertClose(Linalg.pinv(a), reference("torch.linalg_pinv(a)", dtype, a), where + " pinv", tolerance(dtype));
                    assertClose(a.pinverse(), reference("torch.pinverse(a)", dtype, a), where + " pinverse", tolerance(dtype));
                    assertClose(Linalg.matrixRank(a), reference("torch.linalg_matrix_rank(a)", dtype, a), where + " matrix_rank");
                }
                assertClose(Linalg.pinv(a, 0.5, null, false), reference("torch.linalg_pinv(a, atol=0.5)", dtype, a), where + " pinv atol", tolerance(dtype));
                assertClose(Linalg.pinv(a, null, 0.3, false), reference("torch.linalg_pinv(a, rtol=0.3)", dtype, a), where + " pinv rtol", tolerance(dtype));
                assertClose(a.pinverse(0.2), reference("torch.pinverse(a, 0.2)", dtype, a), where + " pinverse rcond", tolerance(dtype));
                assertClose(Linalg.matrixRank(a, 0.5, null, false), reference("torch.linalg_matrix_rank(a, atol=0.5)", dtype, a), where + " matrix_rank atol");
                assertClose(Linalg.matrixRank(a, 0.1, 0.3, false), reference("torch.linalg_matrix_rank(a, atol=0.1, rtol=0.3)", dtype, a), where + " matrix_rank atol rtol");
            }
            assertClose(Linalg.pinv(symmetric, null, null, true), reference("torch.linalg_pinv(a, hermitian=True)", dtype, symmetric), dtype + " pinv hermitian", tolerance(dtype));
            assertClose(Linalg.pinv(symmetric, 1.0, null, true), reference("torch.linalg_pinv(a, atol=1.0, hermitian=True)", dtype, symmetric), dtype + " pinv hermitian atol", tolerance(dtype));
            assertClose(Linalg.matrixRank(symmetric, 1.0, null, true), reference("torch.linalg_matrix_rank(a, atol=1.0, hermitian=True)", dtype, symmetric), dtype + " matrix_rank hermitian");
        }
        Tensor empty = Tensor.zeros(DType.FLOAT64, 2, 0, 3);
        assertClose(Linalg.pinv(empty), Torch.call("torch.linalg_pinv(a)", empty), "pinv of empty matrices");
        assertClose(Linalg.matrixRank(empty), Torch.call("torch.linalg_matrix_rank(a)", empty), "matrix_rank of empty matrices");
    }

    @Test
    void lstsqMatchesLibtorch() {
        for (DType dtype : List.of(DType.FLOAT64, DType.FLOAT32)) {
            Tensor[][] cases = {
                    {Inputs.randn(rng, dtype, 6, 3), Inputs.randn(rng, dtype, 6, 2)},
                    {Inputs.randn(rng, dtype, 3, 5), Inputs.randn(rng, dtype, 3, 2)},
                    {Inputs.randn(rng, dtype, 2, 6, 3), Inputs.randn(rng, dtype, 2, 6)},
                    {Inputs.randn(rng, dtype, 2, 1, 6, 3), Inputs.randn(rng, dtype, 1, 4, 6, 2)},
            };
            for (Tensor[] c : cases) {
                String where = dtype + " " + Arrays.toString(c[0].shape()) + " \\ " + Arrays.toString(c[1].shape());
                List<Tensor> got = Linalg.lstsq(c[0], c[1]);
                String[] names = {"solution", "residuals", "rank", "singular_values"};
                for (int i = 0; i < 4; i++) {
                    assertClose(got.get(i), reference("torch.linalg_lstsq(a, b)[" + i + "]", dtype, c[0], c[1]), where + " " + names[i], tolerance(dtype));
                }
            }
        }
        // rank-deficient: gelsy's minimum-norm solution and effective rank
        Tensor a = rankTwo(DType.FLOAT64, 6, 4), b = Inputs.randn(rng, DType.FLOAT64, 6, 3);
        List<Tensor> got = Linalg.lstsq(a, b, 1e-8);
        assertClose(got.get(0), Torch.call("torch.linalg_lstsq(a, b, 1e-8)[0]", a, b), "rank-deficient solution", TorchAssert.Tolerance.of(1e-9, 1e-10));
        assertClose(got.get(2), Torch.call("torch.linalg_lstsq(a, b, 1e-8)[2]", a, b), "rank-deficient rank");
    }

    @Test
    void svdNormsAndCondMatchLibtorch() {
        for (DType dtype : List.of(DType.FLOAT64, DType.FLOAT32)) {
            Tensor a = Inputs.randn(rng, dtype, 2, 3, 4), square = Inputs.randn(rng, dtype, 2, 4, 4);
            for (String ord : List.of("2.0", "-2.0", "'nuc'")) {
                Object javaOrd = ord.startsWith("'") ? "nuc" : Double.parseDouble(ord);
                Tensor plain = javaOrd instanceof String s ? Linalg.matrixNorm(a, s) : Linalg.matrixNorm(a, (Double) javaOrd);
                Tensor dims = javaOrd instanceof String s ? Linalg.matrixNorm(a, s, 2, 0, true) : Linalg.matrixNorm(a, (Double) javaOrd, 2, 0, true);
                assertClose(plain, reference("torch.linalg_matrix_norm(a, " + ord + ")", dtype, a), dtype + " matrix_norm " + ord, tolerance(dtype));
                assertClose(dims, reference("torch.linalg_matrix_norm(a, " + ord + ", [2, 0], True)", dtype, a), dtype + " matrix_norm " + ord + " dims (2, 0) keepdim", tolerance(dtype));
            }
            assertClose(Linalg.cond(square), reference("torch.linalg_cond(a)", dtype, square), dtype + " cond", tolerance(dtype));
            for (double p : new double[] {2, -2, 1, -1, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
                String torchP = Double.isInfinite(p) ? (p > 0 ? "float('inf')" : "float('-inf')") : Double.toString(p);
                assertClose(Linalg.cond(square, p), reference("torch.linalg_cond(a, " + torchP + ")", dtype, square), dtype + " cond " + p, tolerance(dtype));
            }
            for (String p : List.of("fro", "nuc")) {
                assertClose(Linalg.cond(square, p), reference("torch.linalg_cond(a, '" + p + "')", dtype, square), dtype + " cond " + p, tolerance(dtype));
            }
            assertClose(Linalg.cond(a), reference("torch.linalg_cond(a)", dtype, a), dtype + " cond of non-square matrices", tolerance(dtype));
        }
    }

    @Test
    void linalgNormAndVectorNormMatchLibtorch() {
        TorchAssert.Tolerance tol = TorchAssert.Tolerance.of(1e-10, 1e-12);
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 5), a = Inputs.randn(rng, DType.FLOAT64, 3, 4), t = Inputs.randn(rng, DType.FLOAT64, 2, 3, 4);
        assertClose(Linalg.norm(x), Torch.call("torch.linalg_norm(a)", x), "norm of a vector", tol);
        assertClose(Linalg.norm(x, 3.0), Torch.call("torch.linalg_norm(a, 3.0)", x), "norm of a vector, ord 3", tol);
        assertClose(Linalg.norm(x, Double.NEGATIVE_INFINITY), Torch.call("torch.linalg_norm(a, float('-inf'))", x), "norm of a vector, ord -inf", tol);
        assertClose(Linalg.norm(a), Torch.call("torch.linalg_norm(a)", a), "norm of a matrix", tol);
        for (double ord : new double[] {2, -1, Double.POSITIVE_INFINITY}) {
            String torchOrd = Double.isInfinite(ord) ? "float('inf')" : Double.toString(ord);
            assertClose(Linalg.norm(a, ord), Torch.call("torch.linalg_norm(a, " + torchOrd + ")", a), "norm of a matrix, ord " + ord, tol);
        }
        for (String ord : List.of("fro", "nuc")) assertClose(Linalg.norm(a, ord), Torch.call("torch.linalg_norm(a, '" + ord + "')", a), "norm of a matrix, " + ord, tol);
        assertClose(Linalg.norm(t), Torch.call("torch.linalg_norm(a)", t), "norm of all elements of a 3-D tensor", tol);
        assertClose(Linalg.norm(t, 2.0, new int[] {1}, true), Torch.call("torch.linalg_norm(a, 2.0, [1], True)", t), "norm over one dim: a vector norm", tol);
        assertClose(Linalg.norm(t, 2.0, new int[] {0, 2}, false), Torch.call("torch.linalg_norm(a, 2.0, [0, 2])", t), "norm over two dims: a matrix norm", tol);
        assertClose(Linalg.norm(t, "nuc", new int[] {2, 1}, true), Torch.call("torch.linalg_norm(a, 'nuc', [2, 1], True)", t), "nuclear norm over dims (2, 1)", tol);
        assertClose(Linalg.vectorNorm(t, 3.0, new int[] {0, 2}, true), Torch.call("torch.linalg_vector_norm(a, 3.0, [0, 2], True)", t), "vector_norm over two dims", tol);
        assertClose(Linalg.vectorNorm(t, 0.5), Torch.call("torch.linalg_vector_norm(a, 0.5)", t), "vector_norm of all elements", tol);

        assertRefusedAsLibtorch(() -> Linalg.norm(t, 2.0), "torch.linalg_norm(a, 2.0)", "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D.", t);
        assertRefusedAsLibtorch(() -> Linalg.norm(t, 2.0, new int[] {0, 1, 2}, false), "torch.linalg_norm(a, 2.0, [0, 1, 2])",
                "linalg.norm: If dim is specified, it must be of length 1 or 2. Got [0, 1, 2]", t);
        assertRefusedAsLibtorch(() -> Linalg.norm(t, "fro", new int[] {0, 1, 2}, false), "torch.linalg_norm(a, 'fro', [0, 1, 2])",
                "linalg.norm: If dim is specified, it must be of length 1 or 2. Got [0, 1, 2]", t);
    }

    @Test
    void gradientsMatchLibtorch() {
        Tensor tall = Inputs.randn(rng, DType.FLOAT64, 5, 3), rhs = Inputs.randn(rng, DType.FLOAT64, 5, 2), square = Inputs.randn(rng, DType.FLOAT64, 4, 4);
        Tensor sym = square.add(square.transpose(0, 1));
        Tensor[] leaves = {tall.detach().requiresGrad(true), rhs.detach().requiresGrad(true), square.detach().requiresGrad(true), sym.detach().requiresGrad(true)};
        Tensor loss = Linalg.pinv(leaves[0]).sin().sum()
                .add(Linalg.lstsq(leaves[0], leaves[1]).get(0).square().sum())
                .add(Linalg.matrixNorm(leaves[2], "nuc")).add(Linalg.matrixNorm(leaves[2], 2.0)).add(Linalg.matrixNorm(leaves[2], -2.0))
                .add(Linalg.cond(leaves[2]))
                .add(Linalg.pinv(leaves[3], null, null, true).cos().sum());
        List<Tensor> got = Autograd.grad(List.of(loss), Arrays.asList(leaves), null, false, false, false);
        String body = "a = a.detach().requires_grad_(True)\nb = b.detach().requires_grad_(True)\nc = c.detach().requires_grad_(True)\nd = d.detach().requires_grad_(True)\n"
                + "y = torch.linalg_pinv(a).sin().sum() + torch.linalg_lstsq(a, b)[0].square().sum()"
                + " + torch.linalg_matrix_norm(c, 'nuc') + torch.linalg_matrix_norm(c, 2.0) + torch.linalg_matrix_norm(c, -2.0)"
                + " + torch.linalg_cond(c) + torch.linalg_pinv(d, hermitian=True).cos().sum()\n"
                + "return torch.autograd.grad([y], [a, b, c, d])";
        try (NDManager m = Torch.scope()) {
            NDList want = Torch.callListWithGrad(m, body, tall, rhs, square, sym);
            String[] names = {"A (pinv, lstsq)", "B (lstsq)", "square (norms, cond)", "symmetric (hermitian pinv)"};
            for (int i = 0; i < 4; i++) assertClose(got.get(i), want.get(i), "gradient of " + names[i], TorchAssert.Tolerance.of(1e-8, 1e-9));
        }
    }

    private static void assertRefusedAsLibtorch(Supplier<Object> ember, String torchExpr, String expected, Tensor... args) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, ember::get);
        assertEquals(expected, e.getMessage());
        RuntimeException torch = assertThrows(RuntimeException.class, () -> Torch.callList(torchExpr, (Object[]) args));
        assertTrue(Torch.refusalText(torch).contains(expected), Torch.refusalText(torch));
    }

    @Test
    void badInputIsRefusedWithAtensWords() {
        Tensor a = Inputs.randn(rng, DType.FLOAT64, 4, 3), b = Inputs.randn(rng, DType.FLOAT64, 4, 2), vector = Inputs.randn(rng, DType.FLOAT64, 3);
        Tensor ints = Tensor.ofLongs(1, 2, 3, 4).reshape(2, 2);
        assertRefusedAsLibtorch(() -> Linalg.lstsq(vector, b), "torch.linalg_lstsq(a, b)", "torch.linalg.lstsq: input must have at least 2 dimensions.", vector, b);
        assertRefusedAsLibtorch(() -> Linalg.lstsq(a, Inputs.randn(rng, DType.FLOAT64, 3, 2)), "torch.linalg_lstsq(a, b)",
                "torch.linalg.lstsq: input.size(-2) should match other.size(-2)", a, Inputs.randn(rng, DType.FLOAT64, 3, 2));
        assertRefusedAsLibtorch(() -> Linalg.lstsq(a, vector), "torch.linalg_lstsq(a, b)", "torch.linalg.lstsq: input.size(-2) should match other.size(-1)", a, vector);
        assertRefusedAsLibtorch(() -> Linalg.lstsq(a, b.to(DType.FLOAT32)), "torch.linalg_lstsq(a, b)",
                "torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype Double and other's dtype Float", a, b.to(DType.FLOAT32));
        assertRefusedAsLibtorch(() -> OrthogonalOps.LINALG_LSTSQ.call(a, b, null, "fast"), "torch.linalg_lstsq(a, b, driver='fast')",
                "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)", a, b);
        IllegalArgumentException unsupported = assertThrows(IllegalArgumentException.class, () -> OrthogonalOps.LINALG_LSTSQ.call(a, b, null, "gelsd"));
        assertEquals("torch.linalg.lstsq: driver 'gelsd' is not supported by Ember yet; it computes 'gelsy' (the CPU default): pass driver=None", unsupported.getMessage());
        IndexOutOfBoundsException flat = assertThrows(IndexOutOfBoundsException.class, () -> Linalg.pinv(vector));
        assertEquals("linalg.pinv: Dimension out of range (expected to be in range of [-1, 0], but got -2)", flat.getMessage());
        RuntimeException torchFlat = assertThrows(RuntimeException.class, () -> Torch.call("torch.linalg_pinv(a)", vector));
        assertTrue(Torch.refusalText(torchFlat).contains("Dimension out of range (expected to be in range of [-1, 0], but got -2)"), Torch.refusalText(torchFlat));
        IllegalArgumentException integral = assertThrows(IllegalArgumentException.class, () -> Linalg.matrixRank(ints));
        assertEquals("linalg.matrix_rank: This function doesn't handle types other than float and double", integral.getMessage());
        RuntimeException torchIntegral = assertThrows(RuntimeException.class, () -> Torch.call("torch.linalg_matrix_rank(a)", ints));
        assertTrue(Torch.refusalText(torchIntegral).contains("This function doesn't handle types other than float and double"), Torch.refusalText(torchIntegral));
        assertRefusedAsLibtorch(() -> Linalg.matrixRank(ints, null, 0.1, false), "torch.linalg_matrix_rank(a, rtol=0.1)", "linalg.svd: Expected a floating point or complex tensor as input. Got Long", ints);
        assertRefusedAsLibtorch(() -> Linalg.cond(a, 1.0), "torch.linalg_cond(a, 1.0)", "linalg.cond(ord=1.000000): A must be batches of square matrices, but they are 4 by 3 matrices", a);
        assertRefusedAsLibtorch(() -> Linalg.cond(a, "nuc"), "torch.linalg_cond(a, 'nuc')", "linalg.cond(ord=nuc): A must be batches of square matrices, but they are 4 by 3 matrices", a);
        assertRefusedAsLibtorch(() -> Linalg.cond(a, 3.0), "torch.linalg_cond(a, 3.0)", "linalg.cond got an invalid norm type: 3", a);
    }

    static Tensor solveAndMeasure(Tensor a, Tensor b) {
        Tensor x = Linalg.lstsq(a, b).get(0).add(Linalg.pinv(a).matmul(b));
        return x.add(Linalg.matrixNorm(a, "nuc")).add(Linalg.matrixNorm(a, 2.0)).add(Linalg.cond(a)).add(Linalg.matrixRank(a));
    }

    @Test
    void compiledGivesEagersValuesAndGradients() {
        Tensor a = Inputs.randn(rng, DType.FLOAT32, 5, 3), b = Inputs.randn(rng, DType.FLOAT32, 5, 2);
        for (String backend : List.of("aot_eager", "inductor")) {
            CompiledOpsCheck.oneGraphWithEagersValuesAndGradients(PinvLstsqTest::solveAndMeasure, a, b, backend, "A", "B");
        }
    }
}
