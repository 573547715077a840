package dev.ember.nn;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * torch.nn.init's orthogonal_, dirac_ and sparse_: what each promises (orthonormal rows or columns
 * times the gain, a convolution that passes its input through, a fixed number of zeros per column),
 * checked with libtorch's matmul and conv; the draws random and in place outside autograd; PyTorch's
 * errors.
 */
class InitOrthogonalDiracSparseTest {

    @Test
    void orthogonalGivesOrthonormalRowsOrColumnsTimesTheGain() {
        Tensor.manualSeed(8);
        for (int[] shape : new int[][] {{6, 4}, {4, 6}, {5, 2, 3}, {5, 5}}) {
            Parameter w = new Parameter(Tensor.zeros(shape).to(DType.FLOAT64));
            assertSame(w, Init.orthogonal_(w, 2.0));
            assertNull(w.gradFn(), "written outside autograd");
            Tensor flat = w.detach().reshape(shape[0], -1);
            boolean tall = flat.size(0) >= flat.size(1);
            // QᵀQ (tall) or QQᵀ (wide) is gain²·I, computed by libtorch
            Tensor gram = Torch.fromNd(Torch.call(tall ? "torch.matmul(a.t(), a)" : "torch.matmul(a, a.t())", flat));
            int n = Math.min(flat.size(0), flat.size(1));
            assertClose(gram, Torch.call("torch.eye(" + n + ", dtype=torch.float64) * 4.0"), "orthogonal_ " + java.util.Arrays.toString(shape));
        }
        Parameter a = new Parameter(Tensor.zeros(8, 8)), b = new Parameter(Tensor.zeros(8, 8));
        Init.orthogonal_(a);
        Init.orthogonal_(b);
        assertTrue(a.sub(b).abs().max().item() > 0.1, "two draws differ");
        // uniform over orthogonal matrices: entries of mean 0 and variance 1/n
        Parameter big = new Parameter(Tensor.zeros(200, 200));
        Init.orthogonal_(big);
        assertEquals(0.0, big.mean().item(), 0.005);
        assertEquals(1 / Math.sqrt(200), big.std().item(), 0.002);
        assertEquals("Only tensors with 2 or more dimensions are supported",
                assertThrows(IllegalArgumentException.class, () -> Init.orthogonal_(Tensor.zeros(3))).getMessage());
    }

    @Test
    void diracMakesConvolutionsPassTheirInputThrough() {
        Tensor x = Tensor.randn(2, 3, 5, 6);
        Parameter w = new Parameter(Tensor.randn(3, 3, 3, 3));
        Init.dirac_(w);
        assertClose(Torch.fromNd(Torch.call("torch.conv2d(a, b, None, [1, 1], [1, 1])", x, w.detach())), Torch.toNd(x), "conv2d with dirac_ weights");
        // two groups of output channels, each copying the two input channels
        Parameter grouped = new Parameter(Tensor.randn(4, 2, 3));
        Init.dirac_(grouped, 2);
        Tensor seq = Tensor.randn(2, 2, 7);
        assertClose(Torch.fromNd(Torch.call("torch.conv1d(a, b, None, [1], [1])", seq, grouped.detach())), Torch.call("torch.cat([a, a], 1)", seq), "dirac_ groups=2");
        // more output than input channels: the extra ones stay zero
        Parameter wide = new Parameter(Tensor.randn(3, 2, 1, 3, 3));
        Init.dirac_(wide);
        Tensor vol = Tensor.randn(1, 2, 3, 4, 4);
        assertClose(Torch.fromNd(Torch.call("torch.conv3d(a, b, None, [1, 1, 1], [0, 1, 1])", vol, wide.detach())),
                Torch.call("torch.cat([a, torch.zeros(1, 1, 3, 4, 4)], 1)", vol), "dirac_ 5-d");
        assertEquals("Only tensors with 3, 4, or 5 dimensions are supported", assertThrows(IllegalArgumentException.class, () -> Init.dirac_(Tensor.zeros(3, 3))).getMessage());
        assertEquals("dim 0 must be divisible by groups", assertThrows(IllegalArgumentException.class, () -> Init.dirac_(Tensor.zeros(3, 3, 3), 2)).getMessage());
    }

    @Test
    void sparseZeroesAFixedShareOfEachColumn() {
        Tensor.manualSeed(9);
        Parameter w = new Parameter(Tensor.zeros(100, 60));
        Init.sparse_(w, 0.25, 0.5);
        double[] v = w.detach().toDoubleArray();
        double sumSquares = 0;
        int nonZero = 0;
        for (int c = 0; c < 60; c++) {
            int zeros = 0;
            for (int r = 0; r < 100; r++) {
                double e = v[r * 60 + c];
                if (e == 0) zeros++;
                else {
                    sumSquares += e * e;
                    nonZero++;
                }
            }
            assertEquals(25, zeros, "zeros in column " + c);
        }
        assertEquals(0.5, Math.sqrt(sumSquares / nonZero), 0.02, "the others normal with std");
        assertEquals("Only tensors with 2 dimensions are supported", assertThrows(IllegalArgumentException.class, () -> Init.sparse_(Tensor.zeros(3, 3, 3), 0.1)).getMessage());
    }
}
