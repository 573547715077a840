package dev.ember.bench;

import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.ShapeProp;
import dev.ember.fx.SizeSymbols;
import dev.ember.fx.SymbolicShapes;
import dev.ember.inductor.InductorGraph;
import dev.ember.tensor.Generator;
import dev.ember.tensor.SymInt;
import dev.ember.tensor.SymShape;
import dev.ember.tensor.Tensor;
import org.openjdk.jmh.annotations.*;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The MLP 512→2048→2048→512 compiled once generic in its batch size (traced at 64) against the
 * same graph compiled for each batch size exactly: what a size-generic kernel costs per call
 * (issue 15's target: within 10%). Run: {@code ./ember bench SizeGenericBench}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-Xms4g", "-Xmx4g", "-XX:+UseParallelGC"})
public class SizeGenericBench {
    private static final int HINT = 64;

    @Param({"2", "7", "64", "200"})
    public int batch;

    private InductorGraph generic, specialized;
    private Object[] inputs;

    /** The MLP's input and weights, drawn with Ember's generator (the benchmark loads no libtorch beside the kernels it measures). */
    private static Tensor[] mlpInputs(int rows) {
        Generator g = new Generator(15);
        return new Tensor[] {Tensor.randn(g, rows, 512), Tensor.randn(g, 2048, 512).mul(1 / Math.sqrt(512)), Tensor.randn(g, 2048).mul(0.1),
                Tensor.randn(g, 2048, 2048).mul(1 / Math.sqrt(2048)), Tensor.randn(g, 2048).mul(0.1),
                Tensor.randn(g, 512, 2048).mul(1 / Math.sqrt(2048)), Tensor.randn(g, 512).mul(0.1)};
    }

    @Setup
    public void setup() {
        Tensor[] atHint = mlpInputs(HINT), atBatch = mlpInputs(batch);
        generic = InductorBenchSupport.compileChecked(genericInBatch(ModelGraphs.mlp(3), atHint), 1e-3, atHint);
        specialized = InductorBenchSupport.compileChecked(ModelGraphs.mlp(3), 1e-3, atBatch);
        inputs = atBatch;
        if (!generic.compiledFor(inputs)) throw new IllegalStateException("the generic graph does not take batch " + batch);
    }

    /** {@code gm} made generic in its first input's dim 0 (s0, traced at {@code examples}' size), as Dynamo marks a dynamic batch. */
    private static GraphModule genericInBatch(GraphModule gm, Tensor[] examples) {
        SizeSymbols symbols = new SizeSymbols(List.of(new SizeSymbols.Symbol(0, "x.size(0)", 0, 0, examples[0].size(0), 2, Long.MAX_VALUE)));
        ShapeProp.propagate(gm, (Object[]) examples);
        List<Node> placeholders = gm.graph().placeholders();
        for (int i = 0; i < placeholders.size(); i++) {
            SymShape shape = SymShape.of(examples[i].meta());
            if (i == 0) shape = new SymShape(new SymInt[] {SymInt.symbol(0), shape.sizes()[1]}, shape.strides(), shape.offset());
            placeholders.get(i).setSymVal(shape);
        }
        gm.setSizeSymbols(symbols);
        new SymbolicShapes(symbols).annotate(gm);
        return gm;
    }

    @Benchmark
    public Object generic() { return generic.run(inputs); }

    @Benchmark
    public Object specialized() { return specialized.run(inputs); }
}
