package dev.ember.ops;

import ai.djl.ndarray.NDList;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;

/** native_layer_norm and native_group_norm (the output and the statistics) against libtorch, float32 and float64. */
class NativeNormOpsTest {
    private static final Random RNG = new Random(41);

    private static void assertAll(List<Tensor> got, NDList want, String what) {
        for (int i = 0; i < 3; i++) assertClose(got.get(i), want.get(i), what + " result " + i);
    }

    @Test
    void nativeLayerNormMatchesLibtorch() {
        for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            Tensor x = Inputs.randn(RNG, dtype, 2, 3, 4), w = Inputs.randn(RNG, dtype, 3, 4), b = Inputs.randn(RNG, dtype, 3, 4);
            assertAll(NativeNormOps.NATIVE_LAYER_NORM.callList(x, new int[] {3, 4}, w, b, 1e-5),
                    Torch.callList("torch.native_layer_norm(a, [3, 4], b, c, 1e-5)", x, w, b), dtype + " affine");
            assertAll(NativeNormOps.NATIVE_LAYER_NORM.callList(x, new int[] {4}, null, null, 0.1),
                    Torch.callList("torch.native_layer_norm(a, [4], None, None, 0.1)", x), dtype + " plain");
        }
    }

    @Test
    void nativeGroupNormMatchesLibtorch() {
        for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            Tensor x = Inputs.randn(RNG, dtype, 2, 6, 5), w = Inputs.randn(RNG, dtype, 6), b = Inputs.randn(RNG, dtype, 6);
            assertAll(NativeNormOps.NATIVE_GROUP_NORM.callList(x, w, b, 2L, 6L, 5L, 3L, 1e-5),
                    Torch.callList("torch.native_group_norm(a, b, c, 2, 6, 5, 3, 1e-5)", x, w, b), dtype + " affine");
            assertAll(NativeNormOps.NATIVE_GROUP_NORM.callList(x, null, null, 2L, 6L, 5L, 2L, 0.01),
                    Torch.callList("torch.native_group_norm(a, None, None, 2, 6, 5, 2, 0.01)", x), dtype + " plain");
        }
    }
}
