package dev.ember.nn;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** FractionalMaxPool2d/3d against ATen's fractional_max_pool2d/3d, with the same _random_samples; beyond ModuleSamplesTest's samples. */
class FractionalMaxPoolTest {

    @Test
    void drawnSamplesAndUnbatchedInputMatchAtenOnTheSameSamples() {
        for (DType dtype : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor x = Tensor.randn(3, 2, 11, 13).to(dtype);
            Tensor samples = Tensor.rand(3, 2, 2).to(dtype);
            List<Tensor> got = F.fractionalMaxPool2dWithIndices(x, new int[] {3, 3}, new int[] {5, 4}, null, samples);
            try (NDManager m = Torch.scope()) {
                NDList want = Torch.callList(m, "torch.fractional_max_pool2d(a, [3, 3], [5, 4], b)", x, samples);
                assertClose(got.get(0), want.get(0), "values " + dtype);
                assertClose(got.get(1), want.get(1), "indices " + dtype);
            }
            Tensor plane = Tensor.randn(2, 6, 6).to(dtype), one = samples.narrow(0, 0, 1);
            List<Tensor> unbatched = F.fractionalMaxPool2dWithIndices(plane, new int[] {2, 2}, null, new double[] {0.5, 0.5}, one);
            try (NDManager m = Torch.scope()) {
                NDList want = Torch.callList(m, "torch.fractional_max_pool2d(a, [2, 2], [3, 3], b)", plane, one);
                assertClose(unbatched.get(0), want.get(0), "unbatched values " + dtype);
                assertClose(unbatched.get(1), want.get(1), "unbatched indices " + dtype);
            }
        }
        Tensor drawn = new FractionalMaxPool3d(new int[] {2, 2, 2}, null, new double[] {0.5, 0.5, 0.5}).forward(Tensor.randn(1, 1, 6, 6, 6));
        assertArrayEquals(new int[] {1, 1, 3, 3, 3}, drawn.shape());
    }

    @Test
    void badSettingsAreRefusedInTorchWords() {
        var e = assertThrows(IllegalArgumentException.class, () -> new FractionalMaxPool2d(new int[] {2, 2}, null, new double[] {0.5, 1.5}));
        assertEquals("output_ratio must be between 0 and 1 (got (0.5, 1.5))", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new FractionalMaxPool2d(new int[] {2, 2}, null, null));
        assertEquals("FractionalMaxPool2d requires specifying either an output size, or a pooling ratio", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> F.fractionalMaxPool2d(Tensor.randn(1, 1, 4, 4), new int[] {3, 3}, new int[] {3, 3}, null, null));
        assertEquals("fractional_max_pool2d_out(): pool height 3 too large relative to input height 4", e.getMessage());
        String torch = Torch.refusalText(assertThrows(Exception.class,
                () -> Torch.call("torch.fractional_max_pool2d(a, [3, 3], [3, 3], torch.rand(1, 1, 2))", Tensor.randn(1, 1, 4, 4))));
        assertEquals(true, torch.contains("pool height 3 too large relative to input height 4"), torch);
    }
}
