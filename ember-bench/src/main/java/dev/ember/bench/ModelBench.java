package dev.ember.bench;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.BatchNorm;
import ai.djl.nn.norm.LayerNorm;
import dev.ember.fx.GraphModule;
import dev.ember.inductor.InductorGraph;
import dev.ember.tensor.Tensor;
import org.openjdk.jmh.annotations.*;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Small models in eval mode: Ember eager (op by op), Ember compiled (inductor) and libtorch eager.
 * MLP 512→2048→2048→512 (batch 64), Conv-BN-ReLU x3 (batch 8, 64 channels, 56x56), a transformer
 * encoder layer (batch 8, seq 128, d_model 256, 4 heads, feed-forward 1024).
 * Run: {@code ./ember bench ModelBench}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 6, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-XX:CompileCommand=quiet", "-XX:CompileCommand=inline,dev.ember.kernels.VectorMath::*", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.reflect=ALL-UNNAMED", "-Xms8g", "-Xmx8g", "-Xmn4g", "-XX:+AlwaysPreTouch", "-XX:+UseParallelGC"})
public class ModelBench {
    private GraphModule mlp, conv, encoder;
    private InductorGraph mlpCompiled, convCompiled, encoderCompiled;
    private Object[] mlpIn, convIn, encIn;
    private NDManager manager;
    private NDArray[] tMlp, tConv, tEnc;
    private long seed;

    private Tensor rand(double scale, int... shape) {
        int n = 1;
        for (int s : shape) n *= s;
        return Tensor.of(Libtorch.randn(++seed, n), shape).mul(scale);
    }

    private NDArray[] peer(Object[] in) {
        NDArray[] out = new NDArray[in.length];
        for (int i = 0; i < in.length; i++) out[i] = Libtorch.of(manager, ((Tensor) in[i]).toFloatArray(), ((Tensor) in[i]).shape());
        return out;
    }

    private static Tensor[] tensors(Object[] in) {
        Tensor[] t = new Tensor[in.length];
        for (int i = 0; i < in.length; i++) t[i] = (Tensor) in[i];
        return t;
    }

    @Setup
    public void setup() {
        manager = Libtorch.manager();
        mlp = ModelGraphs.mlp(3);
        mlpIn = new Object[] {rand(1, 64, 512), rand(1 / Math.sqrt(512), 2048, 512), rand(0.1, 2048),
                rand(1 / Math.sqrt(2048), 2048, 2048), rand(0.1, 2048), rand(1 / Math.sqrt(2048), 512, 2048), rand(0.1, 512)};
        mlpCompiled = InductorBenchSupport.compileChecked(mlp, 1e-3, tensors(mlpIn));
        tMlp = peer(mlpIn);

        conv = ModelGraphs.convBnRelu(3);
        List<Object> c = new ArrayList<>(List.of(rand(1, 8, 64, 56, 56)));
        for (int i = 0; i < 3; i++) {
            c.addAll(List.of(rand(1 / Math.sqrt(576), 64, 64, 3, 3), rand(0.2, 64).add(1.0), rand(0.1, 64), rand(0.1, 64),
                    rand(0.1, 64).abs().add(0.5)));
        }
        convIn = c.toArray();
        convCompiled = InductorBenchSupport.compileChecked(conv, 1e-3, tensors(convIn));
        tConv = peer(convIn);

        int d = 256, ff = 1024;
        encoder = ModelGraphs.encoderLayer(8, 128, d, 4);
        encIn = new Object[] {rand(1, 8, 128, d), rand(1 / Math.sqrt(d), 3 * d, d), rand(0.1, 3 * d), rand(1 / Math.sqrt(d), d, d), rand(0.1, d),
                rand(1 / Math.sqrt(d), ff, d), rand(0.1, ff), rand(1 / Math.sqrt(ff), d, ff), rand(0.1, d),
                rand(0.1, d).add(1.0), rand(0.1, d), rand(0.1, d).add(1.0), rand(0.1, d)};
        encoderCompiled = InductorBenchSupport.compileChecked(encoder, 1e-3, tensors(encIn));
        tEnc = peer(encIn);
    }

