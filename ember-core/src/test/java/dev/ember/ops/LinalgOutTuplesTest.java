package dev.ember.ops;

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
import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The out= forms of the multi-result linear-algebra ops (OutTuples): each result written into its
 * own out, as libtorch's out= call writes it (non-contiguous outs too), ATen's refusals before
 * anything is written, and Ember.compile keeping the writes.
 */
class LinalgOutTuplesTest {
    private final Random rng = new Random(163);

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    @AfterEach
    void reset() { Ember.reset(); }

    /** Empty outs shaped and typed as {@code like}'s tensors, every other one a transposed (non-contiguous) view. */
    private static Tensor[] outsLike(List<Tensor> like) {
        Tensor[] outs = new Tensor[like.size()];
        for (int i = 0; i < outs.length; i++) {
            Tensor t = like.get(i);
            outs[i] = t.dim() >= 2 && i % 2 == 0
                    ? Tensor.zeros(t.dtype(), transposedShape(t.shape())).transpose(-2, -1)
                    : Tensor.zeros(t.dtype(), t.shape());
        }
        return outs;
    }

    private static int[] transposedShape(int[] s) {
        int[] t = s.clone();
        t[s.length - 1] = s[s.length - 2];
        t[s.length - 2] = s[s.length - 1];
        return t;
    }

    /** Each out holds what libtorch's functional op returns (values checked the way each op's own test checks them). */
    private static void assertWritten(List<Tensor> returned, Tensor[] outs, String torchExpr, String context, Tensor... args) {
        assertEquals(outs.length, returned.size(), context);
        for (int i = 0; i < outs.length; i++) assertSame(outs[i], returned.get(i), context + ": out " + i + " returned");
        var want = Torch.callList(torchExpr, (Object[]) args);
        for (int i = 0; i < outs.length; i++) {
            TorchAssert.Tolerance tol = outs[i].dtype().isFloatingPoint() ? TorchAssert.Tolerance.of(1e-4, 1e-4) : TorchAssert.Tolerance.EXACT;
            assertClose(outs[i], want.get(i), context + " out " + i, tol);
        }
    }

    @Test
    void eachResultIsWrittenIntoItsOut() {
        Tensor a = Inputs.randn(rng, DType.FLOAT64, 2, 4, 4).add(Tensor.eye(4).to(DType.FLOAT64).mul(3.0));
        Tensor spd = a.matmul(a.transpose(-2, -1)), b = Inputs.randn(rng, DType.FLOAT64, 2, 4, 3), tall = Inputs.randn(rng, DType.FLOAT64, 5, 3);
        Tensor[] o = outsLike(Linalg.qr(tall, "complete"));
        assertWritten(Linalg.qrOut(tall, "complete", o[0], o[1]), o, "torch.linalg_qr(a, 'complete')", "qr", tall);
        o = outsLike(Linalg.lu(a));
        assertWritten(Linalg.luOut(a, o[0], o[1], o[2]), o, "torch.linalg_lu(a)", "lu", a);
        o = outsLike(Linalg.luFactor(a));
        assertWritten(Linalg.luFactorOut(a, o[0], o[1]), o, "torch.linalg_lu_factor(a)", "lu_factor", a);
        o = outsLike(Linalg.luFactorEx(a, false));
        assertWritten(Linalg.luFactorExOut(a, false, o[0], o[1], o[2]), o, "torch.linalg_lu_factor_ex(a)", "lu_factor_ex", a);
        o = outsLike(Linalg.slogdet(a));
        assertWritten(Linalg.slogdetOut(a, o[0], o[1]), o, "torch.linalg_slogdet(a)", "slogdet", a);
        o = outsLike(Linalg.invEx(a, false));
        assertWritten(Linalg.invExOut(a, false, o[0], o[1]), o, "torch.linalg_inv_ex(a)", "inv_ex", a);
        o = outsLike(Linalg.choleskyEx(spd, false, false));
        assertWritten(Linalg.choleskyExOut(spd, false, false, o[0], o[1]), o, "torch.linalg_cholesky_ex(a)", "cholesky_ex", spd);
        o = outsLike(Linalg.solveEx(a, b, true, false));
        assertWritten(Linalg.solveExOut(a, b, true, false, o[0], o[1]), o, "torch.linalg_solve_ex(a, b)", "solve_ex", a, b);
        Tensor sym = a.add(a.transpose(-2, -1));
        o = outsLike(Linalg.ldlFactor(sym));
        assertWritten(Linalg.ldlFactorOut(sym, o[0], o[1]), o, "torch.linalg_ldl_factor(a)", "ldl_factor", sym);
        o = outsLike(Linalg.ldlFactorEx(sym, false));
        assertWritten(Linalg.ldlFactorExOut(sym, false, o[0], o[1], o[2]), o, "torch.linalg_ldl_factor_ex(a)", "ldl_factor_ex", sym);
        // eigenvalues are unique, vectors and singular vectors up to sign: their products are compared
        o = outsLike(Linalg.eigh(spd));
        Linalg.eighOut(spd, "L", o[0], o[1]);
        assertClose(o[0], Torch.callList("torch.linalg_eigh(a)", spd).get(0), "eigh eigenvalues", TorchAssert.Tolerance.of(1e-8, 1e-8));
        assertClose(o[1].matmul(o[0].unsqueeze(-1).mul(o[1].transpose(-2, -1))), spd, "eigh out: V diag(w) Vᵀ = A", TorchAssert.Tolerance.of(1e-8, 1e-8));
        o = outsLike(Linalg.svd(tall, false));
        Linalg.svdOut(tall, false, o[0], o[1], o[2]);
        assertClose(o[1], Torch.callList("torch.linalg_svd(a, full_matrices=False)", tall).get(1), "svd singular values", TorchAssert.Tolerance.of(1e-8, 1e-8));
        assertClose(o[0].mul(o[1]).matmul(o[2]), tall, "svd out: U diag(S) Vh = A", TorchAssert.Tolerance.of(1e-8, 1e-8));
    }

