package dev.ember.autograd;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CustomFunction, PyTorch's torch.autograd.Function: its backward used by backward() and
 * Autograd.grad, checked by gradcheck in float64; zeros for an unused output's gradient;
 * needsInputGrad; non-differentiable outputs; PyTorch's errors for a wrong number or shape of
 * gradients and for a saved input changed in place; under Ember.compile traced into the graph,
 * its backward still the custom one.
 */
public class CustomFunctionTest {
    @AfterEach
    void reset() { Ember.reset(); }

    /** x·y with a backward written by hand; records which gradients were wanted. */
    static final class Mul extends CustomFunction {
        boolean[] wanted;

        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) {
            ctx.saveForBackward(in[0], in[1]);
            wanted = new boolean[] {ctx.needsInputGrad(0), ctx.needsInputGrad(1)};
            return new Tensor[] {in[0].mul(in[1])};
        }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) {
            Tensor x = ctx.savedTensors().get(0), y = ctx.savedTensors().get(1);
            return new Tensor[] {ctx.needsInputGrad(0) ? grad[0].mul(y) : null, ctx.needsInputGrad(1) ? grad[0].mul(x) : null};
        }
    }

    /** exp whose gradient is clipped: a backward that differs from the formula's derivative (dynamo.CustomFunctionCaptureTest compiles it). */
    public static final class ClippedExp extends CustomFunction {
        final double limit;

        public ClippedExp(double limit) { this.limit = limit; }

        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) {
            Tensor y = in[0].exp();
            ctx.saveForBackward(y);
            ctx.put("limit", limit);
            return new Tensor[] {y};
        }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) {
            double l = ctx.get("limit");
            return new Tensor[] {grad[0].mul(ctx.savedTensors().get(0)).clamp(-l, l)};
        }
    }

    /** Two outputs: the sorted values (differentiable) and their positions (not). */
    static final class SortWithPositions extends CustomFunction {
        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) {
            List<Tensor> s = in[0].sort(-1, false);
            ctx.saveForBackward(s.get(1));
            ctx.markNonDifferentiable(s.get(1));
            ctx.put("shape", in[0].shape());
            return new Tensor[] {s.get(0), s.get(1)};
        }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) {
            int[] shape = ctx.get("shape");
            return new Tensor[] {Tensor.zeros(grad[0].dtype(), shape).scatter(-1, ctx.savedTensors().get(0), grad[0])};
        }
    }

    @Test
    void itsBackwardIsUsedAndPassesGradcheck() {
        Tensor x = Tensor.randn(3, 4).to(DType.FLOAT64).requiresGrad(true), y = Tensor.randn(3, 4).to(DType.FLOAT64).requiresGrad(true);
        Tensor out = new Mul().apply(x, y);
        assertEquals("MulBackward", out.gradFn().name());
        out.sum().backward();
        assertArrayEquals(y.toDoubleArray(), x.grad().toDoubleArray(), 0);
        assertArrayEquals(x.toDoubleArray(), y.grad().toDoubleArray(), 0);
        GradCheck.check(in -> new Mul().apply(in.get(0), in.get(1)).sum(), x.detach().requiresGrad(true), y.detach().requiresGrad(true));

        Tensor big = Tensor.of(new double[] {-1, 0, 3}, 3).requiresGrad(true);
        Tensor g = Autograd.grad(new ClippedExp(2.0).apply(big).sum(), big).getFirst();
        assertArrayEquals(new double[] {Math.exp(-1), 1, 2}, g.toDoubleArray(), 1e-15, "the custom backward, not exp's derivative");
    }

    @Test
    void needsInputGradUnusedOutputsAndNonDifferentiableOutputs() {
        Mul mul = new Mul();
        Tensor x = Tensor.randn(2).requiresGrad(true), c = Tensor.randn(2);
        mul.apply(x, c).sum().backward();
        assertArrayEquals(new boolean[] {true, false}, mul.wanted);
        try (var unused = GradMode.noGrad()) {
            Tensor r = mul.apply(x, c);
            assertArrayEquals(new boolean[] {false, false}, mul.wanted);
            assertNull(r.gradFn());
        }
        Tensor v = Tensor.of(new double[] {3, 1, 2}, 3).requiresGrad(true);
        List<Tensor> out = new SortWithPositions().applyAll(v);
        assertTrue(out.get(0).requiresGrad());
        assertFalse(out.get(1).requiresGrad(), "marked non-differentiable");
        out.get(0).mul(Tensor.of(new double[] {10, 20, 30}, 3)).sum().backward();
        assertArrayEquals(new double[] {30, 10, 20}, v.grad().toDoubleArray(), 0);
    }

    static final class WrongCount extends CustomFunction {
        protected Tensor[] forward(Context ctx, Tensor... in) { return new Tensor[] {in[0].mul(2)}; }

        protected Tensor[] backward(Context ctx, Tensor... grad) { return new Tensor[] {grad[0], grad[0]}; }
    }

    static final class WrongShape extends CustomFunction {
        protected Tensor[] forward(Context ctx, Tensor... in) { return new Tensor[] {in[0].sum()}; }

        protected Tensor[] backward(Context ctx, Tensor... grad) { return new Tensor[] {Tensor.ones(5)}; }
    }

    @Test
    void badBackwardsAndInPlaceChangesGetPyTorchsErrors() {
        Tensor x = Tensor.randn(3).requiresGrad(true);
        assertEquals("function WrongCountBackward returned an incorrect number of gradients (expected 1, got 2)",
                assertThrows(IllegalStateException.class, () -> new WrongCount().apply(x).sum().backward()).getMessage());
        assertEquals("Function WrongShapeBackward returned an invalid gradient at index 0 - got [5] but expected shape compatible with [3]",
                assertThrows(IllegalStateException.class, () -> new WrongShape().apply(x).backward()).getMessage());
        Tensor a = Tensor.randn(3).requiresGrad(true), b = Tensor.randn(3);
        Tensor p = new Mul().apply(a, b);
        b.add_(1.0);
        assertTrue(assertThrows(IllegalStateException.class, () -> p.sum().backward()).getMessage().contains("modified by an inplace operation"));
    }

    /** tanh whose backward reads its saved output (fuzzer seed 931048): a caller's in-place write of that output must refuse backward. */
    static final class SavesItsOutput extends CustomFunction {
        protected Tensor[] forward(Context ctx, Tensor... in) {
            Tensor y = in[0].tanh();
            ctx.saveForBackward(y);
            return new Tensor[] {y};
        }

        protected Tensor[] backward(Context ctx, Tensor... grad) {
            return new Tensor[] {grad[0].mul(ctx.savedTensors().get(0).square().neg().add(1.0))};
        }
    }

    @Test
    void aSavedOutputChangedInPlaceRefusesBackwardAsPyTorchDoes() {
        Tensor x = Tensor.randn(4, 4).requiresGrad(true);
        Tensor y = new SavesItsOutput().apply(x);
        y.mul_(0.5);   // PyTorch: "one of the variables needed for gradient computation has been modified by an inplace operation"
        String message = assertThrows(IllegalStateException.class, () -> y.sum().backward()).getMessage();
        assertTrue(message.startsWith("one of the variables needed for gradient computation has been modified by an inplace operation: [f32[4, 4]], "
                + "which is output 0 of SavesItsOutputBackward, is at version 1; expected version 0 instead."), message);
        assertNull(x.grad(), "nothing half-updated");
        // untouched, the same function trains: the gradient from the saved output
        Tensor x2 = Tensor.randn(4, 4).requiresGrad(true);
        new SavesItsOutput().apply(x2).sum().backward();
        assertTrue(x2.grad().allclose(x2.detach().tanh().square().neg().add(1.0)), "1 - tanh² from the saved output");
    }

    static Tensor model(Tensor x, Tensor w) {
        Tensor h = x.matmul(w).tanh();
        return new ClippedExp(0.5).apply(h).sum();
    }

    @Test
    void underCompileItIsTracedWithItsOwnBackward() {
        Tensor x = Tensor.randn(4, 3);
        Tensor w1 = Tensor.randn(3, 2).requiresGrad(true), w2 = w1.detach().requiresGrad(true);
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(CustomFunctionTest::model);
        Tensor want = model(x, w1), got = f.apply(x, w2);
        assertEquals(want.item(), got.item(), 1e-6);
        want.backward();
        got.backward();
        assertArrayEquals(w1.grad().toDoubleArray(), w2.grad().toDoubleArray(), 1e-6);
        var e = Ember.explain((Fn2<Tensor, Tensor, Tensor>) CustomFunctionTest::model).with(x, w2);
        assertEquals(0, e.graphBreakCount(), e.toString());   // traced into the graph (dynamo.CustomFunctionCaptureTest has the rest)
    }
}
