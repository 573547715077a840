package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.GradMode;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code detach()} is a graph node (was a break: the tracer met {@code new Tensor} inside it), a
 * cut no gradient crosses under every backend; {@code requiresGrad()} of a computed tensor is
 * answered from the graph where autograd's rules decide it.
 */
class DetachCaptureTest {
    @AfterEach
    void reset() { Ember.reset(); }

    /** A target computed from the model's own output, detached (a bootstrapped target, a GAN's fake batch). */
    static Tensor loss(Tensor x, Tensor w) {
        Tensor h = x.matmul(w).tanh();
        Tensor target = h.detach().mul(0.5).add(1.0);
        return h.sub(target).square().sum();
    }

    @ParameterizedTest
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void noGradientCrossesADetach(String backend) {
        Tensor.manualSeed(8);
        Tensor x = Tensor.randn(5, 4), w = Tensor.randn(4, 3);
        Tensor we = w.detach().clone().requiresGrad(true), wc = w.detach().clone().requiresGrad(true);
        Tensor want = loss(x, we), got = Ember.compile(DetachCaptureTest::loss, Options.backend(backend)).apply(x, wc);
        assertEquals(want.item(), got.item(), 1e-5);
        want.backward();
        got.backward();
        assertArrayEquals(we.grad().toDoubleArray(), wc.grad().toDoubleArray(), 1e-5);
        // the AOT backends differentiate the graph as one piece (the joint graph stops at the detach), not op by op
        if (!backend.equals("eager")) assertEquals("CompiledFunctionBackward", got.gradFn().name(), backend);
        ExplainOutput e = Ember.explain((Fn2<Tensor, Tensor, Tensor>) DetachCaptureTest::loss).with(x, w.detach().requiresGrad(true));
        assertEquals(0, e.graphBreakCount(), e.toString());
    }

    static List<Tensor> outputs(Tensor x, Tensor w) {
        Tensor h = x.matmul(w);
        return List.of(h.detach(), h.relu());
    }

    @ParameterizedTest
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void aDetachedOutputRequiresNoGrad(String backend) {
        Tensor x = Tensor.randn(3, 2), w = Tensor.randn(2, 2).requiresGrad(true);
        List<Tensor> want = outputs(x, w), got = Ember.compile(DetachCaptureTest::outputs, Options.backend(backend)).apply(x, w);
        assertFalse(want.get(0).requiresGrad());
        assertFalse(got.get(0).requiresGrad(), backend);
        assertTrue(got.get(1).requiresGrad(), backend);
        assertArrayEquals(want.get(0).toDoubleArray(), got.get(0).toDoubleArray(), 1e-6);
    }

    /** Branches on requiresGrad() of computed tensors, as modules do ("if self.training and x.requires_grad"). */
    static Tensor branches(Tensor x, Tensor w) {
        Tensor h = x.matmul(w);
        Tensor k = x.mul(2.0);
        Tensor d = h.detach();
        Tensor i = h.argmax(1, false).to(dev.ember.tensor.DType.FLOAT32);
        double code = (h.requiresGrad() ? 1 : 0) + (k.requiresGrad() ? 2 : 0) + (d.requiresGrad() ? 4 : 0) + (i.requiresGrad() ? 8 : 0);
        return h.add(code);
    }

    @Test
    void requiresGradOfComputedTensorsIsAnsweredAsEagerly() {
        Tensor x = Tensor.randn(3, 4), w = Tensor.randn(4, 4);
        for (boolean grad : new boolean[] {true, false}) {
            Tensor wg = w.detach().requiresGrad(grad);
            Fn2<Tensor, Tensor, Tensor> f = Ember.compile(DetachCaptureTest::branches);
            assertArrayEquals(branches(x, wg).toDoubleArray(), f.apply(x, wg).toDoubleArray(), 1e-6, "w requires grad: " + grad);
            ExplainOutput e = Ember.explain((Fn2<Tensor, Tensor, Tensor>) DetachCaptureTest::branches).with(x, wg);
            assertEquals(0, e.graphBreakCount(), e.toString());
            Ember.reset();
        }
        try (var off = GradMode.noGrad()) {
            Tensor wg = w.detach().requiresGrad(true);
            assertArrayEquals(branches(x, wg).toDoubleArray(), Ember.compile(DetachCaptureTest::branches).apply(x, wg).toDoubleArray(), 1e-6, "under noGrad");
        }
    }

    static Tensor switchesMode(Tensor x, Tensor w) {
        Tensor h;
        try (var off = GradMode.noGrad()) {
            h = x.matmul(w);
        }
        return h.requiresGrad() ? h.mul(2.0) : h.mul(3.0);
    }

    @Test
    void whereGradModeChangedInTheTraceItBreaksRatherThanGuess() {
        Tensor x = Tensor.randn(2, 2), w = Tensor.randn(2, 2).requiresGrad(true);
        assertArrayEquals(switchesMode(x, w).toDoubleArray(), Ember.compile(DetachCaptureTest::switchesMode).apply(x, w).toDoubleArray(), 1e-6);
        ExplainOutput e = Ember.explain((Fn2<Tensor, Tensor, Tensor>) DetachCaptureTest::switchesMode).with(x, w);
        assertEquals(1, e.graphBreakCount(), e.toString());
        assertTrue(e.breakReasons().getFirst().reason().contains("requiresGrad"), e.toString());
    }
}
