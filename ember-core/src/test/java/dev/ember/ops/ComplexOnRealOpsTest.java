package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.Autograd;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * ATen's complex-number ops on real tensors (real, conj, conj_physical, resolve_conj,
 * resolve_neg, isreal, angle) and the tensor predicates (equal, is_floating_point, is_signed,
 * is_nonzero, …) against libtorch, angle's zero gradient, and Ember.compile giving eager's values.
 */
class ComplexOnRealOpsTest {
    private final Random rng = new Random(162);

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    @AfterEach
    void reset() { Ember.reset(); }

    private List<Tensor> inputs() {
        return List.of(Inputs.randn(rng, DType.FLOAT32, 3, 4), Inputs.specials(DType.FLOAT32), Inputs.specials(DType.FLOAT64),
                Tensor.ofLongs(-3, 0, 2, -1).reshape(2, 2), Tensor.of(new int[] {5, -5, 0}, 3), Tensor.of(new boolean[] {true, false}, 2),
                Inputs.nonContiguous(Inputs.randn(rng, DType.FLOAT64, 3, 4)));
    }

    @Test
    void valuesMatchLibtorch() {
        for (Tensor x : inputs()) {
            String s = x.dtype() + " " + java.util.Arrays.toString(x.shape());
            assertClose(x.angle(), Torch.call("torch.angle(a)", x), "angle " + s);
            assertClose(x.real(), Torch.call("torch.real(a)", x), "real " + s);
            assertClose(x.conj(), Torch.call("torch.conj(a)", x), "conj " + s);
            assertClose(x.conjPhysical(), Torch.call("torch.conj_physical(a)", x), "conj_physical " + s);
            assertClose(x.resolveConj(), Torch.call("torch.resolve_conj(a)", x), "resolve_conj " + s);
            assertClose(x.resolveNeg(), Torch.call("torch.resolve_neg(a)", x), "resolve_neg " + s);
            assertClose(x.isreal(), Torch.call("torch.isreal(a)", x), "isreal " + s);
            assertEquals(Torch.call("torch.is_floating_point(a)", x).getBoolean(), x.isFloatingPoint(), "is_floating_point " + s);
            assertEquals(Torch.call("torch.is_complex(a)", x).getBoolean(), x.isComplex(), "is_complex " + s);
            assertEquals(Torch.call("a.is_signed()", x).getBoolean(), x.isSigned(), "is_signed " + s);
            assertEquals(Torch.call("a.element_size()", x).toLongArray()[0], x.elementSize(), "element_size " + s);
            // nelement and ndimension are Python spellings of numel and dim, which TorchScript has
            assertEquals(Torch.call("a.numel()", x).toLongArray()[0], x.nelement(), "nelement " + s);
            assertEquals(Torch.call("a.dim()", x).toLongArray()[0], x.ndimension(), "ndimension " + s);
        }
        // real and conj are the tensor itself: a write through them shows in it
        Tensor t = Tensor.zeros(DType.FLOAT32, 2, 2);
        t.real().fill_(3.0);
        t.conj().select(0, 0).fill_(-1.0);
        assertClose(t, Torch.call("b = a.clone()\nb.real.fill_(3.0)\nb.conj().select(0, 0).fill_(-1.0)\nreturn b", Tensor.zeros(DType.FLOAT32, 2, 2)), "writes through real and conj");
        Tensor c = Tensor.zeros(DType.FLOAT32, 2);
        c.conjPhysical().fill_(1.0);
        assertClose(c, Tensor.zeros(DType.FLOAT32, 2), "conj_physical is a copy");
    }

