package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static dev.ember.ops.LinalgOpsTest.assertSameError;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad inputs to conv2d and convolution raise libtorch's messages; conv2d's decomposition; what fake tensors get. */
class ConvOpsTest {
    private static final String CONV2D = "aten.conv2d.default", CONVOLUTION = "aten.convolution.default";
    private static final int[] ONE = {1, 1}, ZERO = {0, 0};

    private static Tensor ones(int... shape) { return Tensor.ones(shape); }

    @Test
    void conv2dShapeErrors() {
        String expr = "torch.conv2d(a, b, None, c, d, e, f)";
        assertSameError(expr, CONV2D, ones(8, 4, 10, 10), ones(64, 3, 3, 3), null, ONE, ZERO, ONE, 1);
        assertSameError("torch.conv2d(a, b)", CONV2D, ones(8, 4, 10, 10), ones(64, 3, 3, 3));
        assertSameError("torch.conv2d(a, b, None, 1, 0, 1, 2)", new Object[] {ones(8, 4, 10, 10), ones(64, 3, 3, 3)}, CONV2D, ones(8, 4, 10, 10), ones(64, 3, 3, 3), null, 1, 0, 1, 2);
        assertSameError("torch.conv2d(a, b, None, 1, 0, 1, 2)", new Object[] {ones(8, 4, 10, 10), ones(63, 2, 3, 3)}, CONV2D, ones(8, 4, 10, 10), ones(63, 2, 3, 3), null, 1, 0, 1, 2);
        assertSameError("torch.conv2d(a, b, None, 1, 0, 1, 3)", new Object[] {ones(1, 3, 4, 4), ones(2, 1, 3, 3)}, CONV2D, ones(1, 3, 4, 4), ones(2, 1, 3, 3), null, 1, 0, 1, 3);
        assertSameError("torch.conv2d(a, b)", CONV2D, ones(1, 3, 4, 4), ones(2, 3, 5, 5));
        assertSameError("torch.conv2d(a, b, None, 1, 1)", new Object[] {ones(1, 3, 4, 4), ones(2, 3, 7, 7)}, CONV2D, ones(1, 3, 4, 4), ones(2, 3, 7, 7), null, 1, 1);
        assertSameError("torch.conv2d(a, b, None, 1, 0, 2)", new Object[] {ones(1, 3, 4, 4), ones(2, 3, 3, 3)}, CONV2D, ones(1, 3, 4, 4), ones(2, 3, 3, 3), null, 1, 0, 2);
        assertSameError("torch.conv2d(a, b, c)", CONV2D, ones(1, 3, 4, 4), ones(2, 3, 3, 3), ones(3));
        assertSameError("torch.conv2d(a, b, c)", CONV2D, ones(1, 3, 4, 4), ones(2, 3, 3, 3), ones(1, 2));
        assertSameError("torch.conv2d(a, b)", CONV2D, ones(3, 4), ones(2, 3, 3, 3));
        assertSameError("torch.conv2d(a, b)", CONV2D, ones(1, 1, 3, 4, 4), ones(2, 3, 3, 3));
        assertSameError("torch.conv2d(a, b)", CONV2D, ones(1, 3, 0, 4), ones(2, 3, 3, 3));
        assertSameError("torch.conv2d(a, b, None, 1, 1)", new Object[] {ones(1, 3, 0, 4), ones(2, 3, 1, 1)}, CONV2D, ones(1, 3, 0, 4), ones(2, 3, 1, 1), null, 1, 1);
        assertSameError("torch.conv2d(a, b)", CONV2D, ones(1, 3, 4, 4), ones(0, 3, 3, 3));
    }

    @Test
    void conv2dParameterErrors() {
        String expr = "torch.conv2d(a, b, None, c, d, e, f)";
        Tensor x = ones(1, 3, 4, 4), w = ones(2, 3, 3, 3);
        assertSameError(expr, CONV2D, x, w, null, new int[] {0, 1}, ZERO, ONE, 1);
        assertSameError(expr, CONV2D, x, w, null, new int[] {-1, 1}, ZERO, ONE, 1);
        assertSameError(expr, CONV2D, x, w, null, ONE, new int[] {-1, 0}, ONE, 1);
        assertSameError(expr, CONV2D, x, w, null, ONE, ZERO, new int[] {-1, 1}, 1);
        assertSameError(expr, CONV2D, x, w, null, ONE, ZERO, new int[] {0, 1}, 1);
        assertSameError(expr, CONV2D, x, w, null, ONE, ZERO, ONE, 0);
        assertSameError(expr, CONV2D, x, w, null, ONE, ZERO, ONE, -1);
        assertSameError(expr, CONV2D, x, w, null, new int[] {1, 1, 1}, ZERO, ONE, 1);
        assertSameError(expr, CONV2D, x, w, null, ONE, new int[] {1, 1, 1}, ONE, 1);
    }

