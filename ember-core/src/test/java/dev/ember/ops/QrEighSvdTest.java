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
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * linalg.qr, eigh, eigvalsh, svd, svdvals and torch.qr / torch.svd against libtorch's float64
 * results (rounded to float32 for float32 inputs). QR's factors are unique (R's diagonal signs are
 * LAPACK's) and compare directly; eigenvectors and singular vectors are unique only up to sign, so
 * they compare through {@code |Vᵀ V_torch| = I} and the reconstruction of A. Gradients of
 * sign-invariant losses compare with libtorch's; ATen's refusals word for word; compiled functions
 * give eager's values and gradients.
 */
class QrEighSvdTest {
    private final Random rng = new Random(41);

    @AfterEach
    void reset() { Ember.reset(); }

    private static Tensor reference(String expr, DType dtype, Tensor... args) {
        Object[] wide = new Object[args.length];
        for (int i = 0; i < args.length; i++) wide[i] = args[i].to(DType.FLOAT64);
        return Torch.fromNd(Torch.call(expr, wide)).to(dtype);
    }

    private static TorchAssert.Tolerance tolerance(DType dtype) {
        return dtype == DType.FLOAT32 ? TorchAssert.Tolerance.of(5e-5, 5e-5) : TorchAssert.Tolerance.of(1e-9, 1e-11);
    }

    private static final int[][] SHAPES = {{4, 3}, {3, 5}, {4, 4}, {2, 5, 2}, {2, 3, 3, 4}, {1, 1}};

    @Test
    void qrMatchesLibtorch() {
        for (DType dtype : List.of(DType.FLOAT64, DType.FLOAT32)) {
            for (int[] shape : SHAPES) {
                Tensor a = Inputs.randn(rng, dtype, shape);
                String where = dtype + " " + Arrays.toString(shape);
                for (String mode : List.of("reduced", "complete")) {
                    List<Tensor> qr = Linalg.qr(a, mode);
                    assertClose(qr.get(0), reference("torch.linalg_qr(a, '" + mode + "')[0]", dtype, a), where + " Q " + mode, tolerance(dtype));
                    assertClose(qr.get(1), reference("torch.linalg_qr(a, '" + mode + "')[1]", dtype, a), where + " R " + mode, tolerance(dtype));
                }
                List<Tensor> r = Linalg.qr(a, "r");
                assertArrayEquals(Torch.shape(Torch.call("torch.linalg_qr(a, 'r')[0]", a)), r.get(0).shape(), where + " mode r: Q is empty");
                assertClose(r.get(1), reference("torch.linalg_qr(a, 'r')[1]", dtype, a), where + " R mode r", tolerance(dtype));
                assertClose(a.qr(false).get(0), reference("torch.qr(a, False)[0]", dtype, a), where + " torch.qr some=False", tolerance(dtype));
                assertClose(a.qr().get(1), reference("torch.qr(a)[1]", dtype, a), where + " torch.qr", tolerance(dtype));
            }
        }
        Tensor rankDeficient = Tensor.of(new double[] {1, 2, 2, 4, 3, 6}, 3, 2);
        assertClose(Linalg.qr(rankDeficient).get(1), Torch.call("torch.linalg_qr(a)[1]", rankDeficient), "a rank-deficient matrix's R", TorchAssert.Tolerance.of(1e-12, 1e-12));
    }

    /** Symmetric matrices with distinct eigenvalues, their other triangle noise that eigh must not read. */
    private Tensor symmetricInLower(DType dtype, int... shape) {
        Tensor m = Inputs.randn(rng, DType.FLOAT64, shape);
        return m.add(m.transpose(-2, -1)).tril(0).add(Inputs.randn(rng, DType.FLOAT64, shape).triu(1)).to(dtype);
    }

    /** Columns of {@code v} against {@code reference}'s up to sign: {@code |vᵀ reference| = I}. */
    private static void assertSameColumnsUpToSign(Tensor v, Tensor reference, String what, double tol) {
        Tensor product = v.transpose(-2, -1).matmul(reference).abs();
        int n = v.size(-1);
        Tensor eye = Tensor.eye(n).to(v.dtype()).expand(product.shape());
        assertClose(product, eye, what + ": |Vᵀ V_torch| = I", TorchAssert.Tolerance.of(tol, tol));
    }

