package dev.ember.inductor;

import dev.ember.Ember;
import dev.ember.Options;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.inductor.ir.Stage;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ember.inductor.Graphs.call;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A pointwise value that an extern kernel reads (stored for it) and the graph also returns is
 * stored once: the output is the extern's operand buffer, not a second kernel computing the same
 * values (a Conv-BN-ReLU stack's forward computed every ReLU twice: once as the next convolution's
 * input, once as the activation saved for the backward).
 */
class ExternOperandOnceTest {

    @Test
    void aValueStoredForAnExternIsTheSameBufferAsTheGraphsOutput() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), w = g.placeholder("w", null);
        Node relu = call(g, "relu.default", x);
        Node conv = call(g, "convolution.default", relu, w, null, List.of(1, 1), List.of(1, 1), List.of(1, 1), false, List.of(0, 0), 1);
        g.output(List.of(conv, relu));
        GraphModule gm = new GraphModule(g);
        List<Tensor> inputs = List.of(Tensor.randn(2, 4, 6, 6), Tensor.randn(3, 4, 3, 3));
        dev.ember.fx.ShapeProp.propagate(gm, inputs.toArray());
        Lowering.Result lowered = Lowering.lower(gm);
        List<Stage.Pointwise> pointwise = lowered.stages().stream().filter(s -> s instanceof Stage.Pointwise).map(s -> (Stage.Pointwise) s).toList();
        assertEquals(1, pointwise.size(), "relu stored once: " + lowered.stages());
        Stage.Extern ext = lowered.stages().stream().filter(s -> s instanceof Stage.Extern).map(s -> (Stage.Extern) s).findFirst().orElseThrow();
        Stage.Operand operand = (Stage.Operand) ext.args().getFirst();
        dev.ember.inductor.ir.Value.Stored returned = (dev.ember.inductor.ir.Value.Stored) ((List<?>) lowered.output()).get(1);
        assertEquals(operand.buffer(), returned.buffer(), "the returned relu is the convolution's operand");
        assertEquals(pointwise.getFirst().out(), returned.buffer());

        // and the compiled graph still returns both values right
        Tensor a = Tensor.randn(2, 4, 6, 6), b = Tensor.randn(3, 4, 3, 3);
        List<Tensor> eager = reluThenConv(a, b);
        Ember.reset();
        List<Tensor> compiled = Ember.compile(ExternOperandOnceTest::reluThenConv, Options.backend("inductor")).apply(a, b);
        for (int i = 0; i < 2; i++) {
            double diff = compiled.get(i).sub(eager.get(i)).abs().amax().item();
            assertTrue(diff <= 1e-5, "output " + i + ": max abs diff " + diff);
        }
    }

    static List<Tensor> reluThenConv(Tensor x, Tensor w) {
        Tensor r = x.relu();
        return List.of(dev.ember.nn.F.conv2d(r, w, null, 1, 1), r);
    }
}