    @Test
    void predicatesMatchLibtorch() {
        Tensor a = Inputs.randn(rng, DType.FLOAT32, 2, 3), nan = Inputs.specials(DType.FLOAT32);
        Tensor ints = Tensor.of(new int[] {1, 2, 3}, 3), floats = Tensor.of(new float[] {1, 2, 3}, 3), longs = Tensor.ofLongs(1, 2, 3);
        List<Tensor[]> pairs = List.of(new Tensor[] {a, a.clone()}, new Tensor[] {a, a.add(1e-3)}, new Tensor[] {a, a.reshape(3, 2)},
                new Tensor[] {nan, nan}, new Tensor[] {ints, longs}, new Tensor[] {Tensor.zeros(DType.FLOAT32, 0, 2), Tensor.zeros(DType.FLOAT32, 0, 2)},
                new Tensor[] {a, a.transpose(0, 1).contiguous().transpose(0, 1)}, new Tensor[] {a, a.expand(2, 2, 3).select(0, 1)});
        for (Tensor[] p : pairs) {
            String s = p[0].dtype() + java.util.Arrays.toString(p[0].shape()) + " vs " + p[1].dtype() + java.util.Arrays.toString(p[1].shape());
            assertEquals(Torch.call("torch.equal(a, b)", p[0], p[1]).getBoolean(), p[0].equal(p[1]), "equal " + s);
            assertEquals(Torch.call("a.is_same_size(b)", p[0], p[1]).getBoolean(), p[0].isSameSize(p[1]), "is_same_size " + s);
        }
        // equal across dtypes compares the values, promoted as eq promotes them (as PyTorch 2.13 does)
        assertEquals(true, ints.equal(floats));
        for (Tensor one : List.of(Tensor.of(new float[] {0}, 1), Tensor.of(new float[] {Float.NaN}, 1, 1), Tensor.ofLongs(7).reshape(), Tensor.of(new boolean[] {false}, 1))) {
            assertEquals(Torch.call("torch.is_nonzero(a)", one).getBoolean(), one.isNonzero(), "is_nonzero " + one);
        }
        for (Tensor bad : List.of(Tensor.zeros(DType.FLOAT32, 0), Tensor.zeros(DType.FLOAT32, 2))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, bad::isNonzero);
            RuntimeException torch = assertThrows(RuntimeException.class, () -> Torch.call("torch.is_nonzero(a)", bad));
            org.junit.jupiter.api.Assertions.assertTrue(Torch.refusalText(torch).contains(e.getMessage()), e.getMessage() + " / " + Torch.refusalText(torch));
        }
    }

    @Test
    void angleHasAtensZeroGradient() {
        Tensor x = Tensor.of(new double[] {-2, -0.5, 0.25, 3, Double.NaN, 1}, 2, 3);
        Tensor leaf = x.detach().requiresGrad(true);
        Tensor got = Autograd.grad(List.of(leaf.angle().mul(leaf).sum()), List.of(leaf), null, false, false, false).get(0);
        try (NDManager m = Torch.scope()) {
            String body = "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([(torch.angle(a) * a).sum()], [a])";
            assertClose(got, Torch.callListWithGrad(m, body, x).get(0), "angle's gradient: zero, NaN inputs included");
        }
    }

    static Tensor program(Tensor a, Tensor b) {
        Tensor x = a.angle().add(b.real()).add(a.conj().mul(b.resolveConj())).add(a.conjPhysical().resolveNeg());
        return x.add(a.isreal().to(a.dtype())).add(a.to(DType.INT64).angle());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerInOneGraph(String backend) {
        Tensor a = Inputs.randn(rng, DType.FLOAT32, 3, 4).mul(3.0), b = Inputs.randn(rng, DType.FLOAT32, 3, 4);
        Fn2<Tensor, Tensor, Tensor> fn = ComplexOnRealOpsTest::program;
        ExplainOutput e = Ember.explain(fn).with(a, b);
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertClose(Ember.compile(fn, Options.backend(backend).fullgraph(true)).apply(a, b), fn.apply(a, b), backend);
        CompiledOpsCheck.oneGraphWithEagersValuesAndGradients(ComplexOnRealOpsTest::program, a, b, backend, "a", "b");
    }

    /** docs/tensors.md, "Complex-number ops on real tensors, and predicates", as written there. */
    @Test
    void docsExample() {
        Tensor x = Tensor.of(new double[] {-2, 0, 3, Double.NaN}, 4);
        Tensor phase = x.angle();                     // [π, 0, 0, NaN]
        boolean same = x.equal(x.clone());            // false: NaN is not equal to itself
        boolean real = x.isreal().all().item() != 0;  // true
        assertClose(phase, Torch.call("torch.angle(a)", x), "angle");
        assertEquals(Torch.call("torch.equal(a, a.clone())", x).getBoolean(), same);
        assertEquals(true, real);
    }
}
