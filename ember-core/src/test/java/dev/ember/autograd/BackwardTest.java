package dev.ember.autograd;

import dev.ember.Ember;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Eager autograd's behaviour as PyTorch users know it: leaves, accumulation, retainGraph, grad mode, and the errors. */
class BackwardTest {

    private static Tensor leaf(double... v) { return Tensor.of(v, v.length).requiresGrad(true); }

    @Test
    void gradientsOfAProductAndSumReachTheLeaves() {
        Tensor x = leaf(1, 2, 3), w = leaf(4, 5, 6);
        Tensor y = x.mul(w).sum();
        assertTrue(y.requiresGrad());
        assertEquals("SumBackward0", y.gradFn().name());
        assertFalse(y.isLeaf());
        y.backward();
        assertArrayEquals(new double[] {4, 5, 6}, x.grad().toDoubleArray());
        assertArrayEquals(new double[] {1, 2, 3}, w.grad().toDoubleArray());
    }

    @Test
    void gradientsAccumulateAcrossBackwardCallsAndBroadcastIsSummed() {
        Tensor x = Tensor.of(new double[] {1, 2, 3, 4, 5, 6}, 2, 3);
        Tensor b = leaf(1, 1, 1);
        x.add(b).sum().backward();
        assertArrayEquals(new double[] {2, 2, 2}, b.grad().toDoubleArray());
        x.add(b).mul(2.0).sum().backward();
        assertArrayEquals(new double[] {6, 6, 6}, b.grad().toDoubleArray());
        assertNull(x.grad(), "x does not require grad");
    }

    @Test
    void nonScalarBackwardTakesTheGradientOfWhatItFeeds() {
        Tensor x = leaf(1, 2, 3);
        Tensor y = x.mul(x);
        y.backward(Tensor.of(new double[] {1, 0.5, 2}, 3));
        assertArrayEquals(new double[] {2, 2, 12}, x.grad().toDoubleArray());
        var e = assertThrows(IllegalArgumentException.class, () -> x.mul(x).backward());
        assertTrue(e.getMessage().startsWith("grad can be implicitly created only for scalar outputs"), e.getMessage());
        var shape = assertThrows(IllegalArgumentException.class, () -> x.mul(x).backward(Tensor.ones(DType.FLOAT64, 2)));
        assertTrue(shape.getMessage().startsWith("Mismatch in shape: grad_output[0] has a shape of [2] and output[0] has a shape of [3]"), shape.getMessage());
    }

    @Test
    void backwardTwiceNeedsRetainGraph() {
        Tensor x = leaf(0.5, 1.5);
        Tensor y = x.exp().sum();
        y.backward(null, true);
        y.backward();
        assertArrayEquals(new double[] {2 * Math.exp(0.5), 2 * Math.exp(1.5)}, x.grad().toDoubleArray(), 1e-12);
        var e = assertThrows(IllegalStateException.class, y::backward);
        assertTrue(e.getMessage().startsWith("Trying to backward through the graph a second time"), e.getMessage());
    }

    @Test
    void backwardOnATensorWithoutGradIsRefused() {
        var e = assertThrows(IllegalStateException.class, () -> Tensor.of(new double[] {1}, 1).sum().backward());
        assertTrue(e.getMessage().startsWith("element 0 of tensors does not require grad and does not have a grad_fn"), e.getMessage());
    }

    @Test
    void anInPlaceChangeOfASavedTensorIsRefusedAndNothingIsHalfUpdated() {
        Tensor x = leaf(1, 2), w = leaf(3, 4);
        Tensor h = x.mul(1.0);              // a non-leaf, saved by the mul below
        Tensor y = h.mul(w).sum();
        h.add_(1.0);
        var e = assertThrows(IllegalStateException.class, y::backward);
        assertTrue(e.getMessage().startsWith("one of the variables needed for gradient computation has been modified by an inplace operation: [f64[2]], "
                + "which is output 0 of AddBackward0, is at version 1; expected version 0 instead."), e.getMessage());
        assertNull(w.grad(), "no leaf changes when backward fails");
        assertNull(x.grad());
    }

