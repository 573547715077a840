package dev.ember.inductor;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ember.inductor.Graphs.call;
import static dev.ember.inductor.Graphs.checkAgainstEager;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Linear layers become GEMM calls with bias and activation fused onto their output. */
class GemmEpilogueTest {

    @Test
    void mlpWithBiasReluEpiloguesInPlace() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node w1 = g.placeholder("w1", null), b1 = g.placeholder("b1", null);
        Node w2 = g.placeholder("w2", null), b2 = g.placeholder("b2", null);
        Node h = call(g, "relu.default", call(g, "linear.default", x, w1, b1));
        Node y = call(g, "linear.default", h, w2, b2);
        g.output(call(g, "add.Tensor", y, x));
        InductorGraph c = checkAgainstEager(new GraphModule(g), 1e-4, Tensor.randn(8, 32), Tensor.randn(48, 32), Tensor.randn(48),
                Tensor.randn(32, 48), Tensor.randn(32));
        String src = c.sourceCode();
        assertEquals(2, Graphs.simdForms(src).split("GemmBatched.strided").length - 1, src);
        assertEquals(2, Graphs.kernels(src), "two gemm kernels with epilogues:\n" + src);
        assertTrue(c.perfHints().isEmpty(), c.perfHints().toString());
    }

    @Test
    void batchedMatmulOfTransposedViewsAndThreeDimLinear() {
        Graph g = new Graph();
        Node q = g.placeholder("q", null), k = g.placeholder("k", null), w = g.placeholder("w", null);
        Node kt = call(g, "transpose.int", k, 1L, 2L);
        Node s = call(g, "bmm.default", q, kt);
        Node p = call(g, "_softmax.default", call(g, "mul.Scalar", s, 0.125), -1L, false);
        Node o = call(g, "bmm.default", p, k);
        g.output(List.of(o, call(g, "linear.default", o, w)));
        checkAgainstEager(new GraphModule(g), 1e-4, Tensor.randn(3, 10, 16), Tensor.randn(3, 12, 16), Tensor.randn(8, 16));
    }

    @Test
    void batchedMatmulInRowBands() {
        // 100x128x64 per batch: medium products, which GemmBatched.strided cuts into row bands
        Graph g = new Graph();
        Node q = g.placeholder("q", null), k = g.placeholder("k", null);
        Node s = call(g, "bmm.default", q, call(g, "transpose.int", k, 1L, 2L));
        g.output(call(g, "bmm.default", call(g, "relu.default", s), k));
        InductorGraph compiled = checkAgainstEager(new GraphModule(g), 1e-4, Tensor.randn(4, 100, 64), Tensor.randn(4, 128, 64));
        assertTrue(compiled.sourceCode().contains("GemmBatched.strided("), compiled.sourceCode());
    }

    @Test
    void opsWithoutALoweringFallBackToEagerWithAPerfHint() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node c = call(g, "cat.default", List.of(x, x), 1L);
        g.output(call(g, "mul.Scalar", c, 2.0));
        InductorGraph compiled = checkAgainstEager(new GraphModule(g), 0, Tensor.randn(3, 4));
        assertTrue(compiled.perfHints().stream().anyMatch(h -> h.contains("aten.cat.default")), compiled.perfHints().toString());
    }
}
