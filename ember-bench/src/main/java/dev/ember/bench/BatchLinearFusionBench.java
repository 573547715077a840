package dev.ember.bench;

import dev.ember.fx.BuiltinFunctions;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.inductor.InductorGraph;
import dev.ember.ops.LinalgOps;
import dev.ember.ops.PointwiseOps;
import dev.ember.ops.ShapeOps;
import dev.ember.passes.PassManager;
import dev.ember.tensor.Tensor;
import org.openjdk.jmh.annotations.*;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What pre_grad.batch_linear_fusion buys for inference: three parallel 512→512 linears on one input
 * (attention's Q, K and V), compiled by the inductor as three GEMMs ({@code separate}) or as the pass
 * writes them, one GEMM over the weights concatenated in the graph and split back ({@code fused}).
 * {@code consumer=sum} reads the three results as values (the pieces are used as they are);
 * {@code consumer=outputs} returns them (each piece gets a contiguous copy). Both graphs are compiled
 * with the pass off, so each is measured as written.
 * Run: {@code ./ember bench BatchLinearFusionBench}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-XX:CompileCommand=quiet", "-XX:CompileCommand=inline,dev.ember.kernels.VectorMath::*", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.reflect=ALL-UNNAMED", "-Xms1g", "-Xmx1g", "-XX:+UseParallelGC"})
public class BatchLinearFusionBench {
    private static final int LINEARS = 3;

    @Param({"1", "8", "64", "512"})
    int rows;

    /** In- and out-features of each linear. */
    @Param({"64", "512"})
    int features;

    @Param({"sum", "outputs"})
    String consumer;

    private Tensor[] inputs, concatenatedInputs;
    private InductorGraph separate, fused, concatenated;

    @Setup
    public void setup() {
        inputs = new Tensor[1 + 2 * LINEARS];
        inputs[0] = Tensor.randn(rows, features);
        for (int i = 0; i < LINEARS; i++) {
            inputs[1 + 2 * i] = Tensor.randn(features, features).mul(0.05);
            inputs[2 + 2 * i] = Tensor.randn(features);
        }
        PassManager.disable("pre_grad.batch_linear_fusion");
        try {
            separate = InductorBenchSupport.compileChecked(graph(false), 1e-4, inputs);
            fused = InductorBenchSupport.compileChecked(graph(true), 1e-4, inputs);
            concatenatedInputs = new Tensor[] {inputs[0], Tensor.cat(List.of(inputs[1], inputs[3], inputs[5]), 0), Tensor.cat(List.of(inputs[2], inputs[4], inputs[6]), 0)};
            concatenated = InductorBenchSupport.compileChecked(concatenatedGraph(), 1e-4, concatenatedInputs);
        } finally {
            PassManager.disable(null);
        }
    }

    /** x, then (weight, bias) per linear; the three results summed or returned. */
    private GraphModule graph(boolean fuse) {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        List<Node> weights = new ArrayList<>(), biases = new ArrayList<>();
        for (int i = 0; i < LINEARS; i++) {
            weights.add(g.placeholder("w" + i, null));
            biases.add(g.placeholder("b" + i, null));
        }
        List<Node> results = new ArrayList<>();
        if (fuse) {
            Node y = g.callFunction(LinalgOps.LINEAR, x, g.callFunction(ShapeOps.CAT, weights, 0L), g.callFunction(ShapeOps.CAT, biases, 0L));
            Node pieces = g.callFunction(ShapeOps.SPLIT_WITH_SIZES, y, new int[] {features, features, features}, 1L);
            for (int i = 0; i < LINEARS; i++) {
                Node piece = g.callFunction(BuiltinFunctions.GETITEM, pieces, (long) i);
                results.add(consumer.equals("sum") ? piece : g.callFunction(ShapeOps.CLONE, piece));
            }
        } else {
            for (int i = 0; i < LINEARS; i++) results.add(g.callFunction(LinalgOps.LINEAR, x, weights.get(i), biases.get(i)));
        }
        if (consumer.equals("sum")) {
            g.output(g.callFunction(PointwiseOps.ADD_TENSOR, g.callFunction(PointwiseOps.ADD_TENSOR, results.get(0), results.get(1)), results.get(2)));
        } else {
            g.output(results);
        }
        return new GraphModule(g);
    }

    /** The fused GEMM alone, its weights concatenated beforehand (as frozen parameters would be): what the cat costs. */
    private GraphModule concatenatedGraph() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), w = g.placeholder("w", null), b = g.placeholder("b", null);
        Node pieces = g.callFunction(ShapeOps.SPLIT_WITH_SIZES, g.callFunction(LinalgOps.LINEAR, x, w, b), new int[] {features, features, features}, 1L);
        List<Node> results = new ArrayList<>();
        for (int i = 0; i < LINEARS; i++) {
            Node piece = g.callFunction(BuiltinFunctions.GETITEM, pieces, (long) i);
            results.add(consumer.equals("sum") ? piece : g.callFunction(ShapeOps.CLONE, piece));
        }
        g.output(consumer.equals("sum")
                ? g.callFunction(PointwiseOps.ADD_TENSOR, g.callFunction(PointwiseOps.ADD_TENSOR, results.get(0), results.get(1)), results.get(2))
                : results);
        return new GraphModule(g);
    }

    @Benchmark
    public Object concatenated() { return concatenated.run((Object[]) concatenatedInputs); }

    @Benchmark
    public Object separate() { return separate.run((Object[]) inputs); }

    @Benchmark
    public Object fused() { return fused.run((Object[]) inputs); }
}
