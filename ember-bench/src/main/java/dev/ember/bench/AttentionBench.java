package dev.ember.bench;

import dev.ember.ops.NnOps;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.openjdk.jmh.annotations.*;

import java.util.concurrent.TimeUnit;

/**
 * scaled_dot_product_attention alone over a sequence-length sweep (self-attention, batch 2, 8
 * heads, head dim 64, float32): the op's fused kernel (what eager and inference graphs run) and
 * its decomposition run op by op (ATen's math attention, which materializes the
 * {@code [L, L]} scores: 128 MB per intermediate at 2048), each also causal. The torch peer is
 * {@code ember-bench/peer/torch_attention_peer.py}; DJL has no Java call for libtorch's attention.
 * Run: {@code ./ember bench AttentionBench}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-XX:CompileCommand=quiet", "-XX:CompileCommand=inline,dev.ember.kernels.VectorMath::*", "-Xms8g", "-Xmx8g", "-Xmn4g", "-XX:+AlwaysPreTouch", "-XX:+UseParallelGC"})
public class AttentionBench {
    static final int BATCH = 2, HEADS = 8, HEAD_DIM = 64;

    @Param({"128", "256", "512", "1024", "2048"})
    public int seq;

    private Tensor q, k, v;

    @Setup
    public void setup() {
        Generator g = new Generator(18);
        q = Tensor.randn(g, BATCH, HEADS, seq, HEAD_DIM);
        k = Tensor.randn(g, BATCH, HEADS, seq, HEAD_DIM);
        v = Tensor.randn(g, BATCH, HEADS, seq, HEAD_DIM);
        InductorBenchSupport.checkClose("fused attention", fused(), decomposed(), 1e-4);
        InductorBenchSupport.checkClose("fused causal attention", fusedCausal(), decomposedCausal(), 1e-4);
    }

    @Benchmark
    public Tensor fused() { return NnOps.SCALED_DOT_PRODUCT_ATTENTION.callTensor(q, k, v); }

    @Benchmark
    public Tensor decomposed() { return (Tensor) NnOps.SCALED_DOT_PRODUCT_ATTENTION.decompose(q, k, v); }

    @Benchmark
    public Tensor fusedCausal() { return NnOps.SCALED_DOT_PRODUCT_ATTENTION.callTensor(q, k, v, null, 0.0, true); }

    @Benchmark
    public Tensor decomposedCausal() { return (Tensor) NnOps.SCALED_DOT_PRODUCT_ATTENTION.decompose(q, k, v, null, 0.0, true); }
}
