package dev.ember.autograd;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tensor.registerHook, PyTorch's register_hook: a hook sees the gradient of a leaf or of an
 * intermediate before it is used, may replace it, runs in registration order, comes off with its
 * handle; Autograd.grad returns the hooked gradient; PyTorch's errors; inside a compiled function
 * the registration is one call and the hook still runs.
 */
class GradientHooksTest {
    @AfterEach
    void reset() { Ember.reset(); }

    @Test
    void hooksSeeAndReplaceGradients() {
        Tensor x = Tensor.of(new double[] {1, 2, 3}, 3).requiresGrad(true);
        List<double[]> seen = new ArrayList<>();
        Autograd.HookHandle doubling = x.registerHook(g -> g.mul(2.0));
        x.registerHook(g -> { seen.add(g.toDoubleArray()); return null; });
        Tensor h = x.mul(x);
        h.registerHook(g -> g.add(1.0));             // an intermediate: changes what flows on to x
        h.sum().backward();
        // dh = 1 + 1 = 2; dx = 2 · 2x = 4x; doubled = 8x; the second hook sees the doubled one
        assertArrayEquals(new double[] {8, 16, 24}, x.grad().toDoubleArray(), 0);
        assertArrayEquals(new double[] {8, 16, 24}, seen.getFirst(), 0);

        doubling.remove();
        x.setGrad(null);
        x.mul(3.0).sum().backward();
        assertArrayEquals(new double[] {3, 3, 3}, x.grad().toDoubleArray(), 0, "the removed hook no longer runs");
        assertEquals(2, seen.size());

        Tensor z = Tensor.of(new double[] {1, 2}, 2).requiresGrad(true);
        z.registerHook(g -> g.neg());
        assertArrayEquals(new double[] {-2, -4}, Autograd.grad(z.mul(z).sum(), z).getFirst().toDoubleArray(), 0, "grad() returns the hooked gradient");
    }

    @Test
    void pyTorchsErrors() {
        assertTrue(assertThrows(IllegalStateException.class, () -> Tensor.randn(2).registerHook(g -> g)).getMessage()
                .startsWith("cannot register a hook on a tensor that doesn't require gradient"));
        Tensor x = Tensor.randn(3).requiresGrad(true);
        x.registerHook(g -> g.sum());
        assertTrue(assertThrows(IllegalStateException.class, () -> x.mul(2.0).sum().backward()).getMessage().contains("has changed the size of value"));
    }

    static final List<Tensor> GRADIENTS = new ArrayList<>();

    static Tensor hooked(Tensor w) {
        Tensor y = w.sin();
        w.registerHook(g -> { GRADIENTS.add(g); return g.mul(10.0); });
        return y.mul(w).sum();
    }

    @Test
    void registeredInsideACompiledFunction() {
        GRADIENTS.clear();
        Tensor w1 = Tensor.randn(4).requiresGrad(true), w2 = w1.detach().requiresGrad(true);
        hooked(w1).backward();
        Fn1<Tensor, Tensor> f = Ember.compile(GradientHooksTest::hooked);
        f.apply(w2).backward();
        assertArrayEquals(w1.grad().toDoubleArray(), w2.grad().toDoubleArray(), 1e-6);
        assertEquals(2, GRADIENTS.size(), "the hook ran in both");
    }
}
