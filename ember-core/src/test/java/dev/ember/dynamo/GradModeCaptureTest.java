package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.GradMode;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Grad-mode scopes inside compiled code: traced without a graph break, and still right across one. */
class GradModeCaptureTest {

    @AfterEach
    void reset() {
        GradMode.setEnabled(true);
        Ember.reset();
    }

    /** Statistics taken without gradient, as a normalization step does. */
    static Tensor centered(Tensor x, Tensor w) {
        Tensor h = x.matmul(w);
        Tensor mean;
        try (var scope = Ember.noGrad()) {
            mean = h.mean();
        }
        return h.sub(mean).tanh().sum();
    }

    /** A graph break (item) inside the scope: the rest of the scope runs after the break. */
    static Tensor breakInside(Tensor x, Tensor w) {
        Tensor h = x.matmul(w);
        Tensor out;
        try (var scope = Ember.noGrad()) {
            double m = h.mean().item();
            out = h.sub(m);
        }
        return out;
    }

    static Tensor readsMode(Tensor x, Tensor w) {
        Tensor y = x.matmul(w);
        try (var scope = Ember.noGrad()) {
            if (GradMode.isEnabled()) return y.mul(100.0);
        }
        return GradMode.isEnabled() ? y.add(1.0) : y;
    }

    @ParameterizedTest
    @ValueSource(strings = {"inductor", "aot_eager", "eager"})
    void aNoGradScopeIsTracedWithoutABreakAndDifferentiatesLikeEager(String backend) {
        Generator g = new Generator(3);
        Tensor x = Tensor.randn(g, 3, 4), w = Tensor.randn(g, 4, 5).requiresGrad(true);
        var explained = Ember.explain((Fn2<Tensor, Tensor, Tensor>) GradModeCaptureTest::centered).with(x, w);
        assertEquals(0, explained.graphBreakCount(), explained.toString());
        centered(x, w).backward();
        float[] expected = w.grad().toFloatArray();
        w.setGrad(null);
        Ember.compile((Fn2<Tensor, Tensor, Tensor>) GradModeCaptureTest::centered, Options.backend(backend)).apply(x, w).backward();
        assertArrayEquals(expected, w.grad().toFloatArray(), 1e-4f);
        assertTrue(GradMode.isEnabled(), "the scope's end switched recording back on");
    }

    @Test
    void aBreakInsideTheScopeKeepsTheRestOfTheScopeUnrecordedAndRestoresTheMode() {
        Generator g = new Generator(4);
        Tensor x = Tensor.randn(g, 3, 4), w = Tensor.randn(g, 4, 5).requiresGrad(true);
        Tensor expected = breakInside(x, w);
        assertFalse(expected.requiresGrad());
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) GradModeCaptureTest::breakInside, Options.backend("inductor"));
        for (int i = 0; i < 2; i++) {
            Tensor out = f.apply(x, w);
            assertFalse(out.requiresGrad(), "computed inside noGrad()");
            assertArrayEquals(expected.toFloatArray(), out.toFloatArray(), 1e-5f);
            assertTrue(GradMode.isEnabled(), "closing the scope after the break restored recording");
        }
    }

    @Test
    void gradModeReadsInsideTracedCodeSeeTheScope() {
        Tensor x = Tensor.randn(2, 3), w = Tensor.randn(3, 3);
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) GradModeCaptureTest::readsMode, Options.backend("inductor"));
        assertArrayEquals(readsMode(x, w).toFloatArray(), f.apply(x, w).toFloatArray(), 1e-5f);
        try (var scope = Ember.noGrad()) {
            assertArrayEquals(readsMode(x, w).toFloatArray(), f.apply(x, w).toFloatArray(), 1e-5f);
            assertFalse(GradMode.isEnabled());
        }
    }

    /** test_subgraphs.py::test_resume_with_no_grad1's shape: a break inside a noGrad block, with work on both sides. */
    static Tensor breakInsideWithWorkAround(Tensor a, Tensor b) {
        Tensor x = a.add(b);
        try (var scope = Ember.noGrad()) {
            x = x.add(1);
            x.sum().toFloatArray();   // graph break
            x = x.add(2);
        }
        return x.mul(b);
    }

    /**
     * Each graph a grad-mode block spans says the mode its ops run in, as Dynamo's do: the graph a
     * break ends inside the block restores the mode outside it last, and the resumed graph sets the
     * block's mode first. The nodes only describe: the code after each graph still runs in the
     * block's mode, on every backend, and what leaves the block is unrecorded.
     */
    @ParameterizedTest
    @ValueSource(strings = {"inductor", "aot_eager", "eager"})
    void graphsABlockSpansSetItsModeAtTheirEdgesAndStillRunInIt(String backend) {
        Generator g = new Generator(5);
        Tensor a = Tensor.randn(g, 3).requiresGrad(true), b = Tensor.randn(g, 3).requiresGrad(true);
        Tensor ea = a.detach().clone().requiresGrad(true), eb = b.detach().clone().requiresGrad(true);
        breakInsideWithWorkAround(ea, eb).sum().backward();
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) GradModeCaptureTest::breakInsideWithWorkAround, Options.backend(backend));
        for (int call = 0; call < 2; call++) {
            a.setGrad(null);
            b.setGrad(null);
            f.apply(a, b).sum().backward();
            assertEquals(null, ea.grad(), "eager: a reaches the result only through the block");
            assertEquals(null, a.grad(), backend);
            assertArrayEquals(eb.grad().toFloatArray(), b.grad().toFloatArray(), 1e-6f, backend);
            assertTrue(GradMode.isEnabled());
        }

        List<dev.ember.fx.GraphModule> graphs = new java.util.ArrayList<>();
        Ember.reset();
        Ember.compile((Fn2<Tensor, Tensor, Tensor>) GradModeCaptureTest::breakInsideWithWorkAround,
                Options.backend((gm, inputs) -> { graphs.add(gm.copy()); return dev.ember.fx.Backends.EAGER.compile(gm, inputs); })).apply(a, b);
        assertEquals(2, graphs.size());
        assertEquals(List.of(false, true), modes(graphs.get(0)), "before the break: the block's start, then the mode outside it restored last");
        assertEquals(List.of(false, true), modes(graphs.get(1)), "after it: the block's mode first, then the block's end");
    }

    private static List<Boolean> modes(dev.ember.fx.GraphModule gm) {
        return gm.graph().nodes().stream().filter(n -> n.target() == dev.ember.fx.BuiltinFunctions.SET_GRAD_ENABLED).map(n -> (Boolean) n.arg(0)).toList();
    }
}
