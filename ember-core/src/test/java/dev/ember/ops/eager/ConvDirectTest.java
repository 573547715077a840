package dev.ember.ops.eager;

import ai.djl.ndarray.NDManager;
import dev.ember.kernels.Conv2dGeometry;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert.Tolerance;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;

/**
 * The direct kernel's batching of images under a memory budget, which real budgets reach only for
 * huge inputs. The kernel is called directly: conv2d dispatches to it only on 512-bit vectors.
 */
class ConvDirectTest {

    @Test
    void imagesPaddedAFewAtATimeGiveTheWholeBatch() {
        Random rng = new Random(25);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 5, 8, 20, 21), w = Inputs.randn(rng, DType.FLOAT32, 10, 4, 3, 3), b = Inputs.randn(rng, DType.FLOAT32, 10);
        Conv2dGeometry g = Conv2dGeometry.of(x.shape(), w.shape(), new int[] {1, 1}, new int[] {1, 2}, new int[] {1, 1}, 2);
        long twoImages = 2L * 8 * 22 * 25 * Float.BYTES;
        try (NDManager m = Torch.scope()) {
            var expected = Torch.call(m, "torch.conv2d(a.double(), b.double(), c.double(), 1, [1, 2], 1, 2).float()", x, w, b);
            for (long budget : new long[] {1, twoImages, Long.MAX_VALUE}) {
                Tensor out = Tensor.allocate(DType.FLOAT32, g.batch(), g.outChannels(), g.outH(), g.outW());
                ConvDirect.forward(x, w, b, out, g, budget);
                assertClose(out, expected, "budget " + budget + " bytes", Tolerance.of(1e-5, 1e-4));
            }
        }
    }
}