    @Test
    void eighMatchesLibtorch() {
        for (DType dtype : List.of(DType.FLOAT64, DType.FLOAT32)) {
            double tol = dtype == DType.FLOAT32 ? 2e-4 : 1e-9;
            for (int[] shape : new int[][] {{5, 5}, {2, 3, 4, 4}, {1, 1}}) {
                Tensor a = symmetricInLower(dtype, shape);
                Tensor upper = a.transpose(-2, -1).contiguous();
                String where = dtype + " " + Arrays.toString(shape);
                for (Tensor[] in : new Tensor[][] {{a, null}, {upper, null}}) {
                    String uplo = in[0] == a ? "L" : "u";
                    List<Tensor> wv = Linalg.eigh(in[0], uplo);
                    assertClose(wv.get(0), reference("torch.linalg_eigh(a, '" + uplo + "')[0]", dtype, in[0]), where + " eigenvalues UPLO " + uplo, tolerance(dtype));
                    assertSameColumnsUpToSign(wv.get(1), reference("torch.linalg_eigh(a, '" + uplo + "')[1]", dtype, in[0]), where + " eigenvectors UPLO " + uplo, tol);
                    assertClose(Linalg.eigvalsh(in[0], uplo), reference("torch.linalg_eigvalsh(a, '" + uplo + "')", dtype, in[0]), where + " eigvalsh " + uplo, tolerance(dtype));
                }
                List<Tensor> wv = Linalg.eigh(a);
                Tensor rebuilt = wv.get(1).mul(wv.get(0).unsqueeze(-2)).matmul(wv.get(1).transpose(-2, -1));
                Tensor symmetric = a.tril(0).add(a.tril(-1).transpose(-2, -1));
                assertClose(rebuilt, symmetric, where + " V diag(w) Vᵀ = A", TorchAssert.Tolerance.of(tol, tol));
            }
        }
    }

    @Test
    void svdMatchesLibtorch() {
        for (DType dtype : List.of(DType.FLOAT64, DType.FLOAT32)) {
            double tol = dtype == DType.FLOAT32 ? 2e-4 : 1e-9;
            for (int[] shape : SHAPES) {
                Tensor a = Inputs.randn(rng, dtype, shape);
                String where = dtype + " " + Arrays.toString(shape);
                int m = a.size(-2), n = a.size(-1), k = Math.min(m, n);
                assertClose(Linalg.svdvals(a), reference("torch.linalg_svdvals(a)", dtype, a), where + " svdvals", tolerance(dtype));
                for (boolean full : new boolean[] {false, true}) {
                    List<Tensor> usv = Linalg.svd(a, full);
                    String f = where + " full_matrices=" + full;
                    for (int i = 0; i < 3; i++) {
                        assertArrayEquals(Torch.shape(Torch.call("torch.linalg_svd(a, " + (full ? "True" : "False") + ")[" + i + "]", a)), usv.get(i).shape(), f + " shape " + i);
                    }
                    Tensor u = usv.get(0), vh = usv.get(2);
                    assertClose(usv.get(1), reference("torch.linalg_svd(a, False)[1]", dtype, a), f + " S", tolerance(dtype));
                    Tensor uk = u.narrow(-1, 0, k), vk = vh.narrow(-2, 0, k).transpose(-2, -1);
                    assertSameColumnsUpToSign(uk, reference("torch.linalg_svd(a, False)[0]", dtype, a), f + " U", tol);
                    assertSameColumnsUpToSign(vk, reference("torch.linalg_svd(a, False)[2].mT", dtype, a), f + " V", tol);
                    assertClose(u.transpose(-2, -1).matmul(u), Tensor.eye(u.size(-1)).to(dtype).expand(batchAnd(a, u.size(-1), u.size(-1))), f + " UᵀU = I", TorchAssert.Tolerance.of(tol, tol));
                    assertClose(vh.matmul(vh.transpose(-2, -1)), Tensor.eye(vh.size(-2)).to(dtype).expand(batchAnd(a, vh.size(-2), vh.size(-2))), f + " Vh Vhᵀ = I", TorchAssert.Tolerance.of(tol, tol));
                    assertClose(uk.mul(usv.get(1).unsqueeze(-2)).matmul(vk.transpose(-2, -1)), a, f + " U diag(S) Vh = A", TorchAssert.Tolerance.of(tol, tol));
                }
                List<Tensor> old = a.svd();
                assertSameColumnsUpToSign(old.get(2), reference("torch.svd(a)[2]", dtype, a), where + " torch.svd's V", tol);
                List<Tensor> valuesOnly = a.svd(true, false);
                assertClose(valuesOnly.get(0), reference("torch.svd(a, compute_uv=False)[0]", dtype, a), where + " torch.svd compute_uv=False: U zero-filled");
                assertClose(valuesOnly.get(2), reference("torch.svd(a, compute_uv=False)[2]", dtype, a), where + " torch.svd compute_uv=False: V zero-filled");
            }
        }
        // rank 2 of 4: the null space's U columns still complete an orthonormal basis
        Tensor low = Inputs.randn(rng, DType.FLOAT64, 5, 2).matmul(Inputs.randn(rng, DType.FLOAT64, 2, 4));
        assertClose(Linalg.svdvals(low), Torch.call("torch.linalg_svdvals(a)", low), "rank-deficient svdvals", TorchAssert.Tolerance.of(1e-12, 1e-12));
        Tensor u = Linalg.svd(low, true).get(0);
        assertClose(u.transpose(0, 1).matmul(u), Tensor.eye(5).to(DType.FLOAT64), "rank-deficient: U orthonormal", TorchAssert.Tolerance.of(1e-12, 1e-12));
        Tensor zero = Tensor.zeros(DType.FLOAT64, 3, 2);
        assertClose(Linalg.svd(zero, false).get(0).transpose(0, 1).matmul(Linalg.svd(zero, false).get(0)), Tensor.eye(2).to(DType.FLOAT64), "the zero matrix: U orthonormal");
    }

