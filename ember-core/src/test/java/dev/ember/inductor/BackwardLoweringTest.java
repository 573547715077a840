package dev.ember.inductor;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ember.inductor.Graphs.kernels;
import static dev.ember.inductor.Graphs.call;
import static dev.ember.inductor.Graphs.checkAgainstEager;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The pointwise backward ops that lower (gelu_backward in both forms, native_dropout_backward) fuse into one loop and match eager. */
class BackwardLoweringTest {


    @Test
    void geluAndDropoutBackwardsFuseAndMatchEager() {
        for (DType d : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            Graph g = new Graph();
            Node grad = g.placeholder("grad", null), x = g.placeholder("x", null), mask = g.placeholder("mask", null);
            Node exact = call(g, "gelu_backward.default", grad, x);
            Node tanh = call(g, "gelu_backward.default", grad, x, "tanh");
            Node dropped = call(g, "native_dropout_backward.default", call(g, "add.Tensor", exact, tanh), mask, 1.25);
            g.output(List.of(dropped));
            Tensor gs = Tensor.randn(64, 33).to(d), xs = Tensor.randn(33).mul(3.0).to(d), ms = Tensor.randn(64, 33).gt(0.0);
            InductorGraph c = checkAgainstEager(new GraphModule(g), d == DType.FLOAT32 ? 1e-6 : 1e-12, gs, xs, ms);
            assertEquals(1, kernels(c.sourceCode()), c.sourceCode());
        }
    }
}