    @Test
    void anInPlaceOpsOwnOutputIsWhatItSavesSoALaterWriteToItIsRefused() {
        Tensor x = leaf(0.5, -1.5);
        Tensor h = x.mul(1.0);
        h.tanh_();                          // tanh's derivative reads its output: h, at version 1
        Tensor y = h.mul(3.0).sum();
        h.add_(1.0);                        // PyTorch refuses the backward here; the old value is gone
        var e = assertThrows(IllegalStateException.class, y::backward);
        assertTrue(e.getMessage().startsWith("one of the variables needed for gradient computation has been modified by an inplace operation: [f64[2]], "
                + "which is output 0 of AddBackward0, is at version 2; expected version 1 instead."), e.getMessage());
        assertNull(x.grad());

        Tensor z = leaf(0.5, -1.5);
        Tensor g = z.mul(1.0);
        g.tanh_();
        g.mul(3.0).sum().backward();        // unwritten, the same program trains
        assertArrayEquals(new double[] {3 * (1 - Math.pow(Math.tanh(0.5), 2)), 3 * (1 - Math.pow(Math.tanh(-1.5), 2))}, z.grad().toDoubleArray(), 1e-12);
    }

    @Test
    void theResultOfAnOpThatIsNoViewOpIsNoViewThoughItsKernelEndsInOne() {
        // embedding's kernel reshapes its own temporary; the result is still a fresh tensor (seed 130865: refused as a view)
        Tensor w = leaf(1, 2, 3, 4, 5, 6).view(3, 2).detach().requiresGrad(true);
        Tensor e = dev.ember.nn.F.embedding(Tensor.of(new long[] {2, 0}, 2), w);
        assertFalse(e.isView(), "embedding's result");
        e.clamp_(-1.0, 5.5);
        e.sum().backward();
        assertArrayEquals(new double[] {1, 1, 0, 0, 1, 0}, w.grad().toDoubleArray(), "6 is clamped to 5.5: no gradient there");
    }

    @Test
    void eachResultOfAnOpReturningSeveralIsNoViewThoughItsKernelEndsInOne() {
        // mode's kernel reshapes its own gather: its values were a view of that temporary, and under recording an in-place
        // write of them was refused as one on a view of a leaf (fuzzer seeds 954323, 956903, 958690); ATen's are fresh tensors
        Tensor x = leaf(1, 5, 3, 7).view(1, 4).detach().requiresGrad(true);
        java.util.List<Tensor> mode = x.mode(0, true);
        assertFalse(mode.get(0).isView(), "mode's values");
        assertFalse(mode.get(1).isView(), "mode's indices");
        mode.get(0).mul_(3.0);
        mode.get(0).sum().backward();
        assertArrayEquals(new double[] {3, 3, 3, 3}, x.grad().toDoubleArray(), "d/dx of 3·x, each slice one element");
        // kthvalue (a composition) ends in a view of its own temporary too
        Tensor y = leaf(4, 2, 6).view(3, 1).detach().requiresGrad(true);
        Tensor second = y.kthvalue(2, 0, false).get(0);
        assertFalse(second.isView(), "kthvalue's values");
        second.add_(1.0);
        second.sum().backward();
        assertArrayEquals(new double[] {1, 0, 0}, y.grad().toDoubleArray(), "the second smallest of 4, 2, 6 is 4, the first");
    }

    @Test
    void inPlaceOpsOnNonLeavesAreRecordedAndLeavesRefuseThem() {
        Tensor x = leaf(1, 2, 3);
        Tensor h = x.mul(2.0);
        h.mul_(h);                          // h = (2x)², d/dx = 8x
        h.sum().backward();
        assertArrayEquals(new double[] {8, 16, 24}, x.grad().toDoubleArray());
        var e = assertThrows(IllegalStateException.class, () -> x.add_(1.0));
        assertTrue(e.getMessage().startsWith("a leaf Variable that requires grad is being used in an in-place operation."), e.getMessage());
        try (var unused = Ember.noGrad()) {
            x.add_(1.0);                    // an optimizer's update
        }
        assertArrayEquals(new double[] {2, 3, 4}, x.toDoubleArray());
    }

    @Test
    void outFormsRefuseTensorsThatRequireGrad() {
        Tensor x = leaf(1, 2), out = Tensor.zeros(DType.FLOAT64, 2);
        var e = assertThrows(IllegalArgumentException.class, () -> x.addOut(x, out));
        assertTrue(e.getMessage().contains("functions with out=... arguments don't support automatic differentiation"), e.getMessage());
    }

