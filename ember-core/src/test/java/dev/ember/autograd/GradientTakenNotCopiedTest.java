package dev.ember.autograd;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * A leaf takes a gradient that only this backward made and only it receives as its {@code .grad}
 * (PyTorch's AccumulateGrad steals a gradient whose use count is 1) instead of copying it; a
 * gradient anything else can see is still copied: the same tensor delivered to two leaves, the
 * caller's gradient, a value the forward saved, and what a user's custom backward returned.
 */
class GradientTakenNotCopiedTest {
    @AfterEach
    void reset() { Ember.reset(); }

    private static Tensor leaf(double... v) { return Tensor.of(v, v.length).requiresGrad(true); }

    @Test
    void aFreshGradientOfACompiledBackwardBecomesTheGradItself() {
        Tensor x = leaf(1, 2, 3);
        Tensor[] returned = new Tensor[1];
        Tensor y = Autograd.function("Fresh", List.of(x), List.of(x.detach().mul(2.0)), null, null,
                (Autograd.FreshBackward) g -> new Tensor[] {returned[0] = g[0].mul(2.0)}).getFirst();
        y.sum().backward();
        assertSame(returned[0], x.grad(), "taken, not copied");
        assertArrayEquals(new double[] {2, 2, 2}, x.grad().toDoubleArray());
    }

    @Test
    void aUsersCustomBackwardsGradientIsCopiedBecauseTheUserMayKeepIt() {
        Tensor x = leaf(1, 2, 3);
        Tensor[] kept = new Tensor[1];
        Tensor y = Autograd.function("Custom", List.of(x), List.of(x.detach().mul(2.0)), null, null,
                g -> new Tensor[] {kept[0] = g[0].mul(2.0)}).getFirst();
        y.sum().backward();
        assertNotSame(kept[0].storage(), x.grad().storage());
        kept[0].mul_(100.0);   // the user's own tensor, changed later
        assertArrayEquals(new double[] {2, 2, 2}, x.grad().toDoubleArray());
    }

    @Test
    void oneGradientDeliveredToTwoLeavesIsCopiedForEach() {
        Tensor x = leaf(1, 2, 3), w = leaf(4, 5, 6);
        x.add(w).mul(2.0).sum().backward();   // add's backward hands the same tensor to both
        assertNotSame(x.grad().storage(), w.grad().storage());
        x.grad().mul_(10.0);                  // as gradient clipping does, in place
        assertArrayEquals(new double[] {2, 2, 2}, w.grad().toDoubleArray());
        assertArrayEquals(new double[] {20, 20, 20}, x.grad().toDoubleArray());
    }

    @Test
    void theCallersGradientAndTheForwardsValuesAreCopied() {
        Tensor x = leaf(1, 2, 3);
        Tensor gradient = Tensor.ones(3).to(dev.ember.tensor.DType.FLOAT64);   // made by Ember, before the backward
        x.mul(1.0).backward(gradient);        // mul by a number passes the caller's gradient through, scaled by 1
        assertNotSame(gradient.storage(), x.grad().storage());
        gradient.fill_(7.0);
        assertArrayEquals(new double[] {1, 1, 1}, x.grad().toDoubleArray());
        Tensor z = leaf(1, 2, 3);
        z.backward(gradient);                 // a leaf as the root: its gradient is the caller's tensor itself
        assertNotSame(gradient.storage(), z.grad().storage());
    }

    @Test
    void compiledTrainingStepsStillAccumulateIntoTheirOwnGradients() {
        Tensor w = leaf(0.5, -1.0, 2.0);
        Fn2<Tensor, Tensor, Tensor> loss = Ember.compile((Fn2<Tensor, Tensor, Tensor>) (a, b) -> a.mul(b).tanh().sum(), Options.backend("inductor"));
        Tensor x = Tensor.of(new double[] {1, 2, 3}, 3);
        loss.apply(x, w).backward();
        Tensor first = w.grad().clone();
        loss.apply(x, w).backward();          // the second backward adds into the gradient the first one left
        assertArrayEquals(first.mul(2.0).toDoubleArray(), w.grad().toDoubleArray(), 1e-12);
    }
}