    @Test
    void conv2dDtypeErrors() {
        assertSameError("torch.conv2d(a, b)", CONV2D, ones(1, 3, 4, 4), Tensor.ones(DType.FLOAT64, 2, 3, 3, 3));
        assertSameError("torch.conv2d(a, b, c)", CONV2D, ones(1, 3, 4, 4), ones(2, 3, 3, 3), Tensor.ones(DType.FLOAT64, 2));
        assertSameError("torch.conv2d(a, b, c)", CONV2D, ones(1, 3, 4, 4), ones(2, 3, 3, 3), Tensor.ones(DType.FLOAT64, 3));
        assertSameError("torch.conv2d(a, b)", CONV2D, Tensor.ones(DType.BOOL, 1, 3, 4, 4), Tensor.ones(DType.BOOL, 2, 3, 3, 3));
        assertSameError("torch.conv2d(a, b, None, 1, 0, 2)", new Object[] {Tensor.ones(DType.INT32, 1, 3, 6, 6), Tensor.ones(DType.INT32, 2, 3, 3, 3)},
                CONV2D, Tensor.ones(DType.INT32, 1, 3, 6, 6), Tensor.ones(DType.INT32, 2, 3, 3, 3), null, 1, 0, 2);
    }

    @Test
    void convolutionErrors() {
        String expr = "torch.convolution(a, b, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)";
        Object[] none = {null, ONE, ZERO, ONE, false, ZERO, 1};
        assertSameError(expr, new Object[] {ones(3, 4, 4), ones(2, 3, 3, 3)}, CONVOLUTION, with(ones(3, 4, 4), ones(2, 3, 3, 3), none));
        assertSameError(expr, new Object[] {ones(1, 3, 4), ones(2, 3)}, CONVOLUTION, with(ones(1, 3, 4), ones(2, 3), none));
        assertSameError("torch.convolution(a, b, None, [1, 1], [0, 0], [1, 1], False, [-1, 0], 1)", new Object[] {ones(1, 3, 4, 4), ones(2, 3, 3, 3)},
                CONVOLUTION, ones(1, 3, 4, 4), ones(2, 3, 3, 3), null, ONE, ZERO, ONE, false, new int[] {-1, 0}, 1);
    }

    private static Object[] with(Tensor x, Tensor w, Object[] rest) {
        Object[] out = new Object[rest.length + 2];
        out[0] = x;
        out[1] = w;
        System.arraycopy(rest, 0, out, 2, rest.length);
        return out;
    }

    @Test
    void unsupportedConvolutionsSaySo() {
        var convolution = OpRegistry.get(CONVOLUTION);
        IllegalArgumentException transposed = assertThrows(IllegalArgumentException.class,
                () -> convolution.call(ones(1, 3, 4, 4), ones(3, 2, 3, 3), null, ONE, ZERO, ONE, true, ZERO, 1));
        assertTrue(transposed.getMessage().contains("transposed convolution is not supported yet"), transposed.getMessage());
        IllegalArgumentException conv1d = assertThrows(IllegalArgumentException.class,
                () -> convolution.call(ones(1, 3, 8), ones(2, 3, 3), null, new int[] {1}, new int[] {0}, new int[] {1}, false, new int[] {0}, 1));
        assertTrue(conv1d.getMessage().contains("only 2-d"), conv1d.getMessage());
    }

    @Test
    void conv2dDecomposesToConvolution() {
        Random rng = new Random(30);
        var conv2d = OpRegistry.get(CONV2D);
        for (int[] shape : new int[][] {{2, 4, 7, 6}, {4, 7, 6}}) {
            Tensor x = Inputs.randn(rng, DType.FLOAT64, shape), w = Inputs.randn(rng, DType.FLOAT64, 6, 2, 3, 3), b = Inputs.randn(rng, DType.FLOAT64, 6);
            Object[] args = {x, w, b, new int[] {2, 1}, ONE, ONE, 2};
            Tensor viaKernel = conv2d.callTensor(args);
            Tensor viaDecomposition = (Tensor) conv2d.decompose(args);
            assertClose(viaDecomposition, viaKernel, "conv2d decomposition " + java.util.Arrays.toString(shape));
            Tensor fake = conv2d.callTensor(FakeTensor.like(x), FakeTensor.like(w), FakeTensor.like(b), new int[] {2, 1}, ONE, ONE, 2);
            assertTrue(fake.isFake());
            assertArrayEquals(viaKernel.shape(), fake.shape());
        }
    }
}
