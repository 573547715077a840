package dev.ember.nn;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * max_pool1d, avg_pool1d and adaptive_avg_pool1d (and their modules) against libtorch, batched
 * and unbatched, with their gradients flowing; TransformerEncoder's names and its layers in order,
 * compiled as one graph equal to eager.
 */
class Pool1dAndEncoderStackTest {
    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    @Test
    void pooling1dMatchesLibtorch() {
        Tensor.manualSeed(2);
        try (NDManager m = Torch.scope()) {
            for (Tensor x : List.of(Tensor.randn(2, 3, 11), Tensor.randn(3, 10))) {
                String shape = java.util.Arrays.toString(x.shape());
                assertClose(F.maxPool1d(x, 3, 2, 1, 1, false), Torch.call(m, "torch.max_pool1d(a, [3], [2], [1], [1], False)", x), "max_pool1d " + shape);
                assertClose(F.maxPool1d(x, 2, 2, 0, 2, true), Torch.call(m, "torch.max_pool1d(a, [2], [2], [0], [2], True)", x), "max_pool1d dilated ceil " + shape);
                assertClose(F.avgPool1d(x, 3, 2, 1, false, false), Torch.call(m, "torch.avg_pool1d(a, [3], [2], [1], False, False)", x), "avg_pool1d " + shape);
                assertClose(F.avgPool1d(x, 4), Torch.call(m, "torch.avg_pool1d(a, [4])", x), "avg_pool1d default " + shape);
                assertClose(F.adaptiveAvgPool1d(x, 4), Torch.call(m, "torch.adaptive_avg_pool1d(a, [4])", x), "adaptive_avg_pool1d " + shape);
                assertClose(new MaxPool1d(2).forward(x), Torch.call(m, "torch.max_pool1d(a, [2])", x), "MaxPool1d " + shape);
            }
        }
        Tensor x = Tensor.randn(2, 3, 8).requiresGrad(true);
        F.maxPool1d(x, 2).sum().add(F.avgPool1d(x, 2).sum()).add(F.adaptiveAvgPool1d(x, 3).sum()).backward();
        assertEquals(List.of(2, 3, 8), java.util.Arrays.stream(x.grad().shape()).boxed().toList());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> F.maxPool1d(Tensor.randn(1, 2, 3, 4), 2)).getMessage()
                .startsWith("max_pool1d: Expected 2D or 3D (batch mode) tensor for input"));
        assertEquals("AdaptiveAvgPool1d(output_size=4)", new AdaptiveAvgPool1d(4).toString());
    }

    @Test
    void encoderStackIsItsLayersInOrderAndOneGraph() {
        Tensor.manualSeed(3);
        TransformerEncoder enc = new TransformerEncoder(() -> new TransformerEncoderLayer(16, 2, 32, 0.0), 3, new LayerNorm(16));
        enc.eval();
        List<String> keys = new ArrayList<>(enc.stateDict().keySet());
        assertTrue(keys.contains("layers.0.self_attn.in_proj_weight") && keys.contains("layers.2.linear2.bias") && keys.contains("norm.weight"), keys.toString());
        Tensor x = Tensor.randn(2, 5, 16);
        Tensor byHand = x;
        for (TransformerEncoderLayer l : enc.layers) byHand = l.forward(byHand);
        assertClose(enc.forward(x), enc.norm.forward(byHand), "the layers in order, then the norm");
        ExplainOutput e = Ember.explain((Fn1<Tensor, Tensor>) enc::forward).with(x);
        assertEquals(1, e.graphCount(), e.toString());
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertClose(Ember.compile(enc).apply(x), enc.forward(x), "compiled");
    }
}
