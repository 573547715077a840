package dev.ember.nn;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * F.embeddingBag and EmbeddingBag against libtorch's embedding_bag: sum, mean and max, offsets
 * with empty bags, 2-d input, include_last_offset, per_sample_weights, padding_idx; the weight's
 * gradient; compiled against eager; errors.
 */
class EmbeddingBagTest {
    private static final List<String> MODES = List.of("sum", "mean", "max");

    private static Tensor idx(long... v) { return Tensor.of(v, v.length); }

    @Test
    void matchesLibtorch() {
        Random rng = new Random(1);
        Tensor weight = Inputs.randn(rng, DType.FLOAT32, 10, 4);
        Tensor input = idx(1, 2, 4, 5, 4, 3, 2, 9, 0, 0);
        Tensor offsets = idx(0, 3, 3, 7);   // the second bag is empty
        for (int m = 0; m < 3; m++) {
            String mode = MODES.get(m);
            assertClose(F.embeddingBag(input, weight, offsets, mode, null, false, null),
                    Torch.callList("torch.embedding_bag(a, b, c, False, " + m + ", False, None, False)", weight, input, offsets).get(0), mode);
            assertClose(F.embeddingBag(input, weight, idx(0, 3, 3, 7, 10), mode, null, true, null),
                    Torch.callList("torch.embedding_bag(a, b, c, False, " + m + ", False, None, True)", weight, input, idx(0, 3, 3, 7, 10)).get(0), mode + " include_last_offset");
            assertClose(F.embeddingBag(input, weight, offsets, mode, null, false, 4),
                    Torch.callList("torch.embedding_bag(a, b, c, False, " + m + ", False, None, False, 4)", weight, input, offsets).get(0), mode + " padding_idx");
            Tensor fixed = Inputs.randint(rng, DType.INT64, 0, 10, 3, 5);
            assertClose(F.embeddingBag(fixed, weight, null, mode, null, false, null),
                    Torch.callList("torch.embedding_bag(a, b.reshape(-1), torch.arange(0, 15, 5), False, " + m + ", False, None, False)", weight, fixed).get(0), mode + " 2-d");
        }
        Tensor psw = Inputs.randn(rng, DType.FLOAT32, 10);
        assertClose(F.embeddingBag(input, weight, offsets, "sum", psw, false, null),
                Torch.callList("torch.embedding_bag(a, b, c, False, 0, False, d, False)", weight, input, offsets, psw).get(0), "per_sample_weights");
        EmbeddingBag bag = new EmbeddingBag(10, 4);
        assertEquals("EmbeddingBag(10, 4, mode='mean')", bag.toString());
        assertEquals(List.of(2, 4), List.of(bag.forward(idx(1, 2, 3), idx(0, 1)).shape()[0], bag.forward(idx(1, 2, 3), idx(0, 1)).shape()[1]));
    }

    @Test
    void weightGradientMatchesLibtorch() {
        Random rng = new Random(2);
        Tensor weight = Inputs.randn(rng, DType.FLOAT64, 8, 3), input = idx(1, 2, 2, 5, 7, 1, 0), offsets = idx(0, 2, 2, 5);
        Tensor out = Inputs.randn(rng, DType.FLOAT64, 4, 3);
        try (NDManager m = Torch.scope()) {
            for (int mode = 0; mode < 3; mode++) {
                Tensor leaf = weight.detach().requiresGrad(true);
                F.embeddingBag(input, leaf, offsets, MODES.get(mode), null, false, null).mul(out).sum().backward();
                assertClose(leaf.grad(), Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([(torch.embedding_bag(a, b, c, False, "
                        + mode + ", False, None, False)[0] * d).sum()], [a])", weight, input, offsets, out).head(), MODES.get(mode) + " gradient");
            }
        }
    }

    @Test
    void compiledMatchesEager() {
        EmbeddingBag bag = new EmbeddingBag(20, 5, "max");
        Fn2<Tensor, Tensor, Tensor> fn = bag::forward;
        Tensor input = idx(3, 1, 4, 1, 5, 9, 2, 6), offsets = idx(0, 2, 2, 6);
        for (String backend : List.of("aot_eager", "inductor")) {
            assertArrayEquals(fn.apply(input, offsets).toDoubleArray(), Ember.compile(fn, Options.backend(backend).fullgraph(true)).apply(input, offsets).toDoubleArray(), 1e-6, backend);
        }
    }

    @Test
    void errors() {
        Tensor w = Tensor.randn(5, 2);
        assertEquals("offsets has to be a 1D Tensor but got None", assertThrows(IllegalArgumentException.class, () -> F.embeddingBag(idx(1, 2), w, null, "sum", null, false, null)).getMessage());
        assertEquals("input has to be 1D or 2D Tensor, but got Tensor of dimension 3",
                assertThrows(IllegalArgumentException.class, () -> F.embeddingBag(Tensor.zeros(DType.INT64, 1, 1, 1), w, null, "sum", null, false, null)).getMessage());
        assertEquals("embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' (got mode='max'). Please open a feature request on GitHub.",
                assertThrows(IllegalArgumentException.class, () -> F.embeddingBag(idx(1), w, idx(0), "max", Tensor.ones(1), false, null)).getMessage());
    }
}
