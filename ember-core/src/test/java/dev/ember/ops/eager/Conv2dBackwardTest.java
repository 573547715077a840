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
}
