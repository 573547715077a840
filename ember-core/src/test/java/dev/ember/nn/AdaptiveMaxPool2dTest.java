package dev.ember.nn;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * adaptive_max_pool2d (values and indices) against libtorch over sizes that divide and do not
 * (overlapping and uneven windows), output sizes larger than the input, ties and NaN, batched and
 * unbatched; its gradient; compiled against eager; errors.
 */
class AdaptiveMaxPool2dTest {

    @Test
    void valuesAndIndicesMatchLibtorch() {
        Random rng = new Random(1);
        Tensor ties = Inputs.randint(rng, DType.INT64, 0, 3, 2, 3, 5, 7).to(DType.FLOAT32);
        Tensor nan = Inputs.randn(rng, DType.FLOAT64, 1, 2, 4, 4);
        nan = nan.add(Tensor.of(new double[] {0, Double.NaN, 0, 0, 0, 0, 0, 0, 0, 0, 0, Double.NaN, 0, 0, 0, 0}, 4, 4));
        for (Tensor x : List.of(Inputs.randn(rng, DType.FLOAT32, 2, 3, 8, 6), Inputs.randn(rng, DType.FLOAT64, 3, 7, 5), ties, nan,
                Inputs.nonContiguous(Inputs.randn(rng, DType.FLOAT32, 2, 2, 5, 5)))) {
            for (int[] out : List.of(new int[] {1, 1}, new int[] {2, 3}, new int[] {3, 2}, new int[] {4, 4}, new int[] {9, 8}, new int[] {5, 1})) {
                List<Tensor> got = F.adaptiveMaxPool2dWithIndices(x, out);
                NDList want = Torch.callList("torch.adaptive_max_pool2d(a, " + Arrays.toString(out) + ")", x);
                String what = Arrays.toString(x.shape()) + " to " + Arrays.toString(out);
                assertClose(got.get(0), want.get(0), "values " + what);
                assertClose(got.get(1), want.get(1), "indices " + what);
            }
        }
        assertEquals("AdaptiveMaxPool2d(output_size=(5, 7), return_indices=False)", new AdaptiveMaxPool2d(new int[] {5, 7}).toString());
        assertEquals("AdaptiveMaxPool2d(output_size=3, return_indices=False)", new AdaptiveMaxPool2d(3).toString());
    }

    @Test
    void gradientMatchesLibtorch() {
        Random rng = new Random(2);
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 2, 3, 7, 5), w = Inputs.randn(rng, DType.FLOAT64, 2, 3, 3, 4);
        Tensor leaf = x.detach().requiresGrad(true);
        F.adaptiveMaxPool2d(leaf, new int[] {3, 4}).mul(w).sum().backward();
        try (NDManager m = Torch.scope()) {
            assertClose(leaf.grad(), Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([(torch.adaptive_max_pool2d(a, [3, 4])[0] * b).sum()], [a])", x, w).head(),
                    "gradient");
        }
    }

    @Test
    void compiledMatchesEager() {
        Tensor.manualSeed(3);
        Tensor x = Tensor.randn(2, 3, 7, 9);
        AdaptiveMaxPool2d pool = new AdaptiveMaxPool2d(new int[] {3, 4});
        Fn1<Tensor, Tensor> fn = t -> pool.forwardWithIndices(t).get(0).add(pool.forwardWithIndices(t).get(1).typeAs(t));
        for (String backend : List.of("aot_eager", "inductor")) {
            assertArrayEquals(fn.apply(x).toDoubleArray(), Ember.compile(fn, Options.backend(backend).fullgraph(true)).apply(x).toDoubleArray(), 0.0, backend);
        }
    }

    @Test
    void errors() {
        assertEquals("adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [4, 4]",
                assertThrows(IllegalArgumentException.class, () -> F.adaptiveMaxPool2d(Tensor.randn(4, 4), new int[] {2, 2})).getMessage());
        assertEquals("adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes [1, 2, 0, 3] with dimension 2 being empty",
                assertThrows(IllegalArgumentException.class, () -> F.adaptiveMaxPool2d(Tensor.randn(1, 2, 0, 3), new int[] {2, 2})).getMessage());
    }
}
