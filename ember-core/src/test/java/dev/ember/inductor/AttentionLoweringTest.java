package dev.ember.inductor;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.fx.Backend;
import dev.ember.nn.F;
import dev.ember.nn.Linear;
import dev.ember.nn.Module;
import dev.ember.nn.TransformerEncoderLayer;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.ember.inductor.InductorModulesTest.assertClose;
import static org.junit.jupiter.api.Assertions.*;

/**
 * An inference graph keeps scaled_dot_product_attention as one extern node running the fused
 * kernel (no perf hint: it is the intended code, not a missing lowering); an eval encoder layer
 * compiles without dropout copies, with its linear layers' bias and activation as GEMM epilogues
 * and each residual add inside its layer_norm's row kernel.
 */
class AttentionLoweringTest {
    /** The inductor, keeping each compiled graph (for its code and perf hints). */
    static final class Recording implements Backend {
        final List<InductorGraph> graphs = new ArrayList<>();

        @Override
        public dev.ember.fx.CompiledGraph compile(dev.ember.fx.GraphModule gm, List<dev.ember.tensor.FakeTensor> inputs) {
            InductorGraph g = Inductor.compile(gm, inputs);
            graphs.add(g);
            return InductorBackend.compiled(g);
        }
    }

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor attention(Tensor q, Tensor k, Tensor v) { return F.scaledDotProductAttention(q, k, v, null, 0.0, true).mul(2.0); }

    static Tensor attentionWithDropout(Tensor q, Tensor k, Tensor v) { return F.scaledDotProductAttention(q, k, v, null, 0.5, false); }

    @Test
    void attentionIsOneExternWithAnEpilogueAndNoPerfHint() {
        Recording r = new Recording();
        Fn3<Tensor, Tensor, Tensor, Tensor> f = Ember.compile(AttentionLoweringTest::attention, Options.backend(r).fullgraph(true));
        Tensor q = Tensor.randn(2, 3, 70, 16), k = Tensor.randn(2, 3, 150, 16), v = Tensor.randn(2, 3, 150, 8);
        assertClose(attention(q, k, v), f.apply(q, k, v), 1e-5, "compiled attention");
        InductorGraph g = r.graphs.getFirst();
        assertTrue(g.sourceCode().contains("extern aten.scaled_dot_product_attention.default + epilogue"), g.sourceCode());
        assertTrue(g.perfHints().stream().noneMatch(h -> h.contains("scaled_dot_product_attention")), g.perfHints()::toString);
    }

    @Test
    void withDropoutThePerfHintSaysTheEagerKernelRuns() {
        Recording r = new Recording();
        Fn3<Tensor, Tensor, Tensor, Tensor> f = Ember.compile(AttentionLoweringTest::attentionWithDropout, Options.backend(r).fullgraph(true));
        Tensor q = Tensor.randn(2, 5, 4), k = Tensor.randn(2, 6, 4), v = Tensor.randn(2, 6, 3);
        assertArrayEquals(new int[] {2, 5, 3}, f.apply(q, k, v).shape());
        assertTrue(r.graphs.getFirst().perfHints().stream().anyMatch(h -> h.contains("aten.scaled_dot_product_attention.default): with dropout_p > 0 it runs its decomposition")),
                r.graphs.getFirst().perfHints()::toString);
    }

    @Test
    void evalEncoderLayerFusesEpiloguesAndResidualNorms() {
        TransformerEncoderLayer m = new TransformerEncoderLayer(32, 4, 64, 0.1);
        m.eval();
        Recording r = new Recording();
        Fn1<Tensor, Tensor> f = Ember.compile(m, Options.backend(r).fullgraph(true));
        Tensor x = Tensor.randn(2, 10, 32);
        assertClose(m.forward(x), f.apply(x), 1e-4, "compiled encoder layer");
        InductorGraph g = r.graphs.getFirst();
        String code = g.sourceCode();
        assertFalse(code.contains("dropout"), "an eval dropout is a plain copy, fused away:\n" + code);
        assertTrue(code.contains("extern aten.scaled_dot_product_attention.default"), code);
        assertTrue(code.split("gemm \\+ epilogue", -1).length - 1 >= 2 * 2, "the [B, L, N] bias/activation epilogues join their [B·L, N] GEMMs:\n" + code);
        assertFalse(code.contains("pointwise kernel: add"), "each residual add joins a GEMM epilogue or a layer_norm row kernel:\n" + code);
        assertTrue(code.split("row kernel: sum", -1).length - 1 >= 2 * 2, "each layer_norm is one row kernel:\n" + code);
    }

    /** A [B, L, N] linear layer's bias and ReLU run in place after the GEMM, as for a 2-d input. */
    static final class ThreeDimLinear extends Module {
        final Linear linear = new Linear(24, 40);

        @Override
        public Tensor forward(Tensor x) { return F.relu(linear.forward(x)).mul(3.0); }
    }

    @Test
    void threeDimensionalLinearEpilogue() {
        ThreeDimLinear m = new ThreeDimLinear();
        Recording r = new Recording();
        Fn1<Tensor, Tensor> f = Ember.compile(m, Options.backend(r).fullgraph(true));
        Tensor x = Tensor.randn(3, 7, 24);
        assertClose(m.forward(x), f.apply(x), 1e-5, "compiled");
        String code = r.graphs.getFirst().sourceCode();
        assertTrue(code.contains("gemm + epilogue"), code);
        assertFalse(code.contains("pointwise kernel"), code);
    }
}