    private static int[] batchAnd(Tensor a, int rows, int cols) {
        int[] shape = Arrays.copyOf(a.shape(), a.dim());
        shape[a.dim() - 2] = rows;
        shape[a.dim() - 1] = cols;
        return shape;
    }

    @Test
    void gradientsMatchLibtorch() {
        Tensor tall = Inputs.randn(rng, DType.FLOAT64, 2, 5, 3), wide = Inputs.randn(rng, DType.FLOAT64, 3, 5), square = Inputs.randn(rng, DType.FLOAT64, 4, 4);
        Tensor sym = square.add(square.transpose(0, 1));
        Tensor[] leaves = {tall.detach().requiresGrad(true), wide.detach().requiresGrad(true), square.detach().requiresGrad(true), sym.detach().requiresGrad(true)};
        // each loss is invariant to the sign of any one singular vector or eigenvector
        Tensor loss = Tensor.zeros(DType.FLOAT64);
        for (int i = 0; i < 3; i++) {
            List<Tensor> qr = Linalg.qr(leaves[i], i == 2 ? "complete" : "reduced");
            loss = loss.add(qr.get(0).sin().sum()).add(qr.get(1).cos().sum());
            List<Tensor> usv = Linalg.svd(leaves[i], i == 2);
            loss = loss.add(usv.get(1).square().sum()).add(usv.get(0).matmul(usv.get(2)).sin().sum())
                    .add(usv.get(0).mul(usv.get(1).unsqueeze(-2)).matmul(usv.get(0).transpose(-2, -1)).cos().sum());
            loss = loss.add(Linalg.svdvals(leaves[i]).exp().sum());
        }
        List<Tensor> wv = Linalg.eigh(leaves[3]);
        Tensor weights = Tensor.arange(4).to(DType.FLOAT64);
        loss = loss.add(wv.get(0).mul(weights).sum()).add(wv.get(1).mul(weights).matmul(wv.get(1).transpose(0, 1)).sin().sum())
                .add(Linalg.eigvalsh(leaves[3], "U").square().sum());
        List<Tensor> got = Autograd.grad(List.of(loss), Arrays.asList(leaves), null, false, false, false);
        String body = "a = a.detach().requires_grad_(True)\nb = b.detach().requires_grad_(True)\nc = c.detach().requires_grad_(True)\nd = d.detach().requires_grad_(True)\n"
                + "y = torch.zeros([], dtype=torch.float64)\n"
                + "ins = [a, b, c]\n"
                + "for i in range(3):\n"
                + "    q, r = torch.linalg_qr(ins[i], 'complete' if i == 2 else 'reduced')\n"
                + "    y = y + q.sin().sum() + r.cos().sum()\n"
                + "    u, s, vh = torch.linalg_svd(ins[i], i == 2)\n"
                + "    y = y + s.square().sum() + (u @ vh).sin().sum() + ((u * s.unsqueeze(-2)) @ u.mT).cos().sum()\n"
                + "    y = y + torch.linalg_svdvals(ins[i]).exp().sum()\n"
                + "w, v = torch.linalg_eigh(d)\n"
                + "k = torch.arange(4).double()\n"
                + "y = y + (w * k).sum() + ((v * k) @ v.mT).sin().sum() + torch.linalg_eigvalsh(d, 'U').square().sum()\n"
                + "return torch.autograd.grad([y], [a, b, c, d])";
        try (NDManager m = Torch.scope()) {
            NDList want = Torch.callListWithGrad(m, body, tall, wide, square, sym);
            String[] names = {"tall (qr, svd)", "wide (qr, svd)", "square (complete qr, full svd)", "symmetric (eigh, eigvalsh)"};
            for (int i = 0; i < 4; i++) assertClose(got.get(i), want.get(i), "gradient of " + names[i], TorchAssert.Tolerance.of(1e-8, 1e-9));
        }
    }