    @Test
    void noGradScopesStopRecordingAndRestoreTheMode() {
        Tensor x = leaf(1, 2);
        try (var outer = Ember.noGrad()) {
            assertFalse(GradMode.isEnabled());
            assertFalse(x.mul(2.0).requiresGrad());
            try (var inner = Ember.enableGrad()) {
                assertTrue(x.mul(2.0).requiresGrad());
            }
            assertFalse(GradMode.isEnabled());
        }
        assertTrue(GradMode.isEnabled());
        try (var inference = Ember.inferenceMode()) {
            assertFalse(x.exp().requiresGrad());
            assertTrue(GradMode.isInferenceMode());
        }
    }

    @Test
    void detachMakesALeafThatSharesDataAndStopsGradients() {
        Tensor x = leaf(1, 2);
        Tensor d = x.mul(3.0).detach();
        assertTrue(d.isLeaf());
        assertFalse(d.requiresGrad());
        x.mul(d).sum().backward();
        assertArrayEquals(new double[] {3, 6}, x.grad().toDoubleArray());
    }

    @Test
    void retainGradKeepsANonLeafsGradient() {
        Tensor x = leaf(1, 2);
        Tensor h = x.mul(x).retainGrad();
        Tensor z = x.mul(x);
        h.mul(3.0).add(z).sum().backward();
        assertArrayEquals(new double[] {3, 3}, h.grad().toDoubleArray());
        assertNull(z.grad(), "only retained non-leaves keep their gradient");
    }

    @Test
    void autogradGradReturnsGradientsWithoutTouchingLeaves() {
        Tensor x = leaf(1, 2), w = leaf(3, 4);
        List<Tensor> g = Autograd.grad(x.mul(w).sum(), x);
        assertArrayEquals(new double[] {3, 4}, g.getFirst().toDoubleArray());
        assertNull(x.grad());
        assertNull(w.grad());
        var unused = assertThrows(IllegalStateException.class, () -> Autograd.grad(x.sum(), w));
        assertTrue(unused.getMessage().startsWith("One of the differentiated Tensors appears to not have been used in the graph"), unused.getMessage());
    }

    @Test
    void createGraphGivesSecondDerivatives() {
        Tensor x = leaf(2.0);
        Tensor y = x.mul(x).mul(x);            // x³
        Tensor dy = Autograd.grad(List.of(y.sum()), List.of(x), null, true, true, false).getFirst();   // 3x²
        assertTrue(dy.requiresGrad());
        dy.sum().backward();                   // d/dx 3x² = 6x
        assertArrayEquals(new double[] {12}, x.grad().toDoubleArray(), 1e-12);
    }

    @Test
    void opsWithoutAFormulaRefuseBackwardByName() {
        Tensor x = leaf(1, 2, 3, 4);
        Tensor ok = x.mul(2.0);
        assertSame(ok.gradFn(), ok.gradFn());
        Tensor flat = x.reshape(2, 2);
        flat.sum().backward();
        assertArrayEquals(new double[] {1, 1, 1, 1}, x.grad().toDoubleArray());
    }

    @Test
    void embeddingsPaddingRowGetsNoGradientAndCastsFlowBack() {
        Tensor w = Tensor.ones(DType.FLOAT32, 3, 2).requiresGrad(true);
        Tensor rows = dev.ember.nn.F.embedding(Tensor.of(new long[] {0, 1, 1, 2}, 4), w, 1);
        rows.to(DType.FLOAT64).mul(2.0).sum().backward();
        assertEquals(DType.FLOAT32, w.grad().dtype(), "a gradient takes its input's dtype");
        assertArrayEquals(new float[] {2, 2, 0, 0, 2, 2}, w.grad().toFloatArray());
    }

    @Test
    void nonLeafRequiresGradCannotBeSwitchedOff() {
        Tensor h = leaf(1).mul(2.0);
        var e = assertThrows(IllegalStateException.class, () -> h.requiresGrad(false));
        assertTrue(e.getMessage().startsWith("you can only change requires_grad flags of leaf variables."), e.getMessage());
    }
}
