package dev.ember.ops;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The views' *_copy forms, _softmax_backward_data and _safe_softmax against libtorch; compiled as eager. */
class ViewCopyAndSoftmaxInternalsTest {
    private static final Random RNG = new Random(31);

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    @Test
    void copyFormsMatchLibtorchAndShareNoMemory() {
        Tensor x = Inputs.randn(RNG, DType.FLOAT32, 3, 4, 5), m = Inputs.randn(RNG, DType.FLOAT32, 4, 4);
        Object[][] cases = {
                {ViewCopyOps.VIEW_COPY.callTensor(x, new int[] {12, 5}), "torch.view_copy(a, [12, 5])", x},
                {ViewCopyOps.PERMUTE_COPY.callTensor(x, new int[] {2, 0, 1}), "torch.permute_copy(a, [2, 0, 1])", x},
                {ViewCopyOps.EXPAND_COPY.callTensor(x.narrow(1, 0, 1), new int[] {2, 3, 6, 5}, false), "torch.expand_copy(a.narrow(1, 0, 1), [2, 3, 6, 5])", x},
                {ViewCopyOps.TRANSPOSE_COPY.callTensor(x, 0L, 2L), "torch.transpose_copy(a, 0, 2)", x},
                {ViewCopyOps.T_COPY.callTensor(m), "torch.t_copy(a)", m},
                {ViewCopyOps.SQUEEZE_COPY.callTensor(x.unsqueeze(1)), "torch.squeeze_copy(a.unsqueeze(1))", x},
                {ViewCopyOps.SQUEEZE_COPY_DIM.callTensor(x.unsqueeze(3), 3L), "torch.squeeze_copy(a.unsqueeze(3), 3)", x},
                {ViewCopyOps.UNSQUEEZE_COPY.callTensor(x, -1L), "torch.unsqueeze_copy(a, -1)", x},
                {ViewCopyOps.SELECT_COPY.callTensor(x, 1L, -2L), "torch.select_copy(a, 1, -2)", x},
                {ViewCopyOps.SLICE_COPY.callTensor(x, 2L, 1L, null, 2L), "torch.slice_copy(a, 2, 1, None, 2)", x},
                {ViewCopyOps.NARROW_COPY.callTensor(x, 1L, 1L, 2L), "torch.narrow_copy(a, 1, 1, 2)", x},
                {ViewCopyOps.DIAGONAL_COPY.callTensor(x, 1L, 1L, 2L), "torch.diagonal_copy(a, 1, 1, 2)", x},
                {ViewCopyOps.DETACH_COPY.callTensor(x), "torch.detach_copy(a)", x},
                {ViewCopyOps.UNFOLD_COPY.callTensor(x, 2L, 2L, 2L), "torch.unfold_copy(a, 2, 2, 2)", x},
                {ViewCopyOps.AS_STRIDED_COPY.callTensor(x, new int[] {3, 3}, new int[] {1, 2}, 4L), "torch.as_strided_copy(a, [3, 3], [1, 2], 4)", x},
                {ViewCopyOps.ALIAS_COPY.callTensor(x), "torch.alias_copy(a)", x},
        };
        for (Object[] c : cases) {
            Tensor got = (Tensor) c[0];
            assertClose(got, Torch.call((String) c[1], c[2]), (String) c[1]);
            assertNotSame(x.storage(), got.storage(), c[1] + " shares no memory");
            assertFalse(got.isView(), c[1] + " is no view");
        }
    }

    @Test
    void softmaxBackwardDataIsSoftmaxsGradientAsLibtorchComputesIt() {
        for (int dim : new int[] {0, 1, -1}) {
            Tensor x = Inputs.randn(RNG, DType.FLOAT64, 3, 5), grad = Inputs.randn(RNG, DType.FLOAT64, 3, 5);
            Tensor y = x.softmax(dim);
            assertClose(SoftmaxInternalOps.SOFTMAX_BACKWARD_DATA.callTensor(grad, y, (long) dim, DType.FLOAT64),
                    Torch.call("torch._softmax_backward_data(a, b, " + dim + ", torch.float64)", grad, y), "dim " + dim);
        }
    }

    @Test
    void safeSoftmaxGivesZerosForRowsThatAreAllMinusInfinity() {
        double inf = Double.NEGATIVE_INFINITY;
        Tensor x = Tensor.of(new double[] {1, 2, 3, inf, inf, inf, inf, 0, 1}, 3, 3).to(DType.FLOAT32);
        for (int dim : new int[] {0, 1}) {
            assertClose(SoftmaxInternalOps.SAFE_SOFTMAX.callTensor(x, (long) dim, null), Torch.call("torch._safe_softmax(a, " + dim + ")", x), "dim " + dim);
        }
        assertClose(SoftmaxInternalOps.SAFE_SOFTMAX.callTensor(x, 1L, DType.FLOAT64), Torch.call("torch._safe_softmax(a, 1, dtype=torch.float64)", x), "dtype");
        assertEquals(0.0, SoftmaxInternalOps.SAFE_SOFTMAX.callTensor(x, 1L, null).select(0, 1).abs().sum().item(), 0.0);
    }

    static Tensor copiesAndSafeSoftmax(Tensor x, Tensor y) {
        Tensor t = ViewCopyOps.TRANSPOSE_COPY.callTensor(x, 0L, 1L).add(ViewCopyOps.UNFOLD_COPY.callTensor(y, 0L, 4L, 1L).sum(-1));
        return SoftmaxInternalOps.SAFE_SOFTMAX.callTensor(t.maskedFill(t.gt(1.5), Double.NEGATIVE_INFINITY), 1L, null);
    }

    @Test
    void compiledCopiesAndSafeSoftmaxAreEagers() {
        Tensor x = Inputs.randn(RNG, DType.FLOAT32, 6, 4), y = Inputs.randn(RNG, DType.FLOAT32, 7, 6);
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(ViewCopyAndSoftmaxInternalsTest::copiesAndSafeSoftmax, Options.backend("inductor").fullgraph(true));
        Tensor want = copiesAndSafeSoftmax(x, y);
        assertClose(f.apply(x, y), want, "inductor");
        assertTrue(want.isfinite().all().item() != 0);
    }
}
