package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** {@code x.norm(p, dims, keepdim)} is linalg_vector_norm: at a slice of zeros its gradient is 0 (ATen's norm_backward), not NaN. */
class NormAtZeroTest {
    @Test
    void aNegativePWithAZeroElementIsZeroAsLibtorchGivesIt() {
        Tensor x = Tensor.of(new double[] {0, 2, 4}, 3);
        try (var m = dev.ember.testing.Torch.scope()) {
            dev.ember.testing.TorchAssert.assertClose(x.norm(-1.0, new int[] {0}, false),
                    dev.ember.testing.Torch.call(m, "torch.linalg_vector_norm(a, -1.0)", x), "norm p = -1 with a zero");
        }
    }

    @Test
    void theGradientAtAZeroSliceIsZeroForEveryP() {
        for (double p : new double[] {2, 3, 0.5, 1, Double.POSITIVE_INFINITY}) {
            Tensor x = Tensor.of(new double[] {0, 0, 0, 1.5, -2, 0.5}, 2, 3).requiresGrad(true);
            x.norm(p, new int[] {1}, false).sum().backward();
            double[] g = x.grad().toDoubleArray();
            assertArrayEquals(new double[] {0, 0, 0}, java.util.Arrays.copyOf(g, 3), "p = " + p);
            for (double v : g) if (Double.isNaN(v)) throw new AssertionError("NaN gradient for p = " + p);
        }
    }
}