    @TearDown
    public void tearDown() { manager.close(); }

    /** Frees every libtorch intermediate of one forward pass (as Python's refcount would). */
    private static final class Scope {
        final List<NDArray> made = new ArrayList<>();

        NDArray t(NDArray a) {
            made.add(a);
            return a;
        }

        NDArray t(NDList l) { return t(l.singletonOrThrow()); }

        NDArray closeAll(NDArray result) {
            for (NDArray a : made) a.close();
            return result;
        }
    }

    @Benchmark
    public Object mlp_eager() { return mlp.run(mlpIn); }

    @Benchmark
    public Object mlp_compiled() { return mlpCompiled.run(mlpIn); }

    @Benchmark
    public NDArray mlp_libtorch() {
        Scope s = new Scope();
        NDArray h = s.t(Activation.relu(s.t(Linear.linear(tMlp[0], tMlp[1], tMlp[2]))));
        h = s.t(Activation.relu(s.t(Linear.linear(h, tMlp[3], tMlp[4]))));
        return s.closeAll(s.t(Linear.linear(h, tMlp[5], tMlp[6])));
    }

    @Benchmark
    public Object convBnRelu_eager() { return conv.run(convIn); }

    @Benchmark
    public Object convBnRelu_compiled() { return convCompiled.run(convIn); }

    @Benchmark
    public NDArray convBnRelu_libtorch() {
        Scope s = new Scope();
        NDArray h = tConv[0];
        for (int i = 0; i < 3; i++) {
            NDArray[] p = java.util.Arrays.copyOfRange(tConv, 1 + 5 * i, 6 + 5 * i);
            h = s.t(Conv2d.conv2d(h, p[0], null, new Shape(1, 1), new Shape(1, 1), new Shape(1, 1), 1));
            h = s.t(BatchNorm.batchNorm(h, p[3], p[4], p[1], p[2], 1, 0.1f, 1e-5f, false));
            h = s.t(Activation.relu(h));
        }
        return s.closeAll(h);
    }

    @Benchmark
    public Object encoder_eager() { return encoder.run(encIn); }

    @Benchmark
    public Object encoder_compiled() { return encoderCompiled.run(encIn); }

    @Benchmark
    public NDArray encoder_libtorch() {
        Scope s = new Scope();
        NDArray[] p = tEnc;
        int b = 8, n = 128, d = 256, h = 4, dh = 64;
        NDArray qkv = s.t(Linear.linear(p[0], p[1], p[2]));
        NDArray[] heads = new NDArray[3];
        for (int i = 0; i < 3; i++) {
            NDArray part = s.t(qkv.get(":, :, " + (i * d) + ":" + ((i + 1) * d)));
            heads[i] = s.t(s.t(part.reshape(b, n, h, dh)).transpose(0, 2, 1, 3));
        }
        NDArray scores = s.t(s.t(heads[0].matMul(s.t(heads[1].transpose(0, 1, 3, 2)))).mul(0.125f));
        NDArray ctx = s.t(s.t(scores.softmax(-1)).matMul(heads[2]));
        ctx = s.t(s.t(ctx.transpose(0, 2, 1, 3)).reshape(b, n, d));
        NDArray x1 = s.t(LayerNorm.layerNorm(s.t(p[0].add(s.t(Linear.linear(ctx, p[3], p[4])))), new Shape(d), p[9], p[10], 1e-5f));
        NDArray f = s.t(Linear.linear(s.t(Activation.relu(s.t(Linear.linear(x1, p[5], p[6])))), p[7], p[8]));
        return s.closeAll(s.t(LayerNorm.layerNorm(s.t(x1.add(f)), new Shape(d), p[11], p[12], 1e-5f)));
    }
}
