package dev.ember.ops.eager;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.kernels.Conv2dGeometry;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert.Tolerance;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;

/**
 * The backward's chunking of the batch under a memory budget (one GEMM per group over each
 * chunk's images), which real budgets reach only for huge inputs: one image at a time, chunks
 * of two with a partial last one, and the whole batch give libtorch's gradients.
 */
class Conv2dBackwardTest {

    @Test
    void imagesTakenAFewAtATimeGiveTheWholeBatchsGradients() {
        Random rng = new Random(26);
        for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            Tensor x = Inputs.randn(rng, dtype, 5, 6, 9, 8), w = Inputs.randn(rng, dtype, 4, 3, 3, 2), gy;
            int[] stride = {2, 1}, padding = {1, 1}, dilation = {1, 2};
            Conv2dGeometry g = Conv2dGeometry.of(x.shape(), w.shape(), stride, padding, dilation, 2);
            gy = Inputs.randn(rng, dtype, g.batch(), g.outChannels(), g.outH(), g.outW());
            int rows = g.channels() * g.kernelH() * g.kernelW();
            long twoImages = 2L * rows * g.outPixels() * dtype.itemSize();
            Tolerance tol = dtype == DType.FLOAT32 ? new Tolerance(1e-4, 1e-4, false) : Tolerance.of(1e-11, 1e-11);
            try (NDManager m = Torch.scope()) {
                NDList expected = Torch.callListWithGrad(m, """
                        x = b.double().detach().requires_grad_(True)
                        w = c.double().detach().requires_grad_(True)
                        y = torch.conv2d(x, w, None, [2, 1], [1, 1], [1, 2], 2)
                        go: List[Optional[Tensor]] = [a.double()]
                        return torch.autograd.grad([y], [x, w], go)""", gy, x, w);
                for (long budget : new long[] {1, twoImages, Long.MAX_VALUE}) {
                    Tensor gradInput = Tensor.allocate(dtype, x.shape()), gradWeight = Tensor.allocate(dtype, w.shape());
                    Tensor gradBias = Tensor.allocate(dtype, g.outChannels());
                    Conv2dBackward.backward(gy, x, w, g, gradInput, gradWeight, gradBias, budget);
                    assertClose(List.of(gradInput, gradWeight), expected, dtype + " budget " + budget + " bytes", tol);
                    assertClose(gradBias, gy.sum(new int[] {0, 2, 3}, false), dtype + " bias, budget " + budget, tol);
                }
            }
        }
    }

    @Test
    void aStrideOneInputGradientIsTheConvolutionWithTheFlippedWeight() {
        // 3x3, padding 1: the transposed convolution pads 1 and gives back the input's 28x28
        Conv2dGeometry g = Conv2dGeometry.of(new int[] {4, 64, 28, 28}, new int[] {32, 64, 3, 3}, new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1);
        Conv2dGeometry t = Conv2dBackward.directGradInput(g);
        org.junit.jupiter.api.Assertions.assertEquals(new Conv2dGeometry(4, 32, 28, 28, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 28, 28), t);
        // dilation 2, padding (0, 3): padding 4 and 1
        Conv2dGeometry d = Conv2dGeometry.of(new int[] {1, 4, 20, 20}, new int[] {6, 2, 3, 3}, new int[] {1, 1}, new int[] {0, 3}, new int[] {2, 2}, 2);
        Conv2dGeometry dt = Conv2dBackward.directGradInput(d);
        org.junit.jupiter.api.Assertions.assertEquals(4, dt.padH());
        org.junit.jupiter.api.Assertions.assertEquals(1, dt.padW());
        org.junit.jupiter.api.Assertions.assertEquals(20, dt.outH());
        org.junit.jupiter.api.Assertions.assertEquals(20, dt.outW());
        org.junit.jupiter.api.Assertions.assertNull(Conv2dBackward.directGradInput(Conv2dGeometry.of(new int[] {1, 4, 9, 9}, new int[] {4, 4, 3, 3}, new int[] {2, 2}, new int[] {1, 1}, new int[] {1, 1}, 1)), "stride 2");
        org.junit.jupiter.api.Assertions.assertNull(Conv2dBackward.directGradInput(Conv2dGeometry.of(new int[] {1, 4, 9, 9}, new int[] {4, 4, 3, 3}, new int[] {1, 1}, new int[] {3, 3}, new int[] {1, 1}, 1)), "padding past kernel-1");
        // the flipped weight: w'[c, o, i, j] = w[o, c, 2-i, 2-j] in each group
        Tensor w = Tensor.arange(6 * 2 * 9).to(DType.FLOAT32).reshape(6, 2, 3, 3);
        Tensor f = Conv2dBackward.flippedWeight(w, d);
        org.junit.jupiter.api.Assertions.assertArrayEquals(new int[] {4, 3, 3, 3}, f.shape());
        for (int group = 0; group < 2; group++)
            for (int o = 0; o < 3; o++)
                for (int c = 0; c < 2; c++)
                    for (int i = 0; i < 3; i++)
                        for (int j = 0; j < 3; j++)
                            org.junit.jupiter.api.Assertions.assertEquals(w.get(group * 3 + o, c, 2 - i, 2 - j), f.get(group * 2 + c, o, i, j));
    }
}
