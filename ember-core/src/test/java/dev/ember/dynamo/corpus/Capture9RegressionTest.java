package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.Autograd;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** Capture session 9's fixes, each failing without it. */
class Capture9RegressionTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor hookOnInputThenCompute(Tensor x) {
        x.registerHook(g -> g.mul(3));
        return x.sin().mul(x).sum();
    }

    /** The hook captures a tensor the graph computes: made again from the graph's output. */
    static Tensor hookCapturingAGraphValue(Tensor x, Tensor y) {
        Tensor scale = y.exp();
        x.registerHook(g -> g.mul(scale));
        return x.mul(y).sum();
    }

    /** Two hooks, the first removed in the function: only the second is on x afterwards. */
    static Tensor removedThenRegistered(Tensor x) {
        Autograd.HookHandle first = x.registerHook(g -> g.mul(5));
        Tensor y = x.cos();
        first.remove();
        x.registerHook(g -> g.add(1));
        return y.sum();
    }

    /** The handle live across a graph break: the resumed code removes the hook the first graph's replay registered. */
    static Tensor handleAcrossBreak(Tensor x) {
        Autograd.HookHandle h = x.registerHook(g -> g.mul(7));
        Tensor y = x.mul(2);
        Ember.graphBreak();
        h.remove();
        return y.sum();
    }

    /** ListIterator's cursor: nextIndex, previousIndex, hasPrevious, previous (each broke: "Iterator.nextIndex()" unsupported). */
    static Tensor listIteratorCursor(Tensor x) {
        List<Tensor> xs = new java.util.ArrayList<>(List.of(x, x.mul(2), x.mul(3)));
        java.util.ListIterator<Tensor> it = xs.listIterator();
        Tensor s = x.mul(0);
        if (!it.hasPrevious()) s = s.add(100);
        while (it.hasNext()) {
            int at = it.nextIndex();
            s = s.add(it.next().mul(at + 1)).add(it.previousIndex());
            if (it.hasPrevious()) s = s.add(1);
        }
        while (it.hasPrevious()) s = s.mul(it.previous()).add(it.nextIndex());   // back to the start
        return s;
    }

    /** previous() before the first element throws NoSuchElementException, and after the list changed ConcurrentModificationException, as eager. */
    static Tensor listIteratorPreviousThrows(Tensor x) {
        List<Tensor> xs = new java.util.ArrayList<>(List.of(x, x.mul(2)));
        java.util.ListIterator<Tensor> it = xs.listIterator();
        Tensor s = x;
        try {
            it.previous();
        } catch (java.util.NoSuchElementException e) {
            s = s.add(10);
        }
        it.next();
        xs.add(x.mul(3));
        try {
            it.previous();
        } catch (java.util.ConcurrentModificationException e) {
            s = s.mul(5);
        }
        return s;
    }

    @Test
    void listIteratorPreviousThrowsAsEager() {
        Fn1<Tensor, Tensor> f = Capture9RegressionTest::listIteratorPreviousThrows;
        Tensor x = Tensor.randn(3);
        assertArrayEquals(f.apply(x).toDoubleArray(), Ember.compile(f).apply(x).toDoubleArray(), 1e-5);
    }

    @Test
    void listIteratorCursorIsTraced() {
        Fn1<Tensor, Tensor> f = Capture9RegressionTest::listIteratorCursor;
        Tensor x = Tensor.randn(3);
        CompileCounter cc = new CompileCounter();
        assertArrayEquals(f.apply(x).toDoubleArray(), Ember.compile(f, Options.backend(cc)).apply(x).toDoubleArray(), 1e-5);
        assertEquals(1, cc.frameCount(), "frames");
        Ember.reset();
        assertEquals(0, Ember.explain(f).with(x).graphBreakCount(), "graph breaks");
    }

    private static void gradsAsEager(Object fn, int frames, int breaks) {
        for (String backend : List.of("eager", "aot_eager", "inductor")) {
            Ember.reset();
            Tensor.manualSeed(3);
            Tensor a = Tensor.randn(4), b = Tensor.randn(4);
            Tensor xe = a.clone().requiresGrad(true), xc = a.clone().requiresGrad(true);
            Tensor outE = (Tensor) Compiled.call(fn, new Object[] {xe, b});
            outE.backward();
            CompileCounter cc = new CompileCounter();
            var c = Compiled.compile(fn, backend.equals("eager") ? Options.backend(cc) : Options.backend(backend));
            for (int call = 0; call < 2; call++) {
                xc = a.clone().requiresGrad(true);
                Tensor outC = (Tensor) c.apply(new Object[] {xc, b});
                assertArrayEquals(outE.detach().toDoubleArray(), outC.detach().toDoubleArray(), 1e-5, backend + ": value");
                outC.backward();
                assertNotNull(xc.grad(), backend + ": the gradient reached x");
                assertArrayEquals(xe.grad().toDoubleArray(), xc.grad().toDoubleArray(), 1e-5, backend + ": call " + call + ", x's gradient (the hook's effect)");
            }
            if (backend.equals("eager")) assertEquals(frames, cc.frameCount(), "frames");
        }
        Ember.reset();
        Object[] in = fn instanceof Fn1<?, ?> ? new Object[] {Tensor.randn(4).requiresGrad(true)} : new Object[] {Tensor.randn(4).requiresGrad(true), Tensor.randn(4)};
        assertEquals(breaks, Ember.explain(fn).with(in).graphBreakCount(), "graph breaks");
        Ember.reset();
    }

    @Test
    void hookOnAnInputIsRegisteredAfterTheGraph() { // Dynamo: 1 frame, 0 breaks (registerHook on an input broke, GB0020: 2 frames)
        gradsAsEager((Fn1<Tensor, Tensor>) Capture9RegressionTest::hookOnInputThenCompute, 1, 0);
        gradsAsEager((Fn2<Tensor, Tensor, Tensor>) Capture9RegressionTest::hookCapturingAGraphValue, 1, 0);
        gradsAsEager((Fn1<Tensor, Tensor>) Capture9RegressionTest::removedThenRegistered, 1, 0);
    }

    @Test
    void aHandleLiveAcrossABreakIsTheRegisteredOne() {
        gradsAsEager((Fn1<Tensor, Tensor>) Capture9RegressionTest::handleAcrossBreak, 2, 1);   // the graph before the break and y.sum() after it
    }
}
