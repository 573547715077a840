package dev.ember.autograd;

import dev.ember.Ember;
import dev.ember.aot.DecomposePass;
import dev.ember.ops.ConvOps;
import dev.ember.ops.LossOps;
import dev.ember.ops.NnOps;
import dev.ember.ops.OpOverload;
import dev.ember.ops.PointwiseOps;
import dev.ember.ops.ScatterOps;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ops added for derivatives (gelu_backward, native_dropout, the pooling, convolution and loss
 * backwards) beyond what gradcheck sees: random streams, and ATen-style errors for bad input.
 */
class DerivativeOpsTest {

    private static void assertMessage(Throwable e, String start) {
        assertTrue(e.getMessage().startsWith(start), "message: " + e.getMessage());
    }

    @Test
    void dropoutDropsTheSameUnderGradAsWithout() {
        Tensor x = Tensor.randn(new Generator(3), 64, 33);
        Generator.global().manualSeed(5);
        Tensor plain;
        try (var unused = Ember.noGrad()) {
            plain = PointwiseOps.DROPOUT.callTensor(x, 0.3, true);
        }
        Tensor leaf = x.detach().requiresGrad(true);
        Generator.global().manualSeed(5);
        Tensor recorded = PointwiseOps.DROPOUT.callTensor(leaf, 0.3, true);
        assertArrayEquals(plain.toFloatArray(), recorded.toFloatArray());
        assertTrue(recorded.gradFn().name().equals("NativeDropoutBackward0"), recorded.gradFn().name());
        recorded.sum().backward();
        float[] g = leaf.grad().toFloatArray(), y = plain.toFloatArray();
        for (int i = 0; i < g.length; i++) assertTrue(g[i] == (y[i] == 0 ? 0f : 1f / 0.7f), "element " + i);
        // and the generator moved on as far: the next draw agrees too
        Tensor after = Tensor.rand(8);
        Generator.global().manualSeed(5);
        try (var unused = Ember.noGrad()) {
            PointwiseOps.DROPOUT.callTensor(x, 0.3, true);
        }
        assertArrayEquals(after.toFloatArray(), Tensor.rand(8).toFloatArray());
    }

    @Test
    void nativeDropoutMaskAndOutputAgreeWithDropout() {
        Tensor x = Tensor.randn(new Generator(4), 5, 7).to(DType.FLOAT64);
        Generator.global().manualSeed(9);
        List<Tensor> out = PointwiseOps.NATIVE_DROPOUT.callList(x, 0.5, true);
        Generator.global().manualSeed(9);
        Tensor plain = PointwiseOps.DROPOUT.callTensor(x, 0.5, true);
        assertArrayEquals(plain.toDoubleArray(), out.get(0).toDoubleArray());
        assertArrayEquals(x.mul(out.get(1)).mul(2.0).toDoubleArray(), out.get(0).toDoubleArray());
        List<Tensor> eval = PointwiseOps.NATIVE_DROPOUT.callList(x, 0.5, false);
        assertArrayEquals(x.toDoubleArray(), eval.get(0).toDoubleArray());
        for (boolean kept : eval.get(1).toBooleanArray()) assertTrue(kept);
    }

    @Test
    void inferenceGraphsKeepTheOpsDecomposedOnlyForAutogradWhole() {
        for (OpOverload op : List.of(NnOps.SCALED_DOT_PRODUCT_ATTENTION, PointwiseOps.DROPOUT, ConvOps.MAX_POOL2D, LossOps.CROSS_ENTROPY_LOSS,
                LossOps.NLL_LOSS, LossOps.NLL_LOSS_ND)) {
            assertTrue(op.decomposition() != null && DecomposePass.decompositionOf(op) == null, op.name());
        }
    }

