package dev.ember.nn;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** The functional forms pass PyTorch's arguments to the right op: each against libtorch's function. */
class FTest {
    private final Random rng = new Random(41);

    @Test
    void activationsAndSoftmax() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 3, 5);
        assertClose(F.relu(x), Torch.call("torch.relu(a)", x), "relu");
        assertClose(F.gelu(x), Torch.call("torch.gelu(a)", x), "gelu");
        assertClose(F.gelu(x, "tanh"), Torch.call("torch.gelu(a, approximate='tanh')", x), "gelu tanh");
        assertClose(F.silu(x), Torch.call("torch.silu(a)", x), "silu");
        assertClose(F.sigmoid(x), Torch.call("torch.sigmoid(a)", x), "sigmoid");
        assertClose(F.tanh(x), Torch.call("torch.tanh(a)", x), "tanh");
        assertClose(F.softmax(x, 0), Torch.call("torch.softmax(a, 0)", x), "softmax");
        assertClose(F.logSoftmax(x, -1), Torch.call("torch.log_softmax(a, -1)", x), "log_softmax");
        assertClose(F.dropout(x, 0.3, false), Torch.call("torch.dropout(a, 0.3, False)", x), "dropout off");
    }

    @Test
    void linearAndConvolutionOverloads() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 4, 7, 6);
        Tensor w = Inputs.randn(rng, DType.FLOAT32, 6, 2, 3, 3), b = Inputs.randn(rng, DType.FLOAT32, 6);
        Tensor w1 = Inputs.randn(rng, DType.FLOAT32, 6, 4, 3, 3);
        assertClose(F.conv2d(x, w1, b), Torch.call("torch.conv2d(a, b, c)", x, w1, b), "conv2d defaults");
        assertClose(F.conv2d(x, w1, null, 2, 1), Torch.call("torch.conv2d(a, b, None, [2, 2], [1, 1])", x, w1), "conv2d stride padding");
        assertClose(F.conv2d(x, w, b, 1, 2, 2, 2), Torch.call("torch.conv2d(a, b, c, [1, 1], [2, 2], [2, 2], 2)", x, w, b), "conv2d dilation groups");
        Tensor lw = Inputs.randn(rng, DType.FLOAT32, 3, 6);
        assertClose(F.linear(x, lw), Torch.call("torch.linear(a, b)", x, lw), "linear");
    }

    @Test
    void poolingOverloads() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 3, 8, 7);
        assertClose(F.maxPool2d(x, 2), Torch.call("torch.max_pool2d(a, [2, 2])", x), "max pool kernel");
        assertClose(F.maxPool2d(x, 3, 2), Torch.call("torch.max_pool2d(a, [3, 3], [2, 2])", x), "max pool stride");
        assertClose(F.maxPool2d(x, 3, 2, 1), Torch.call("torch.max_pool2d(a, [3, 3], [2, 2], [1, 1])", x), "max pool padding");
        assertClose(F.avgPool2d(x, 2), Torch.call("torch.avg_pool2d(a, [2, 2])", x), "avg pool kernel");
        assertClose(F.avgPool2d(x, 3, 2, 1), Torch.call("torch.avg_pool2d(a, [3, 3], [2, 2], [1, 1])", x), "avg pool padding");
        assertClose(F.avgPool2d(x, new int[] {3, 2}, new int[] {2, 2}, new int[] {1, 1}, true, false, 3),
                Torch.call("torch.avg_pool2d(a, [3, 2], [2, 2], [1, 1], True, False, 3)", x), "avg pool everything");
        assertClose(F.adaptiveAvgPool2d(x, 3), Torch.call("torch.adaptive_avg_pool2d(a, [3, 3])", x), "adaptive avg pool");
    }

    /**
     * An int[2] size given as one int reaches the derivative as the forward read it (fuzzer seed
     * 542728: {@code adaptiveAvgPool2d(x, 1)}'s backward read the size {@code [1]} raw and threw
     * ArrayIndexOutOfBoundsException), eagerly and compiled.
     */
    @Test
    void aSizeGivenAsOneIntReachesTheDerivativeAsTheForwardReadIt() {
        for (int size : new int[] {1, 3}) {
            Tensor x = Inputs.randn(rng, DType.FLOAT64, 2, 3, 6, 5);
            Tensor one = x.detach().requiresGrad(true), both = x.detach().requiresGrad(true), compiled = x.detach().requiresGrad(true);
            F.adaptiveAvgPool2d(one, size).mul(x.detach().sum(1, true).narrow(2, 0, size).narrow(3, 0, size)).sum().backward();
            F.adaptiveAvgPool2d(both, new int[] {size, size}).mul(x.detach().sum(1, true).narrow(2, 0, size).narrow(3, 0, size)).sum().backward();
            assertArrayEquals(both.grad().toDoubleArray(), one.grad().toDoubleArray(), "size " + size + " as one int, and as [size, size]");
            int s = size;
            dev.ember.Ember.compile((dev.ember.Fn1<Tensor, Tensor>) t -> F.adaptiveAvgPool2d(t, s), dev.ember.Options.backend("aot_eager"))
                    .apply(compiled).mul(x.detach().sum(1, true).narrow(2, 0, size).narrow(3, 0, size)).sum().backward();
            assertArrayEquals(both.grad().toDoubleArray(), compiled.grad().toDoubleArray(), 1e-12, "compiled, size " + size);
        }
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 2, 3, 4, 5).requiresGrad(true);
        F.adaptiveAvgPool2d(x, 1).sum().backward();
        for (double g : x.grad().toDoubleArray()) org.junit.jupiter.api.Assertions.assertEquals(1.0 / 20, g, 1e-15, "each element's share of its plane's mean");
    }

    @Test
    void normalizationEmbeddingAndAttention() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 4, 3, 2, 2);
        Tensor w = Inputs.randn(rng, DType.FLOAT32, 3), b = Inputs.randn(rng, DType.FLOAT32, 3);
        Tensor mean = Inputs.randn(rng, DType.FLOAT32, 3), var = Inputs.rand(rng, DType.FLOAT32, 3).add(0.5);
        assertClose(F.batchNorm(x, mean, var, w, b, false, 0.1, 1e-5), Torch.call("torch.batch_norm(a, b, c, d, e, False, 0.1, 1e-5, False)", x, w, b, mean, var),
                "batch norm");
        assertClose(F.layerNorm(x, new int[] {2, 2}), Torch.call("torch.layer_norm(a, [2, 2])", x), "layer norm");
        Tensor table = Inputs.randn(rng, DType.FLOAT32, 6, 3), idx = Inputs.randint(rng, DType.INT64, 0, 6, 2, 4);
        assertClose(F.embedding(idx, table), Torch.call("torch.embedding(a, b)", table, idx), "embedding");
        Tensor q = Inputs.randn(rng, DType.FLOAT32, 2, 4, 8), k = Inputs.randn(rng, DType.FLOAT32, 2, 5, 8), v = Inputs.randn(rng, DType.FLOAT32, 2, 5, 3);
        assertClose(F.scaledDotProductAttention(q, k, v), Torch.call("torch.scaled_dot_product_attention(a, b, c)", q, k, v), "sdpa");
        assertClose(F.scaledDotProductAttention(q, k, v, null, 0.0, true, 0.2),
                Torch.call("torch.scaled_dot_product_attention(a, b, c, is_causal=True, scale=0.2)", q, k, v), "sdpa causal scale");
        assertArrayEquals(new int[] {2, 4, 3}, F.scaledDotProductAttention(q, k, v, Tensor.ones(DType.BOOL, 4, 5)).shape());
    }
}
