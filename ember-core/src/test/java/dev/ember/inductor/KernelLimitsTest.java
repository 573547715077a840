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

    /**
     * A graph whose wrapper is past the JVM's 64 KB per method (3,000 products, each an extern call
     * and its buffer): {@code call} is split into parts, the locals that cross a part (the inputs'
     * arrays, the running product, the size of a later read) travel in a frame array. Without the
     * split the class fails to load ("Code length … is outside the allowed range").
     */
    @Test
    void aWrapperPastSixtyFourKilobytesIsSplitIntoParts() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), w = g.placeholder("w", null), b = g.placeholder("b", null);
        Node v = x;
        for (int i = 0; i < 3000; i++) {
            v = call(g, "mm.default", v, w);
            if (i % 100 == 99) v = call(g, "add.Tensor", v, b);   // b is read at the end of many parts
        }
        g.output(List.of(v, call(g, "mul.Tensor", x, b)));
        Tensor w0 = Tensor.eye(3).mul(0.999).add(Tensor.full(0.0005, 3, 3));
        Object[] in = {Tensor.randn(3, 3), w0, Tensor.randn(3, 3).mul(0.01)};
        InductorGraph c = checkAgainstEager(new GraphModule(g), 1e-5, in);
        String source = c.sourceCode();
        assertTrue(source.contains("call$part1("), "split:\n" + source.lines().limit(40).toList());
        // the printed parts are Java that computes what the bytecode does
        String name = source.substring(source.indexOf("final class ") + 12, source.indexOf(" {", source.indexOf("final class ")));
        Graphs.assertSame(c.run(in), c.withClassBytes(Javac.compile("dev.ember.inductor." + name, source)).run(in), 0, "javac's class");
    }
}
