package dev.ember.inductor;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.ember.inductor.Graphs.call;
import static dev.ember.inductor.Graphs.checkAgainstEager;
import static dev.ember.inductor.Graphs.kernels;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A kernel stays within the JVM's limits however many same-shape stages a graph lines up (an
 * unrolled LSTM's steps and their backward did): without {@link Scheduler#MAX_KERNEL_BUFFERS} the
 * 150 independent sigmoids below became one method of 300 parameter slots, which the JVM refuses
 * to load ("Too many arguments in method signature").
 */
class KernelLimitsTest {

    @Test
    void manyIndependentSameShapeStagesSplitIntoKernelsTheJvmLoads() {
        int n = 150;
        Graph g = new Graph();
        List<Node> outs = new ArrayList<>();
        Tensor[] inputs = new Tensor[n];
        for (int i = 0; i < n; i++) {
            Node x = g.placeholder("x" + i, null);
            // a transposed view: each read needs its array and its offset, two parameter slots
            outs.add(call(g, "sigmoid.default", call(g, "t.default", x)));
            inputs[i] = Tensor.randn(8, 4);
        }
        g.output(outs);
        InductorGraph c = checkAgainstEager(new GraphModule(g), 1e-6, inputs);
        int kernels = kernels(c.sourceCode());
        assertTrue(kernels >= (2 * n) / Scheduler.MAX_KERNEL_BUFFERS && kernels >= n / Scheduler.MAX_KERNEL_STAGES,
                kernels + " kernels for " + n + " stages");
    }
}