    @Test
    void badOutsAreRefusedBeforeAnythingIsWritten() {
        Tensor a = Inputs.randn(rng, DType.FLOAT32, 3, 3);
        Tensor q = Tensor.zeros(DType.FLOAT32, 3, 3), rWrongDtype = Tensor.zeros(DType.FLOAT64, 3, 3);
        refusedAsLibtorch(() -> Linalg.qrOut(a, "reduced", q, rWrongDtype), "torch.linalg_qr(a, 'reduced', Q=b, R=c)", a, q, rWrongDtype);
        assertClose(q, Tensor.zeros(DType.FLOAT32, 3, 3), "Q untouched by the refused call");
        Tensor lu = Tensor.zeros(DType.FLOAT32, 3, 3), longPivots = Tensor.zeros(DType.INT64, 3);
        refusedAsLibtorch(() -> Linalg.luFactorOut(a, lu, longPivots), "torch.linalg_lu_factor(a, LU=b, pivots=c)", a, lu, longPivots);
        Tensor sign = Tensor.zeros(DType.FLOAT64), logabsdet = Tensor.zeros(DType.FLOAT32);
        refusedAsLibtorch(() -> Linalg.slogdetOut(a, sign, logabsdet), "torch.linalg_slogdet(a, sign=b, logabsdet=c)", a, sign, logabsdet);
        // a wrong shape: ATen resizes; Ember refuses, naming both shapes
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Linalg.qrOut(a, "reduced", Tensor.zeros(DType.FLOAT32, 2, 3), q));
        assertEquals("linalg_qr: out tensor 0 has shape [2, 3] but the result has shape [3, 3]; Ember does not resize out (ATen would, with a warning): "
                + "pass an out of shape [3, 3]", e.getMessage());
        // an input that requires grad: ATen's refusal, out= ops do not record
        Tensor leaf = a.detach().requiresGrad(true);
        IllegalArgumentException grad = assertThrows(IllegalArgumentException.class, () -> Linalg.qrOut(leaf, "reduced", q, Tensor.zeros(DType.FLOAT32, 3, 3)));
        assertTrue(grad.getMessage().startsWith("linalg_qr(): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad."),
                grad.getMessage());
        try (var unused = Ember.noGrad()) {
            Linalg.qrOut(leaf, "reduced", q, Tensor.zeros(DType.FLOAT32, 3, 3));
        }
        assertClose(q, Linalg.qr(a).get(0), "without grad mode the out= call runs");
    }

    private static void refusedAsLibtorch(Executable ember, String torchExpr, Object... args) {
        Throwable e = assertThrows(RuntimeException.class, ember);
        RuntimeException torch = assertThrows(RuntimeException.class, () -> Torch.callList(torchExpr, args));
        String words = e.getMessage().substring(e.getMessage().indexOf(": ") + 2);
        assertTrue(Torch.refusalText(torch).contains(words), "Ember: " + e.getMessage() + "\nlibtorch: " + Torch.refusalText(torch));
    }

    static Tensor outProgram(Tensor a, Tensor b) {
        Tensor q = Tensor.zeros(DType.FLOAT32, 3, 3), r = Tensor.zeros(DType.FLOAT32, 3, 3);
        Linalg.qrOut(a, "reduced", q, r);
        Tensor lu = Tensor.zeros(DType.FLOAT32, 3, 3), pivots = Tensor.zeros(DType.INT32, 3);
        Linalg.luFactorOut(a.add(b), lu, pivots);
        return CompiledOpsCheck.flattenedAndJoined(new ArrayList<>(List.of(q.abs(), r.abs(), lu, pivots.to(DType.FLOAT32))));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerInOneGraph(String backend) {
        Tensor a = Inputs.randn(rng, DType.FLOAT32, 3, 3), b = Inputs.randn(rng, DType.FLOAT32, 3, 3);
        Fn2<Tensor, Tensor, Tensor> fn = LinalgOutTuplesTest::outProgram;
        ExplainOutput e = Ember.explain(fn).with(a, b);
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertClose(Ember.compile(fn, Options.backend(backend).fullgraph(true)).apply(a, b), fn.apply(a, b), backend);
    }

    /** docs/tensors.md, "Writing into an existing tensor (out=)", the multi-result example as written there. */
    @Test
    void docsExample() {
        Tensor a = Tensor.randn(4, 3), q = Tensor.empty(4, 3), r = Tensor.empty(3, 3);
        Linalg.qrOut(a, "reduced", q, r);                                    // q · r = a
        Tensor lu = Tensor.empty(3, 3), pivots = Tensor.zeros(DType.INT32, 3);
        Linalg.luFactorOut(Tensor.randn(3, 3), lu, pivots);                  // an int64 pivots is refused
        assertClose(q.matmul(r), a, "q · r = a", TorchAssert.Tolerance.of(1e-4, 1e-5));
        assertThrows(IllegalArgumentException.class, () -> Linalg.luFactorOut(Tensor.randn(3, 3), lu, Tensor.zeros(DType.INT64, 3)));
    }
}
