package dev.ember.ops;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert.Tolerance;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.ops.ConvConformanceTest.c;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * convolution's forward and convolution_backward's three gradients against libtorch over a sweep
 * of geometries: odd sizes, stride 2, dilation, groups, depthwise, 1x1, batch 1, channel counts
 * that are not a multiple of the vector width, non-contiguous inputs; float32 against libtorch's
 * float64 result (so the error measured is Ember's), float64 against libtorch float64.
 */
class ConvBackwardSweepTest {
    private static final OpOverload CONVOLUTION = OpRegistry.get("aten.convolution.default");
    private static final OpOverload BACKWARD = OpRegistry.get("aten.convolution_backward.default");

    private static int[] v(int... values) { return values; }

    private static final List<ConvConformanceTest.Case> CASES = List.of(
            c(v(4, 64, 28, 28), v(64, 64, 3, 3), v(1, 1), v(1, 1), v(1, 1), 1),      // TrainingBench's block
            c(v(1, 13, 17, 11), v(19, 13, 3, 3), v(1, 1), v(1, 1), v(1, 1), 1),      // batch 1, odd channels and sizes
            c(v(3, 10, 15, 16), v(12, 10, 3, 3), v(2, 2), v(1, 1), v(1, 1), 1),      // stride 2
            c(v(2, 9, 19, 14), v(7, 9, 3, 2), v(2, 1), v(0, 2), v(1, 1), 1),         // mixed strides, wide padding
            c(v(2, 6, 16, 17), v(10, 6, 3, 3), v(1, 1), v(2, 2), v(2, 2), 1),        // dilation
            c(v(3, 12, 11, 9), v(9, 4, 3, 3), v(1, 2), v(1, 0), v(2, 1), 3),         // groups, stride, dilation
            c(v(2, 8, 10, 10), v(16, 1, 3, 3), v(1, 1), v(1, 1), v(1, 1), 8),        // depthwise, multiplier 2
            c(v(3, 20, 9, 7), v(11, 20, 1, 1), v(1, 1), v(0, 0), v(1, 1), 1),        // 1x1
            c(v(2, 20, 9, 7), v(11, 20, 1, 1), v(2, 2), v(1, 0), v(1, 1), 1),        // 1x1, strided and padded
            c(v(5, 3, 33, 31), v(17, 3, 5, 5), v(1, 1), v(2, 2), v(1, 1), 1),        // 5x5 on 3 channels
            c(v(2, 4, 4, 5), v(6, 4, 4, 5), v(1, 1), v(0, 0), v(1, 1), 1),           // kernel the size of the image: one pixel out
            // stride 1: the input gradient is itself a convolution on the direct kernel (where 512-bit vectors run it)
            c(v(2, 12, 20, 18), v(9, 4, 3, 3), v(1, 1), v(1, 1), v(1, 1), 3),        // groups
            c(v(2, 6, 18, 21), v(8, 6, 3, 2), v(1, 1), v(0, 1), v(1, 1), 1),         // a padding per dimension, an even kernel width
            c(v(2, 5, 12, 12), v(7, 5, 3, 3), v(1, 1), v(3, 3), v(1, 1), 1));        // padding past kernel-1: the transposed form would need negative padding

    /** libtorch's autograd in float64: the gradients of convolution with respect to input, weight and bias for output gradient {@code a}. */
    private static final String LIBTORCH_GRADIENTS = """
            x = b.double().detach().requires_grad_(True)
            w = c.double().detach().requires_grad_(True)
            bias = d.double().detach().requires_grad_(True)
            y = torch.convolution(x, w, bias, e, f, g, False, [0, 0], h)
            go: List[Optional[Tensor]] = [a.double()]
            return torch.autograd.grad([y], [x, w, bias], go)""";

    @Test
    void forwardAndEveryGradientMatchLibtorch() {
        Random rng = new Random(1814);
        try (NDManager m = Torch.scope()) {
            for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
                // float32 against the float64 reference (dtypes differ by design; checked below)
                Tolerance tol = dtype == DType.FLOAT32 ? new Tolerance(1e-4, 1e-4, false) : Tolerance.of(1e-10, 1e-10);
                for (ConvConformanceTest.Case k : CASES) {
                    Tensor x = Inputs.randn(rng, dtype, k.input()), w = Inputs.randn(rng, dtype, k.weight()), b = Inputs.randn(rng, dtype, k.weight()[0]);
                    Tensor y = CONVOLUTION.callTensor(x, w, b, k.stride(), k.padding(), k.dilation(), false, v(0, 0), k.groups());
                    String ctx = dtype + " " + k;
                    assertClose(y, Torch.call(m, "torch.convolution(a.double(), b.double(), c.double(), d, e, f, False, [0, 0], g)",
                            x, w, b, k.stride(), k.padding(), k.dilation(), k.groups()), "forward " + ctx, tol);
                    Tensor gy = Inputs.randn(rng, dtype, y.shape());
                    // every layout of the output gradient and input (transposed, strided, offset) reads the same values
                    for (Inputs.Layout lx : Inputs.layouts(x).subList(0, 2)) {
                        for (Inputs.Layout lg : Inputs.layouts(gy).subList(0, 2)) {
                            List<Tensor> grads = BACKWARD.callList(lg.tensor(), lx.tensor(), w, v(k.weight()[0]), k.stride(), k.padding(), k.dilation(),
                                    false, v(0, 0), k.groups(), new boolean[] {true, true, true});
                            NDList expected = Torch.callListWithGrad(m, LIBTORCH_GRADIENTS, gy, x, w, b, k.stride(), k.padding(), k.dilation(), k.groups());
                            for (Tensor grad : grads) assertEquals(dtype, grad.dtype(), ctx);
                            assertClose(grads, expected, "backward " + ctx + " x " + lx + " grad " + lg, tol);
                        }
                    }
                }
            }
        }
    }
}