    @Test
    void newOpsRefuseBadInputNamingTheOpAndArgument() {
        Tensor f = Tensor.randn(2, 3);
        assertMessage(assertThrows(IllegalArgumentException.class, () -> PointwiseOps.GELU_BACKWARD.call(f, f, "exact")),
                "gelu_backward: approximate argument must be either none or tanh");
        assertMessage(assertThrows(IllegalArgumentException.class, () -> PointwiseOps.GELU_BACKWARD.call(Tensor.ofLongs(1, 2), Tensor.ofLongs(1, 2))),
                "gelu_backward: \"GeluBackwardKernelImpl\" not implemented for 'Long'");
        assertMessage(assertThrows(IllegalArgumentException.class, () -> PointwiseOps.NATIVE_DROPOUT_BACKWARD.call(f, f, 2.0)),
                "native_dropout_backward: Mask should be Bool Scalar Type");
        assertMessage(assertThrows(IllegalArgumentException.class, () -> PointwiseOps.NATIVE_DROPOUT.call(f, 1.5, true)),
                "native_dropout: dropout probability has to be between 0 and 1, but got 1.5");
        Tensor img = Tensor.randn(1, 2, 4, 4);
        Tensor idx = ConvOps.MAX_POOL2D_WITH_INDICES.callList(img, new int[] {2}).get(1);
        assertMessage(assertThrows(IllegalArgumentException.class,
                        () -> ConvOps.MAX_POOL2D_WITH_INDICES_BACKWARD.call(Tensor.randn(1, 2, 3, 2), img, new int[] {2}, new int[] {2}, new int[] {0}, new int[] {1}, false, idx)),
                "max_pool2d_with_indices_backward: expected grad_output of size [1, 2, 2, 2] (the pooled output's), but got [1, 2, 3, 2]");
        assertMessage(assertThrows(IllegalArgumentException.class,
                        () -> ConvOps.MAX_POOL2D_WITH_INDICES_BACKWARD.call(Tensor.randn(1, 2, 2, 2), img, new int[] {2}, new int[] {2}, new int[] {0}, new int[] {1}, false, idx.to(DType.INT32))),
                "max_pool2d_with_indices_backward: expected indices to have dtype Long, but got Int");
        assertMessage(assertThrows(IllegalArgumentException.class,
                        () -> ConvOps.AVG_POOL2D_BACKWARD.call(Tensor.randn(1, 2, 2, 2).to(DType.FLOAT64), img, new int[] {2}, new int[] {2}, new int[] {0}, false, true, null)),
                "avg_pool2d_backward: expected grad_output to have dtype Float, but got Double");
        assertMessage(assertThrows(IllegalArgumentException.class, () -> ConvOps.ADAPTIVE_AVG_POOL2D_BACKWARD.call(Tensor.randn(2, 2), Tensor.randn(4, 4))),
                "_adaptive_avg_pool2d_backward: Expected 3D or 4D tensor, but got [4, 4]");
        Tensor in = Tensor.randn(1, 2, 5, 5), w = Tensor.randn(3, 2, 3, 3);
        boolean[] all = {true, true, true};
        assertMessage(assertThrows(IllegalArgumentException.class, () -> ConvOps.CONVOLUTION_BACKWARD.call(Tensor.randn(1, 3, 5, 5), in, w, new int[] {3},
                        new int[] {1}, new int[] {0}, new int[] {1}, false, new int[] {0}, 1, all)),
                "convolution_backward: expected grad_output of size [1, 3, 3, 3] (the convolution's output), but got [1, 3, 5, 5]");
        assertMessage(assertThrows(IllegalArgumentException.class, () -> ConvOps.CONVOLUTION_BACKWARD.call(Tensor.randn(1, 3, 3, 3), in, w, new int[] {2},
                        new int[] {1}, new int[] {0}, new int[] {1}, false, new int[] {0}, 1, all)),
                "convolution_backward: expected bias_sizes to be [3] (the weight's output channels), but got [2]");
        List<Tensor> some = ConvOps.CONVOLUTION_BACKWARD.callList(Tensor.randn(1, 3, 3, 3), in, w, null,
                new int[] {1}, new int[] {0}, new int[] {1}, false, new int[] {0}, 1, new boolean[] {false, true, false});
        assertTrue(some.get(0).numel() == 0 && some.get(1).shape().length == 4 && some.get(2).numel() == 0);
        Tensor x = Tensor.randn(3, 4).requiresGrad(true), src = Tensor.randn(3, 2).requiresGrad(true);
        Tensor index = Tensor.ofLongs(0, 1, 1, 2, 3, 3).reshape(3, 2);
        Tensor y = ScatterOps.SCATTER_REDUCE.callTensor(x, 1, index, src, "multiply");
        assertMessage(assertThrows(UnsupportedOperationException.class, () -> y.sum().backward()),
                "the derivative for 'aten.scatter.reduce' with reduce='multiply' is not implemented for src");
    }
}
