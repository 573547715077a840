package dev.ember.bench;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Activation;
import dev.ember.fx.CompileMode;
import dev.ember.inductor.InductorGraph;
import dev.ember.fx.GraphModule;
import dev.ember.kernels.Parallel;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorScope;
import org.openjdk.jmh.annotations.*;

import java.util.concurrent.TimeUnit;

import static dev.ember.bench.InductorBenchSupport.chain;
import static dev.ember.bench.InductorBenchSupport.closed;

/**
 * Pointwise chains: Ember eager (op by op), Ember compiled (inductor) and libtorch eager, plus a
 * STREAM-like triad on the same 16M floats (two arrays read, one written — the chain's traffic),
 * which gives the machine's attainable bandwidth in the same run.
 * Run: {@code ./ember bench InductorPointwiseBench}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 6, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-XX:CompileCommand=quiet", "-XX:CompileCommand=inline,dev.ember.kernels.VectorMath::*", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.reflect=ALL-UNNAMED", "-Xms8g", "-Xmx8g", "-Xmn4g", "-XX:+AlwaysPreTouch", "-XX:+UseParallelGC"})
public class InductorPointwiseBench {
    private static final int BIG = 16 * 1024 * 1024, MID = 4 * 1024 * 1024;

    private Tensor x, y, t;
    private float[] a, b, c;
    private GraphModule arith, trans;
    private InductorGraph arithCompiled, transCompiled, arithReuse, transReuse;
    private NDManager manager;
    private NDArray tx, ty, tt;

    @Setup
    public void setup() {
        x = Tensor.of(Libtorch.randn(1, BIG), BIG);
        y = Tensor.of(Libtorch.randn(2, BIG), BIG);
        t = Tensor.of(Libtorch.randn(3, MID), MID);
        a = x.toFloatArray();
        b = y.toFloatArray();
        c = new float[BIG];
        arith = ModelGraphs.arithmeticChain();
        trans = ModelGraphs.transcendentalChain();
        arithCompiled = InductorBenchSupport.compileChecked(arith, 1e-6, x, y);
        arithReuse = InductorBenchSupport.compileChecked(arith, CompileMode.REDUCE_OVERHEAD, 1e-6, x, y);
        transCompiled = InductorBenchSupport.compileChecked(trans, 1e-5, t);
        transReuse = InductorBenchSupport.compileChecked(trans, CompileMode.REDUCE_OVERHEAD, 1e-5, t);
        manager = Libtorch.manager();
        tx = Libtorch.of(manager, a, BIG);
        ty = Libtorch.of(manager, b, BIG);
        tt = Libtorch.of(manager, t.toFloatArray(), MID);
    }

    @TearDown
    public void tearDown() { manager.close(); }

    @Benchmark
    public Object arith16M_eager() { return arith.run(x, y); }

    @Benchmark
    public Object arith16M_compiled() { return arithCompiled.run(x, y); }

    /** mode reduce-overhead: the 64 MB output array is reused, not allocated (and zeroed) each call. */
    @Benchmark
    public Object arith16M_reduceOverhead() { return arithReuse.run(x, y); }

    /** The default-mode graph with its output released at the end of each call (TensorScope), as torch frees the last one. */
    @Benchmark
    public Object arith16M_scoped() {
        try (TensorScope scope = TensorScope.open()) {
            return arithCompiled.run(x, y);
        }
    }

    @Benchmark
    public NDArray arith16M_libtorch() {
        return closed(chain(tx, v -> v.mul(ty), v -> v.add(1.5f), Activation::relu, v -> v.sub(tx), NDArray::abs,
                v -> v.maximum(ty), NDArray::neg, v -> v.mul(0.25f)));
    }

    /** c = a + s·b over 16M floats on all cores: 2 reads + 1 write, as the chain. */
    @Benchmark
    public float[] triad16M_stream() {
        float[] a = this.a, b = this.b, c = this.c;
        Parallel.forRange(BIG, 1, (lo, hi) -> {
            for (int i = lo; i < hi; i++) c[i] = a[i] + 3.0f * b[i];
        });
        return c;
    }

    @Benchmark
    public Object trans4M_eager() { return trans.run(t); }

    @Benchmark
    public Object trans4M_compiled() { return transCompiled.run(t); }

    /** mode reduce-overhead: the 16 MB output array is reused; what is left is the chain's arithmetic. */
    @Benchmark
    public Object trans4M_reduceOverhead() { return transReuse.run(t); }

    @Benchmark
    public NDArray trans4M_libtorch() {
        return closed(chain(tt, v -> v.mul(1.5f), v -> v.add(2f), Activation::relu, NDArray::sin, v -> v.mul(tt), NDArray::exp,
                NDArray::neg, Activation::sigmoid, v -> v.sub(0.5f)));
    }
}
