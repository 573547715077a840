package dev.ember.ops;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code Tensor.data()}, PyTorch's {@code .data}: it shares the elements, does not require grad, and
 * counts its in-place writes in a version counter of its own, so a backward that saved the tensor
 * runs with the new values where a write through {@code detach()} is refused.
 */
class TensorDataTest {

    @AfterEach
    void reset() { Ember.reset(); }

    private static Tensor leaf(double... v) { return Tensor.of(v).requiresGrad(true); }

    @Test
    void dataSharesTheElementsAndDoesNotRequireGrad() {
        Tensor x = leaf(1, -2, 3);
        Tensor d = x.data();
        assertFalse(d.requiresGrad());
        assertTrue(x.requiresGrad(), "x itself is unchanged");
        assertSame(x.storage(), d.storage(), "the same elements, not a copy");
        d.mul_(2.0);
        assertClose(x.detach(), Tensor.of(2.0, -4, 6), "a write through .data() is a write to x");
    }

    @Test
    void aWriteThroughDataIsNotSeenByBackward() {
        Tensor x = leaf(1, -2, 3);
        Tensor y = x.mul(x).sum();                // saves x
        int before = x.version();
        x.data().mul_(2.0);
        assertEquals(before, x.version(), "x's version counter does not count the write");
        y.backward();                             // PyTorch runs it, with the new x
        assertClose(x.grad(), x.detach().mul(2.0), "d(x*x)/dx = 2x, with x as it is now");
    }

    @Test
    void theSameWriteThroughDetachIsRefused() {
        Tensor x = leaf(1, -2, 3);
        Tensor y = x.mul(x).sum();
        x.detach().mul_(2.0);
        var e = assertThrows(IllegalStateException.class, y::backward);
        assertTrue(e.getMessage().startsWith("one of the variables needed for gradient computation has been modified by an inplace operation"), e.getMessage());
    }

    @Test
    void viewsOfDataShareItsOwnCounter() {
        Tensor x = Tensor.of(new double[] {1, 2, 3, 4}, 2, 2).requiresGrad(true);
        Tensor y = x.tanh().sum();                // saves tanh(x), not x
        Tensor z = x.exp().sum();                 // saves exp(x)
        Tensor d = x.data();
        d.view(4).add_(1.0);
        d.t().mul_(3.0);
        assertEquals(2, d.version(), "both writes through views of d count in d's counter");
        assertEquals(0, x.version());
        y.backward();
        z.backward();
        assertClose(x.detach(), Tensor.of(new double[] {6, 9, 12, 15}, 2, 2), "(x + 1) * 3");
    }

    @Test
    void anOptimizerStyleUpdateThroughDataLeavesTheGraphUsable() {
        Tensor w = leaf(0.5, -0.25);
        Tensor loss = w.mul(w).sum();
        loss.backward(null, true);                 // keep the graph
        w.data().sub_(w.grad().mul(0.1));         // the classic manual SGD step
        w.grad().zero_();
        loss.backward();                           // the saved w is at its new values, and nobody refuses
        assertClose(w.grad(), w.detach().mul(2.0), "the second backward sees the updated w");
    }

    static Tensor doubledPlusSelf(Tensor x) { return x.data().mul(2.0).add(x); }

    @Test
    void aCompiledDataIsADetachInTheGraph() {
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile(TensorDataTest::doubledPlusSelf, Options.backend(cc));
        Tensor x = Tensor.of(new float[] {1, -2, 3}, 3).requiresGrad(true);
        Tensor out = f.apply(x);
        assertEquals(1, cc.frameCount(), "one graph, no break at .data()");
        assertClose(out.detach(), doubledPlusSelf(x).detach(), "3x");
        out.sum().backward();
        assertClose(x.grad(), Tensor.onesLike(x), "no gradient flows through x.data()");
    }

    @Test
    void integerTensorsHaveDataToo() {
        Tensor i = Tensor.of(new long[] {1, 2}, 2);
        Tensor d = i.data();
        d.add_(Tensor.of(new long[] {1, 1}, 2));
        assertEquals(DType.INT64, d.dtype());
        assertClose(i, Tensor.of(new long[] {2, 3}, 2), "shared");
    }
}
