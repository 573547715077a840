package dev.ember.ops;

import dev.ember.Ember;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The composite ops under Ember.compile: one graph with no break, and the compiled function returns
 * what eager returns (aot_eager and inductor run the decompositions that eager's kernels run), and
 * so do its gradients.
 */
class CompositeOpsCompileTest {

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    /** Every composite op, its results flattened into one vector. */
    static Tensor composites(Tensor x, Tensor y, Tensor v) {
        Tensor p = x.addcmul(y, v, 0.5).addcdiv(y, v.abs().add(1.0), -0.25).lerp(y, 0.3).lerp(x, y.sigmoid());
        Tensor t = p.tril(-1).add(p.triu(1).flip(0, 1)).roll(new int[] {2, -1}, new int[] {1, 0});
        Tensor rep = t.repeat(2, 1).add(t.tile(2, 1)).repeatInterleave(2, 1);
        Tensor m = rep.movedim(0, 1).swapaxes(0, 1).unflatten(1, 5, 2);
        List<Tensor> halves = m.unbind(2);
        Tensor u = halves.get(0).sub(halves.get(1));
        Tensor diag = v.diag(1);
        Tensor flags = Tensor.stack(List.of(x.gt(0.0).all(), x.gt(0.0).any(), x.gt(-3.0).all(), u.all(1).any()), 0).typeAs(x);
        Tensor norms = Tensor.stack(List.of(x.norm(), x.norm(1.0, new int[] {1}, false).sum(), x.norm(Double.POSITIVE_INFINITY, new int[] {0}, true).sum(),
                x.norm(3.0), x.norm("fro", new int[] {0, 1}, false), diag.trace(), v.dot(v), x.countNonzero(1).sum().typeAs(x)), 0);
        Tensor mv = x.mv(v);
        Tensor products = Tensor.cat(List.of(v.outer(v).reshape(-1), mv.addmv(x, v, 0.5, 2.0), Tensor.einsum("ij,kj->ik", x, y).reshape(-1),
                Tensor.einsum("i...,i", x.unflatten(1, 5, 1), mv).reshape(-1),
                x.unsqueeze(0).narrow(2, 0, 4).baddbmm(x.unsqueeze(0), y.t().unsqueeze(0).narrow(2, 0, 4), 0.5, 1.0).reshape(-1)), 0);
        return Tensor.cat(List.of(u.logsumexp(new int[] {1}, false), rep.diagonal(1, 0, 1), diag.reshape(-1), flags, norms, products,
                v.expandAs(x).reshapeAs(Tensor.zeros(20))), 0);
    }

    private static Tensor[] inputs() {
        Tensor.manualSeed(7);
        return new Tensor[] {Tensor.randn(4, 5), Tensor.randn(4, 5), Tensor.randn(5)};
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerWithNoGraphBreak(String backend) {
        Tensor[] in = inputs();
        ExplainOutput e = Ember.explain((Fn3<Tensor, Tensor, Tensor, Tensor>) CompositeOpsCompileTest::composites).with(in[0], in[1], in[2]);
        assertEquals(0, e.graphBreakCount(), e.toString());
        Fn3<Tensor, Tensor, Tensor, Tensor> f = Ember.compile(CompositeOpsCompileTest::composites, Options.backend(backend).fullgraph(true));
        double[] want = composites(in[0], in[1], in[2]).toDoubleArray(), got = f.apply(in[0], in[1], in[2]).toDoubleArray();
        assertEquals(want.length, got.length);
        for (int i = 0; i < want.length; i++) assertEquals(want[i], got[i], 1e-4 * (1 + Math.abs(want[i])), backend + ": element " + i);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledGradientsMatchEager(String backend) {
        Tensor[] eager = inputs(), compiled = inputs();
        for (int i = 0; i < 3; i++) {
            eager[i] = eager[i].to(DType.FLOAT64).requiresGrad(true);
            compiled[i] = compiled[i].to(DType.FLOAT64).requiresGrad(true);
        }
        Tensor weights = Tensor.randn(200).to(DType.FLOAT64);
        Fn3<Tensor, Tensor, Tensor, Tensor> f = Ember.compile(CompositeOpsCompileTest::composites, Options.backend(backend));
        Tensor want = composites(eager[0], eager[1], eager[2]), got = f.apply(compiled[0], compiled[1], compiled[2]);
        want.mul(weights.narrow(0, 0, want.numel())).sum().backward();
        got.mul(weights.narrow(0, 0, got.numel())).sum().backward();
        for (int i = 0; i < 3; i++) assertArrayEquals(eager[i].grad().toDoubleArray(), compiled[i].grad().toDoubleArray(), 1e-9, backend + ": input " + i);
    }
}
