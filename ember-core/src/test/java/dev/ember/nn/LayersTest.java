package dev.ember.nn;

import dev.ember.Ember;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import ai.djl.ndarray.NDList;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.*;

/** Each layer's forward against libtorch computing the same thing from the same weights. */
class LayersTest {
    private final Random rng = new Random(31);

    /** Replaces every parameter with random values, so affine parts (ones/zeros at first) are exercised too. */
    private <M extends Module> M randomized(M m) {
        try (var unused = Ember.noGrad()) {
            for (Parameter p : m.parameters()) p.copy_(Inputs.randn(rng, p.dtype(), p.shape()));
        }
        return m;
    }

    @Test
    void linear() {
        Linear l = new Linear(4, 3);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 5, 4);
        assertClose(l.forward(x), Torch.call("torch.linear(a, b, c)", x, l.weight, l.bias), "linear");
        assertClose(l.forward(Inputs.nonContiguous(x)), Torch.call("torch.linear(a, b, c)", x, l.weight, l.bias), "linear non-contiguous");
        Linear noBias = new Linear(4, 2, false);
        assertClose(noBias.forward(x), Torch.call("torch.linear(a, b)", x, noBias.weight), "linear without bias");
    }

    @Test
    void conv2d() {
        Conv2d c = new Conv2d(4, 6, new int[] {3, 2}, new int[] {2, 1}, new int[] {1, 0}, new int[] {1, 2}, 2, true);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 4, 9, 8);
        assertClose(c.forward(x), Torch.call("torch.conv2d(a, b, c, [2, 1], [1, 0], [1, 2], 2)", x, c.weight, c.bias), "conv2d");
        Conv2d plain = new Conv2d(4, 3, 3, 1, 1, 1, 1, false);
        assertClose(plain.forward(x), Torch.call("torch.conv2d(a, b, None, [1, 1], [1, 1], [1, 1], 1)", x, plain.weight), "conv2d no bias");
    }

    @Test
    void conv3d() {
        Conv3d c = new Conv3d(4, 6, new int[] {2, 3, 2}, new int[] {1, 2, 1}, new int[] {1, 1, 0}, new int[] {2, 1, 1}, 2, true);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 4, 6, 7, 5);
        assertClose(c.forward(x), Torch.call("torch.conv3d(a, b, c, [1, 2, 1], [1, 1, 0], [2, 1, 1], 2)", x, c.weight, c.bias), "conv3d");
        assertArrayEquals(new int[] {6, 2, 2, 3, 2}, c.weight.shape());
        Conv3d plain = new Conv3d(4, 3, 3, 1, 1, 1, 1, false);
        assertClose(plain.forward(x), Torch.call("torch.conv3d(a, b, None, 1, 1, 1, 1)", x, plain.weight), "conv3d no bias");
        assertEquals("Conv3d(4, 6, kernel_size=(2, 3, 2), stride=(1, 2, 1), padding=(1, 1, 0), dilation=(2, 1, 1), groups=2)", c.toString());
        assertEquals("Conv3d(4, 3, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=(1, 1, 1), bias=False)", plain.toString());
    }

    @Test
    void pooling3d() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 3, 5, 7, 6);
        assertClose(new MaxPool3d(3, 2, 1).forward(x), Torch.call("torch.max_pool3d(a, [3, 3, 3], [2, 2, 2], [1, 1, 1], [1, 1, 1], False)", x), "max pool 3d");
        MaxPool3d odd = new MaxPool3d(new int[] {2, 3, 2}, new int[] {2, 2, 1}, new int[] {0, 1, 1}, new int[] {2, 1, 1}, true);
        assertClose(odd.forward(x), Torch.call("torch.max_pool3d(a, [2, 3, 2], [2, 2, 1], [0, 1, 1], [2, 1, 1], True)", x), "max pool 3d dilation ceil");
        assertClose(odd.forwardWithIndices(x).get(1), Torch.callList("torch.max_pool3d_with_indices(a, [2, 3, 2], [2, 2, 1], [0, 1, 1], [2, 1, 1], True)", x).get(1),
                "max pool 3d indices");
        assertClose(new AvgPool3d(2).forward(x), Torch.call("torch.avg_pool3d(a, [2, 2, 2])", x), "avg pool 3d");
        AvgPool3d avg = new AvgPool3d(new int[] {3, 2, 3}, new int[] {2, 1, 2}, new int[] {1, 1, 1}, true, false, null);
        assertClose(avg.forward(x), Torch.call("torch.avg_pool3d(a, [3, 2, 3], [2, 1, 2], [1, 1, 1], True, False)", x), "avg pool 3d ceil, no pad count");
        assertEquals("MaxPool3d(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=False)", new MaxPool3d(3, 2, 1).toString());
        assertEquals("MaxPool3d(kernel_size=(2, 3, 2), stride=(2, 2, 1), padding=(0, 1, 1), dilation=(2, 1, 1), ceil_mode=True)", odd.toString());
        assertEquals("AvgPool3d(kernel_size=2, stride=2, padding=0)", new AvgPool3d(2).toString());
        assertClose(new AdaptiveAvgPool3d(new int[] {2, 3, 4}).forward(x), Torch.call("torch.adaptive_avg_pool3d(a, [2, 3, 4])", x), "adaptive avg pool 3d");
        assertEquals("AdaptiveAvgPool3d(output_size=2)", new AdaptiveAvgPool3d(2).toString());
    }

    @Test
    void batchNorm3dTrainsAndEvaluatesOnVolumes() {
        BatchNorm3d bn = randomized(new BatchNorm3d(3, 1e-5, 0.2, true, true));
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 3, 4, 5, 3);
        Tensor mean0 = bn.runningMean.clone(), var0 = bn.runningVar.clone();
        Tensor y = bn.forward(x);
        NDList expected = Torch.callList("y = torch.batch_norm(a, b, c, d, e, True, 0.2, 1e-5, False)\nreturn (y, d, e)", x, bn.weight, bn.bias, mean0, var0);
        assertClose(y, expected.get(0), "batch norm 3d train output");
        assertClose(bn.runningMean, expected.get(1), "running mean after one step");
        assertClose(bn.runningVar, expected.get(2), "running var after one step");
        bn.eval();
        Tensor x2 = Inputs.randn(rng, DType.FLOAT32, 1, 3, 2, 4, 4);
        assertClose(bn.forward(x2), Torch.call("torch.batch_norm(a, b, c, d, e, False, 0.2, 1e-5, False)", x2, bn.weight, bn.bias, bn.runningMean, bn.runningVar),
                "batch norm 3d eval output");
        var e = assertThrows(IllegalArgumentException.class, () -> bn.forward(Tensor.randn(2, 3, 4, 4)));
        assertTrue(e.getMessage().contains("expected 5D input (got 4D input)"), e.getMessage());
        assertEquals("BatchNorm3d(3, eps=1e-05, momentum=0.2, affine=True, track_running_stats=True)", bn.toString());
    }

    @Test
    void batchNormUpdatesRunningStatsInTrainingAndUsesThemInEval() {
        BatchNorm2d bn = randomized(new BatchNorm2d(3, 1e-5, 0.2, true, true));
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 4, 3, 5, 5);
        Tensor mean0 = bn.runningMean.clone(), var0 = bn.runningVar.clone();
        Tensor y = bn.forward(x);
        NDList expected = Torch.callList("y = torch.batch_norm(a, b, c, d, e, True, 0.2, 1e-5, False)\nreturn (y, d, e)", x, bn.weight, bn.bias, mean0, var0);
        assertClose(y, expected.get(0), "batch norm train output");
        assertClose(bn.runningMean, expected.get(1), "running mean after one step");
        assertClose(bn.runningVar, expected.get(2), "running var after one step");
        assertEquals(1, bn.numBatchesTracked.longItem());

        bn.eval();
        Tensor x2 = Inputs.randn(rng, DType.FLOAT32, 2, 3, 4, 4);
        Tensor meanBefore = bn.runningMean.clone();
        assertClose(bn.forward(x2), Torch.call("torch.batch_norm(a, b, c, d, e, False, 0.2, 1e-5, False)", x2, bn.weight, bn.bias, bn.runningMean, bn.runningVar),
                "batch norm eval output");
        assertTrue(meanBefore.sameData(bn.runningMean), "eval leaves running stats alone");
        assertEquals(1, bn.numBatchesTracked.longItem());

        BatchNorm2d untracked = new BatchNorm2d(3, 1e-3, 0.1, false, false);
        untracked.eval();
        assertClose(untracked.forward(x2), Torch.call("torch.batch_norm(a, None, None, None, None, True, 0.1, 1e-3, False)", x2),
                "without running stats eval uses batch statistics");
        var e = assertThrows(IllegalArgumentException.class, () -> bn.forward(Tensor.randn(3, 4)));
        assertTrue(e.getMessage().contains("expected 4D input (got 2D input)"), e.getMessage());
    }

    @Test
    void layerNorm() {
        LayerNorm ln = randomized(new LayerNorm(new int[] {3, 4}, 1e-5, true, true));
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 3, 4);
        assertClose(ln.forward(x), Torch.call("torch.layer_norm(a, [3, 4], b, c, 1e-05, False)", x, ln.weight, ln.bias), "layer norm");
        LayerNorm bare = new LayerNorm(new int[] {4}, 1e-3, false, true);
        assertClose(bare.forward(x), Torch.call("torch.layer_norm(a, [4], None, None, 0.001, False)", x), "layer norm without affine");
    }

    @Test
    void activations() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 3, 7);
        assertClose(new ReLU().forward(x), Torch.call("torch.relu(a)", x), "relu");
        assertClose(new GELU().forward(x), Torch.call("torch.gelu(a)", x), "gelu");
        assertClose(new GELU("tanh").forward(x), Torch.call("torch.gelu(a, approximate='tanh')", x), "gelu tanh");
        assertClose(new SiLU().forward(x), Torch.call("torch.silu(a)", x), "silu");
    }

    @Test
    void dropoutIsRandomInTrainingAndTheIdentityInEval() {
        Tensor x = Inputs.uniform(rng, DType.FLOAT32, 1, 2, 4000);
        Dropout d = new Dropout(0.25);
        Tensor y = d.forward(x);
        float[] in = x.toFloatArray(), out = y.toFloatArray();
        int zeros = 0;
        for (int i = 0; i < in.length; i++) {
            if (out[i] == 0) zeros++;
            else assertEquals(in[i] / 0.75f, out[i], 1e-6f, "kept elements are scaled by 1/(1-p)");
        }
        assertEquals(0.25, zeros / 4000.0, 0.05);
        d.eval();
        assertTrue(d.forward(x).sameData(x));
        assertTrue(new Dropout(0.0).forward(x).sameData(x));
    }

    @Test
    void embeddingAndPadding() {
        Embedding e = new Embedding(10, 4, 2);
        Tensor indices = Inputs.randint(rng, DType.INT64, 0, 10, 3, 5);
        assertClose(e.forward(indices), Torch.call("torch.embedding(a, b, 2)", e.weight, indices), "embedding");
        assertClose(e.forward(indices.to(DType.INT32)), Torch.call("torch.embedding(a, b, 2)", e.weight, indices), "int32 indices");
        var error = assertThrows(IndexOutOfBoundsException.class, () -> e.forward(Tensor.ofLongs(3, 10)));
        assertTrue(error.getMessage().contains("index out of range in self"), error.getMessage());
    }

    @Test
    void poolingAndFlatten() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 3, 9, 7);
        assertClose(new MaxPool2d(3, 2, 1).forward(x), Torch.call("torch.max_pool2d(a, [3, 3], [2, 2], [1, 1], [1, 1], False)", x), "max pool");
        MaxPool2d odd = new MaxPool2d(new int[] {2, 3}, new int[] {2, 2}, new int[] {0, 1}, new int[] {2, 1}, true);
        assertClose(odd.forward(x), Torch.call("torch.max_pool2d(a, [2, 3], [2, 2], [0, 1], [2, 1], True)", x), "max pool dilation ceil");
        assertClose(new AdaptiveAvgPool2d(new int[] {2, 3}).forward(x), Torch.call("torch.adaptive_avg_pool2d(a, [2, 3])", x), "adaptive avg pool");
        assertClose(new Flatten().forward(x), Torch.call("a.flatten(1, -1)", x), "flatten");
        assertClose(new Flatten(0, 2).forward(x), Torch.call("a.flatten(0, 2)", x), "flatten 0..2");
    }

    @Test
    void sequentialChainsItsModules() {
        Sequential net = new Sequential(new Conv2d(3, 4, 3, 1, 1), randomized(new BatchNorm2d(4)), new ReLU(), new MaxPool2d(2),
                new AdaptiveAvgPool2d(1), new Flatten(), new Linear(4, 2));
        net.eval();
        Conv2d conv = (Conv2d) net.get(0);
        BatchNorm2d bn = (BatchNorm2d) net.get(1);
        Linear fc = (Linear) net.get(6);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 3, 8, 8);
        String reference = """
                y_ = torch.conv2d(a, b, c, [1, 1], [1, 1], [1, 1], 1)
                y_ = torch.batch_norm(y_, d, e, f, g, False, 0.1, 1e-5, False)
                y_ = torch.max_pool2d(torch.relu(y_), [2, 2], [2, 2], [0, 0], [1, 1], False)
                y_ = torch.adaptive_avg_pool2d(y_, [1, 1]).flatten(1, -1)
                return torch.linear(y_, h, i)""";
        assertClose(net.forward(x), Torch.call(reference, x, conv.weight, conv.bias, bn.weight, bn.bias, bn.runningMean, bn.runningVar, fc.weight, fc.bias),
                "small CNN", 1e-5, 1e-5);
    }

    @Test
    void multiheadAttentionMatchesLibtorchsKernel() {
        MultiheadAttention mha = randomized(new MultiheadAttention(8, 2));
        mha.to(DType.FLOAT64);
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 2, 5, 8);
        Tensor memory = Inputs.randn(rng, DType.FLOAT64, 2, 5, 8);     // libtorch's kernel wants key and query of one shape
        Object[] weights = {mha.inProjWeight, mha.inProjBias, mha.outProj.weight, mha.outProj.bias};
        assertClose(mha.forward(x, x, x), Torch.callList("torch._native_multi_head_attention(a, a, a, 8, 2, b, c, d, e, None, False)", x, weights[0], weights[1],
                weights[2], weights[3]).get(0), "self-attention");
        assertClose(mha.forward(x, memory, memory), Torch.callList("torch._native_multi_head_attention(a, f, f, 8, 2, b, c, d, e, None, False)", x, weights[0],
                weights[1], weights[2], weights[3], memory).get(0), "cross-attention");
    }

    /** PyTorch's MultiheadAttention math with a mask, written out in libtorch ops: bool true = masked out (-inf). */
    private static final String MHA_WITH_MASK = """
            qkv = torch.linear(a, b, c).chunk(3, -1)
            q = qkv[0].reshape([2, 5, 2, 4]).transpose(1, 2)
            k = qkv[1].reshape([2, 5, 2, 4]).transpose(1, 2)
            v = qkv[2].reshape([2, 5, 2, 4]).transpose(1, 2)
            m = f
            if f.dtype == torch.bool:
                m = torch.zeros_like(f, dtype=torch.float64).masked_fill(f, float('-inf'))
            if m.dim() == 3:
                m = m.reshape([2, 2, 5, 5])
            o = torch.scaled_dot_product_attention(q, k, v, attn_mask=m)
            return torch.linear(o.transpose(1, 2).reshape([2, 5, 8]), d, e)""";

    @Test
    void multiheadAttentionMasksFollowPyTorchsConvention() {
        MultiheadAttention mha = randomized(new MultiheadAttention(8, 2));
        mha.to(DType.FLOAT64);
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 2, 5, 8);
        Tensor causal = Tensor.arange(5).unsqueeze(1).lt(Tensor.arange(5));    // true above the diagonal = may not attend
        Tensor perHead = Inputs.randn(rng, DType.FLOAT64, 4, 5, 5);
        for (Tensor mask : new Tensor[] {causal, perHead}) {
            assertClose(mha.forward(x, x, x, mask), Torch.call(MHA_WITH_MASK, x, mha.inProjWeight, mha.inProjBias, mha.outProj.weight, mha.outProj.bias, mask),
                    "mask " + mask.describe());
        }
        var e = assertThrows(IllegalArgumentException.class, () -> mha.forward(x, x, x, Tensor.zeros(DType.BOOL, 5, 4)));
        assertTrue(e.getMessage().contains("The shape of the 2D attn_mask is [5, 4], but should be [5, 5]."), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> mha.forward(Inputs.randn(rng, DType.FLOAT64, 2, 5, 6), x, x));
        assertTrue(e.getMessage().contains("was expecting embedding dimension of 8, but got 6"), e.getMessage());
    }

    private static Object[] encoderArgs(TransformerEncoderLayer l, Tensor src) {
        return new Object[] {src, l.selfAttn.inProjWeight, l.selfAttn.inProjBias, l.selfAttn.outProj.weight, l.selfAttn.outProj.bias,
                l.norm1.weight, l.norm1.bias, l.norm2.weight, l.norm2.bias, l.linear1.weight, l.linear1.bias, l.linear2.weight, l.linear2.bias};
    }

    @Test
    void transformerEncoderLayerMatchesLibtorchsFusedLayer() {
        for (boolean normFirst : new boolean[] {false, true}) {
            for (String activation : new String[] {"relu", "gelu"}) {
                TransformerEncoderLayer layer = randomized(new TransformerEncoderLayer(8, 2, 16, 0.1, activation, 1e-5, normFirst, true));
                layer.to(DType.FLOAT64).eval();
                Tensor src = Inputs.randn(rng, DType.FLOAT64, 2, 5, 8);
                String fused = "torch._transformer_encoder_layer_fwd(a, 8, 2, b, c, d, e, " + (activation.equals("gelu") ? "True" : "False") + ", "
                        + (normFirst ? "True" : "False") + ", 1e-5, f, g, h, i, j, k, l, m)";
                assertClose(layer.forward(src), Torch.call(fused, encoderArgs(layer, src)), "encoder layer normFirst=" + normFirst + " " + activation);
            }
        }
    }

    @Test
    void transformerEncoderLayerWithMaskMatchesTheComposition() {
        TransformerEncoderLayer layer = randomized(new TransformerEncoderLayer(8, 2, 16, 0.1));
        layer.to(DType.FLOAT64).eval();
        Tensor src = Inputs.randn(rng, DType.FLOAT64, 2, 5, 8);
        Tensor mask = Tensor.arange(5).unsqueeze(1).lt(Tensor.arange(5));
        // a: src, b-e: attention weights, f-i: norms, j-m: feed-forward, n: mask (true = may not attend)
        String reference = """
                qkv = torch.linear(a, b, c).chunk(3, -1)
                q_ = qkv[0].reshape([2, 5, 2, 4]).transpose(1, 2)
                k_ = qkv[1].reshape([2, 5, 2, 4]).transpose(1, 2)
                v_ = qkv[2].reshape([2, 5, 2, 4]).transpose(1, 2)
                bias_ = torch.zeros_like(n, dtype=torch.float64).masked_fill(n, float('-inf'))
                o_ = torch.scaled_dot_product_attention(q_, k_, v_, attn_mask=bias_)
                x_ = torch.layer_norm(a + torch.linear(o_.transpose(1, 2).reshape([2, 5, 8]), d, e), [8], f, g, 1e-5, False)
                ff_ = torch.linear(torch.relu(torch.linear(x_, j, k)), l, m)
                return torch.layer_norm(x_ + ff_, [8], h, i, 1e-5, False)""";
        Object[] args = encoderArgs(layer, src);
        Object[] withMask = java.util.Arrays.copyOf(args, args.length + 1);
        withMask[args.length] = mask;
        assertClose(layer.forward(src, mask), Torch.call(reference, withMask), "encoder with mask");
    }

    @Test
    void transformerEncoderLayerTrainingAppliesDropout() {
        TransformerEncoderLayer noDropout = new TransformerEncoderLayer(8, 2, 16, 0.0);
        Tensor src = Inputs.randn(rng, DType.FLOAT32, 2, 5, 8);
        Tensor train = noDropout.forward(src);
        assertTrue(train.sameData(noDropout.eval().forward(src)), "p = 0: training and eval agree");
        TransformerEncoderLayer withDropout = new TransformerEncoderLayer(8, 2, 16, 0.5);
        Tensor eval1 = withDropout.eval().forward(src), eval2 = withDropout.forward(src);
        assertTrue(eval1.sameData(eval2), "eval is deterministic");
        assertFalse(withDropout.train().forward(src).sameData(eval1), "training drops activations");
    }
}