    @Test
    void backwardRefusalsAreAtens() {
        Tensor tall = Inputs.randn(rng, DType.FLOAT64, 4, 3).requiresGrad(true);
        for (String mode : List.of("r", "complete")) {
            Tensor r = Linalg.qr(tall, mode).get(1);
            RuntimeException e = assertThrows(RuntimeException.class, () -> r.sum().backward());
            RuntimeException torch = assertThrows(RuntimeException.class,
                    () -> Torch.callListWithGrad(Torch.manager(), "a = a.detach().requires_grad_(True)\nq, r = torch.linalg_qr(a, '" + mode + "')\nreturn torch.autograd.grad([r.sum()], [a])", tall.detach()));
            assertTrue(Torch.refusalText(torch).contains(e.getMessage()), mode + ": " + e.getMessage() + "\nlibtorch: " + Torch.refusalText(torch));
        }
    }

    private static void assertRefusedAsLibtorch(Supplier<Object> ember, String torchExpr, Tensor arg, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, ember::get);
        assertEquals(expected, e.getMessage());
        RuntimeException torch = assertThrows(RuntimeException.class, () -> Torch.callList(torchExpr, arg));
        assertTrue(Torch.refusalText(torch).contains(expected), Torch.refusalText(torch));
    }

    @Test
    void badInputIsRefusedWithAtensWords() {
        Tensor matrix = Inputs.randn(rng, DType.FLOAT64, 3, 3), vector = Inputs.randn(rng, DType.FLOAT64, 3), wide = Inputs.randn(rng, DType.FLOAT64, 2, 3);
        Tensor ints = Tensor.ofLongs(1, 2, 3, 4).reshape(2, 2);
        assertRefusedAsLibtorch(() -> Linalg.qr(matrix, "full"), "torch.linalg_qr(a, 'full')", matrix,
                "qr received unrecognized mode 'full' but expected one of 'reduced' (default), 'r', or 'complete'");
        assertRefusedAsLibtorch(() -> Linalg.qr(vector), "torch.linalg_qr(a)", vector, "linalg.qr: The input tensor A must have at least 2 dimensions.");
        assertRefusedAsLibtorch(() -> Linalg.qr(ints), "torch.linalg_qr(a)", ints, "linalg.qr: Expected a floating point or complex tensor as input. Got Long");
        assertRefusedAsLibtorch(() -> ints.qr(), "torch.qr(a)", ints, "linalg.qr: Expected a floating point or complex tensor as input. Got Long");
        assertRefusedAsLibtorch(() -> vector.svd(), "torch.svd(a)", vector, "linalg.svd: input should have at least 2 dimensions, but has 1 dimensions instead");
        assertRefusedAsLibtorch(() -> Linalg.eigh(matrix, "X"), "torch.linalg_eigh(a, 'X')", matrix, "Expected UPLO argument to be 'L' or 'U', but got X");
        assertRefusedAsLibtorch(() -> Linalg.eigvalsh(wide), "torch.linalg_eigvalsh(a)", wide, "linalg.eigh: A must be batches of square matrices, but they are 2 by 3 matrices");
        assertRefusedAsLibtorch(() -> Linalg.eigh(vector), "torch.linalg_eigh(a)", vector, "linalg.eigh: The input tensor A must have at least 2 dimensions.");
        assertRefusedAsLibtorch(() -> Linalg.eigh(ints), "torch.linalg_eigh(a)", ints, "\"linalg_eigh_cpu\" not implemented for 'Long'");
        assertRefusedAsLibtorch(() -> Linalg.svd(vector), "torch.linalg_svd(a)", vector, "linalg.svd: The input tensor A must have at least 2 dimensions.");
        assertRefusedAsLibtorch(() -> Linalg.svdvals(ints), "torch.linalg_svdvals(a)", ints, "linalg.svd: Expected a floating point or complex tensor as input. Got Long");
        assertRefusedAsLibtorch(() -> OrthogonalOps.LINALG_SVD.call(matrix, true, "gesvd"), "torch.linalg_svd(a, driver='gesvd')", matrix,
                "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend.");
    }

    @Test
    void emptyMatricesHaveLibtorchsShapes() {
        for (int[] shape : new int[][] {{0, 3}, {3, 0}, {0, 0}, {0, 3, 3}, {2, 0, 2}}) {
            Tensor a = Tensor.zeros(DType.FLOAT64, shape);
            String where = Arrays.toString(shape);
            for (String mode : List.of("reduced", "complete", "r")) {
                List<Tensor> qr = Linalg.qr(a, mode);
                NDList want = Torch.callList("torch.linalg_qr(a, '" + mode + "')", a);
                for (int i = 0; i < 2; i++) assertClose(qr.get(i), want.get(i), where + " qr " + mode + " " + i);
            }
            for (boolean full : new boolean[] {false, true}) {
                List<Tensor> usv = Linalg.svd(a, full);
                NDList want = Torch.callList("torch.linalg_svd(a, " + (full ? "True" : "False") + ")", a);
                for (int i = 0; i < 3; i++) assertArrayEquals(Torch.shape(want.get(i)), usv.get(i).shape(), where + " svd full=" + full + " " + i);
            }
            if (a.size(-1) == a.size(-2)) {
                List<Tensor> wv = Linalg.eigh(a);
                NDList want = Torch.callList("torch.linalg_eigh(a)", a);
                for (int i = 0; i < 2; i++) assertArrayEquals(Torch.shape(want.get(i)), wv.get(i).shape(), where + " eigh " + i);
            }
        }
    }

    @Test
    void nonFiniteInputIsRefusedAsLibtorch() {
        Tensor a = Inputs.randn(rng, DType.FLOAT64, 3, 3);
        Tensor withNan = a.add(Tensor.of(new double[] {0, Double.NaN, 0, 0, 0, 0, 0, 0, 0}, 3, 3));
        Tensor sym = withNan.add(withNan.transpose(0, 1));
        assertRefusedAsLibtorch(() -> Linalg.svd(withNan), "torch.linalg_svd(a)", withNan,
                "linalg.svd: The algorithm failed to converge because the input matrix contained non-finite values.");
        assertRefusedAsLibtorch(() -> Linalg.svdvals(withNan), "torch.linalg_svdvals(a)", withNan,
                "linalg.svd: The algorithm failed to converge because the input matrix contained non-finite values.");
        // libtorch names LAPACK's error code, which depends on the LAPACK build; Ember names the cause
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Linalg.eigh(sym));
        assertEquals("linalg.eigh: The algorithm failed to converge because the input matrix contained non-finite values.", e.getMessage());
        RuntimeException torch = assertThrows(RuntimeException.class, () -> Torch.callList("torch.linalg_eigh(a)", sym));
        assertTrue(Torch.refusalText(torch).contains("linalg.eigh: The algorithm failed to converge because the input matrix"), Torch.refusalText(torch));
        Tensor batch = Tensor.stack(List.of(a, withNan), 0);
        e = assertThrows(IllegalArgumentException.class, () -> Linalg.svdvals(batch));
        assertEquals("linalg.svd: (Batch element 1): The algorithm failed to converge because the input matrix contained non-finite values.", e.getMessage());
        RuntimeException torchBatch = assertThrows(RuntimeException.class, () -> Torch.call("torch.linalg_svdvals(a)", batch));
        assertTrue(Torch.refusalText(torchBatch).contains(e.getMessage()), Torch.refusalText(torchBatch));
        // the triangle eigh does not read may hold anything
        Tensor nanAbove = sym.nanToNum(0.0, 0.0, 0.0).add(Tensor.of(new double[] {0, Double.NaN, 0, 0, 0, 0, 0, 0, 0}, 3, 3));
        assertClose(Linalg.eigvalsh(nanAbove), Torch.call("torch.linalg_eigvalsh(a)", nanAbove), "NaN in the upper triangle, UPLO 'L'", TorchAssert.Tolerance.of(1e-10, 1e-12));
    }

    /** docs/tensors.md, "QR, eigh, SVD and what is built on them", as written there: the shapes it promises, and what each factorization undoes. */
    @Test
    void docsExample() {
        Tensor m = Tensor.randn(5, 3), rhs = Tensor.randn(5, 2);
        List<Tensor> qr = Linalg.qr(m);                       // Q [5, 3], R [3, 3]
        List<Tensor> usv = Linalg.svd(m, false);              // U [5, 3], S [3], Vh [3, 3]
        Tensor sym = m.transpose(0, 1).matmul(m);
        List<Tensor> wv = Linalg.eigh(sym);                   // eigenvalues ascending, eigenvectors as columns
        Tensor x = Linalg.lstsq(m, rhs).get(0), p = Linalg.pinv(m), nuc = Linalg.matrixNorm(m, "nuc");
        assertArrayEquals(new int[] {5, 3}, qr.get(0).shape());
        assertArrayEquals(new int[] {3, 3}, qr.get(1).shape());
        assertArrayEquals(new int[] {3}, usv.get(1).shape());
        TorchAssert.Tolerance tol = TorchAssert.Tolerance.of(1e-4, 1e-4);
        assertClose(qr.get(0).matmul(qr.get(1)), m, "Q R = m", tol);
        assertClose(usv.get(0).mul(usv.get(1).unsqueeze(0)).matmul(usv.get(2)), m, "U diag(S) Vh = m", tol);
        assertClose(wv.get(1).mul(wv.get(0).unsqueeze(0)).matmul(wv.get(1).transpose(0, 1)), sym, "V diag(w) Vᵀ = sym", tol);
        assertClose(x, p.matmul(rhs), "lstsq's solution = pinv · rhs", tol);
        assertClose(nuc, usv.get(1).sum(), "the nuclear norm sums S", tol);
    }

    static Tensor factorizations(Tensor a, Tensor b) {
        List<Tensor> qr = Linalg.qr(a);
        List<Tensor> usv = Linalg.svd(a, false);
        List<Tensor> wv = Linalg.eigh(b.add(b.transpose(0, 1)));
        Tensor rebuilt = qr.get(0).matmul(qr.get(1)).add(usv.get(0).mul(usv.get(1).unsqueeze(-2)).matmul(usv.get(2)));
        Tensor symmetric = wv.get(1).mul(wv.get(0).unsqueeze(-2)).matmul(wv.get(1).transpose(0, 1));
        return rebuilt.matmul(symmetric).add(Linalg.svdvals(a).sum()).add(Linalg.eigvalsh(b, "U").sum());
    }

    @Test
    void compiledGivesEagersValuesAndGradients() {
        Tensor a = Inputs.randn(rng, DType.FLOAT32, 4, 3), b = Inputs.randn(rng, DType.FLOAT32, 3, 3);
        for (String backend : List.of("aot_eager", "inductor")) {
            CompiledOpsCheck.oneGraphWithEagersValuesAndGradients(QrEighSvdTest::factorizations, a, b, backend, "a (qr, svd)", "b (eigh)");
        }
    }
}
