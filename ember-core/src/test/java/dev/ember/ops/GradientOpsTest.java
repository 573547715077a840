package dev.ember.ops;

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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** torch.gradient against libtorch: every dim or one, spacings, edge orders 1 and 2, integer input; refusals; its gradient; compiled. */
class GradientOpsTest {
    private final Random rng = new Random(165);

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    @AfterEach
    void reset() { Ember.reset(); }

    @Test
    void matchesLibtorch() {
        for (DType dtype : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor x = Inputs.randn(rng, dtype, 4, 5, 3);
            for (int edge : new int[] {1, 2}) {
                assertClose(x.gradient(1.0, null, edge), Torch.callList("torch.gradient(a, edge_order=" + edge + ")", x), dtype + " every dim, edge " + edge);
                assertClose(x.gradient(0.5, 1, edge), Torch.callList("torch.gradient(a, spacing=0.5, dim=1, edge_order=" + edge + ")", x),
                        dtype + " dim 1, spacing 0.5, edge " + edge);
                assertClose(x.gradient(2.0, -1, edge), Torch.callList("torch.gradient(a, spacing=2.0, dim=-1, edge_order=" + edge + ")", x),
                        dtype + " dim -1, edge " + edge);
            }
        }
        Tensor ints = Tensor.ofLongs(1, 4, 9, 16, 25);
        assertClose(ints.gradient(), Torch.callList("torch.gradient(a)", ints), "int64: float results");
        assertClose(ints.gradient(1.0, null, 2), Torch.callList("torch.gradient(a, edge_order=2)", ints), "int64, edge 2");
    }

    @Test
    void badArgumentsAreRefusedWithAtensWords() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 3), one = Tensor.ones(1);
        IllegalArgumentException small = assertThrows(IllegalArgumentException.class, () -> x.gradient(1.0, null, 2));
        RuntimeException torch = assertThrows(RuntimeException.class, () -> Torch.callList("torch.gradient(a, edge_order=2)", x));
        assertTrue(Torch.refusalText(torch).contains(small.getMessage()), small.getMessage() + " / " + Torch.refusalText(torch));
        IllegalArgumentException single = assertThrows(IllegalArgumentException.class, one::gradient);
        assertEquals("torch.gradient expected each dimension size to be at least edge_order+1", single.getMessage());
        IllegalArgumentException order = assertThrows(IllegalArgumentException.class, () -> x.gradient(1.0, null, 3));
        RuntimeException torchOrder = assertThrows(RuntimeException.class, () -> Torch.callList("torch.gradient(a, edge_order=3)", x));
        assertTrue(Torch.refusalText(torchOrder).contains(order.getMessage()), order.getMessage() + " / " + Torch.refusalText(torchOrder));
    }

    @Test
    void differentiatesAsLibtorch() {
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 4, 5);
        Tensor leaf = x.detach().requiresGrad(true);
        List<Tensor> g = leaf.gradient(0.5, null, 2);
        Tensor got = Autograd.grad(List.of(g.get(0).sin().sum().add(g.get(1).square().sum())), List.of(leaf), null, false, false, false).get(0);
        String body = "a = a.detach().requires_grad_(True)\ng = torch.gradient(a, spacing=0.5, edge_order=2)\n"
                + "return torch.autograd.grad([g[0].sin().sum() + g[1].square().sum()], [a])";
        try (NDManager m = Torch.scope()) {
            assertClose(got, Torch.callListWithGrad(m, body, x).get(0), "gradient's gradient", TorchAssert.Tolerance.of(1e-10, 1e-12));
        }
    }

    static Tensor program(Tensor a, Tensor b) {
        List<Tensor> g = a.mul(b).gradient(0.25, null, 2);
        return g.get(0).add(g.get(1)).add(b.gradient(1.0, 1, 1).get(0));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerInOneGraph(String backend) {
        Tensor a = Inputs.randn(rng, DType.FLOAT32, 4, 5), b = Inputs.randn(rng, DType.FLOAT32, 4, 5);
        Fn2<Tensor, Tensor, Tensor> fn = GradientOpsTest::program;
        assertEquals(0, Ember.explain(fn).with(a, b).graphBreakCount());
        assertClose(Ember.compile(fn, Options.backend(backend).fullgraph(true)).apply(a, b), fn.apply(a, b), backend);
        CompiledOpsCheck.oneGraphWithEagersValuesAndGradients(GradientOpsTest::program, a, b, backend, "a", "b");
    }

    /** docs/tensors.md, "Differences of samples: gradient", as written there. */
    @Test
    void docsExample() {
        Tensor y = Tensor.ofLongs(1, 4, 9, 16, 25);
        Tensor dy = y.gradient().get(0);                  // [3, 4, 6, 8, 9], float32
        List<Tensor> d = Tensor.randn(4, 5).gradient(0.5, null, 2);   // d/dx0 and d/dx1, second-order edges
        assertClose(dy, Torch.callList("torch.gradient(a)", y).get(0), "dy");
        assertEquals(DType.FLOAT32, dy.dtype());
        assertEquals(2, d.size());
    }
}
