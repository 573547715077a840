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
 * The MLP 512→2048→2048→512 and a transformer encoder layer (d 256, 4 heads, sequence 64)
 * compiled once generic in their batch size against the same graph compiled for each batch size
 * exactly: what a size-generic kernel costs per call (issue 15's target: within 10%).
 * Run: {@code ./ember bench SizeGenericBench}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-XX:CompileCommand=quiet", "-XX:CompileCommand=inline,dev.ember.kernels.VectorMath::*", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.reflect=ALL-UNNAMED", "-Xms4g", "-Xmx4g", "-XX:+UseParallelGC"})
public class SizeGenericBench {
    private static final int HINT = 64;

    @Param({"2", "7", "64", "200"})
    public int batch;

    private InductorGraph generic, specialized, encoderGeneric, encoderSpecialized;
    private Object[] inputs, encoderInputs;

    private static final int SEQ = 64, D = 256, FF = 1024, HEADS = 4, ENCODER_HINT = 8;

    /** The encoder layer's input (batch rows of SEQ tokens) and weights, in ModelGraphs.encoderLayer's order. */
    private static Tensor[] encoderTensors(int rows) {
        Generator g = new Generator(16);
        double sd = 1 / Math.sqrt(D), sf = 1 / Math.sqrt(FF);
        return new Tensor[] {Tensor.randn(g, rows, SEQ, D), Tensor.randn(g, 3 * D, D).mul(sd), Tensor.randn(g, 3 * D).mul(0.1),
                Tensor.randn(g, D, D).mul(sd), Tensor.randn(g, D).mul(0.1), Tensor.randn(g, FF, D).mul(sd), Tensor.randn(g, FF).mul(0.1),
                Tensor.randn(g, D, FF).mul(sf), Tensor.randn(g, D).mul(0.1), Tensor.randn(g, D).mul(0.1).add(1.0), Tensor.randn(g, D).mul(0.1),
                Tensor.randn(g, D).mul(0.1).add(1.0), Tensor.randn(g, D).mul(0.1)};
    }

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
        Tensor[] encAtHint = encoderTensors(ENCODER_HINT), encAtBatch = encoderTensors(batch);
        encoderGeneric = InductorBenchSupport.compileChecked(genericInBatch(ModelGraphs.encoderLayer(SymInt.symbol(0), SEQ, D, HEADS), encAtHint), 1e-3, encAtHint);
        encoderSpecialized = InductorBenchSupport.compileChecked(ModelGraphs.encoderLayer(batch, SEQ, D, HEADS), 1e-3, encAtBatch);
        encoderInputs = encAtBatch;
        if (!encoderGeneric.compiledFor(encoderInputs)) throw new IllegalStateException("the generic encoder does not take batch " + batch);
    }

    /** {@code gm} made generic in its first input's dim 0 (s0, traced at {@code examples}' size), as Dynamo marks a dynamic batch. */
    private static GraphModule genericInBatch(GraphModule gm, Tensor[] examples) {
        SizeSymbols symbols = new SizeSymbols(List.of(new SizeSymbols.Symbol(0, "x.size(0)", 0, 0, examples[0].size(0), 2, Long.MAX_VALUE)));
        gm.setSizeSymbols(symbols);   // before propagating: the graph's SymInt arguments take their values from the inputs
        ShapeProp.propagate(gm, (Object[]) examples);
        List<Node> placeholders = gm.graph().placeholders();
        for (int i = 0; i < placeholders.size(); i++) {
            SymShape shape = SymShape.of(examples[i].meta());
            if (i == 0) {
                // the batch is the outermost dim of a contiguous input: its strides do not depend on it
                SymInt[] sizes = shape.sizes().clone();
                sizes[0] = SymInt.symbol(0);
                shape = new SymShape(sizes, shape.strides(), shape.offset());
            }
            placeholders.get(i).setSymVal(shape);
        }
        new SymbolicShapes(symbols).annotate(gm);
        return gm;
    }

    @Benchmark
    public Object generic() { return generic.run(inputs); }

    @Benchmark
    public Object specialized() { return specialized.run(inputs); }

    @Benchmark
    public Object encoder_generic() { return encoderGeneric.run(encoderInputs); }

    @Benchmark
    public Object encoder_specialized() { return encoderSpecialized.run(encoderInputs); }
}
