package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The wrong answers the seventh capture session (test_hooks.py, test_decorators.py, test_global.py ports) found, compiled against eager. */
class Capture7RegressionTest {
    @AfterEach
    void reset() { Ember.reset(); }

    /** test_hooks.py::test_hook_on_intermediate_used_before_and_after: y is used by z before its hook is registered. */
    static Tensor hookAfterAUse(Tensor x) {
        Tensor y = x.mul(2);
        Tensor z = y.add(1);
        y.registerHook(g -> g.mul(2));
        Tensor w = y.mul(3);
        return z.add(w).sum();
    }

    /** The hook sees the gradient of y through z too: x.grad = 2 * 2 * (1 + 3) = 16. */
    private static double[] gradOf(Fn1<Tensor, Tensor> f) {
        Tensor x = Tensor.ones(2).requiresGrad(true);
        f.apply(x).backward();
        return x.grad().toDoubleArray();
    }

    @Test
    void aHookOnAnIntermediateUsedBeforeSeesEveryUsesGradient() {
        Fn1<Tensor, Tensor> f = Capture7RegressionTest::hookAfterAUse;
        double[] eager = gradOf(f);
        assertArrayEquals(new double[] {16, 16}, eager, 1e-6);
        // the graph before the break, compiled as one autograd node, sent z's gradient past the hook (14, not 16)
        for (String backend : List.of("eager", "aot_eager", "inductor")) {
            Ember.reset();
            assertArrayEquals(eager, gradOf(Ember.compile(f, Options.backend(backend))), 1e-6, backend);
        }
        var e = Ember.explain(f).with(Tensor.ones(2).requiresGrad(true));
        assertEquals(0, e.graphCount(), "the frame runs eagerly: " + e);
    }

    /** A hook on an intermediate not used before it still resumes: two graphs around the registration. */
    static Tensor hookBeforeAnyUse(Tensor x) {
        Tensor y = x.mul(2);
        y.registerHook(g -> g.mul(2));
        return y.mul(3).sum();
    }

    @Test
    void aHookOnAnUnusedIntermediateKeepsBothGraphs() {
        Fn1<Tensor, Tensor> f = Capture7RegressionTest::hookBeforeAnyUse;
        double[] eager = gradOf(f);
        for (String backend : List.of("aot_eager", "inductor")) {
            Ember.reset();
            assertArrayEquals(eager, gradOf(Ember.compile(f, Options.backend(backend))), 1e-6, backend);
        }
        assertEquals(2, Ember.explain(f).with(Tensor.ones(2).requiresGrad(true)).graphCount());
    }

    /** test_list.py~: a ListIterator made at the end and walked backwards. */
    static Tensor listIteratorFromTheEnd(Tensor x) {
        List<Tensor> l = List.of(x, x.sin(), x.cos());
        java.util.ListIterator<Tensor> it = l.listIterator(l.size());
        Tensor acc = x.mul(0);
        while (it.hasPrevious()) acc = acc.mul(2).add(it.previous()).add(it.nextIndex());
        return acc;
    }

    @Test
    void listIteratorAtAnIndexStartsThere() {
        // listIterator(index) was traced as listIterator(): an iterator at 0, whose hasPrevious() was false, so the loop never ran
        Fn1<Tensor, Tensor> f = Capture7RegressionTest::listIteratorFromTheEnd;
        Tensor x = Tensor.randn(3);
        assertArrayEquals(f.apply(x).toDoubleArray(), Ember.compile(f, Options.backend("eager")).apply(x).toDoubleArray(), 1e-6);
    }

    static Tensor shapeEquals(Tensor x, List<Integer> shape) { return shape.equals(List.of(2, 3)) ? x.reshape(2, 3) : x.reshape(3, 2).t(); }

    static Tensor boxedEquals(Tensor x, Integer n) { return n.equals(4) ? x.add(1) : x.sub(1); }

    @Test
    void equalsOfAnIntThatBecameSymbolicIsGuarded() {
        // the second call's other ints made them symbolic (automatic dynamic); Integer.equals of them broke the graph (GB0019)
        for (var calls : List.of(List.of(List.of(2, 3), List.of(3, 2), List.of(2, 3), List.of(2, 3)))) {
            var f = Ember.compile((dev.ember.Fn2<Tensor, List<Integer>, Tensor>) Capture7RegressionTest::shapeEquals, Options.fullgraph());
            for (List<Integer> shape : calls) {
                Tensor x = Tensor.randn(6);
                assertArrayEquals(shapeEquals(x, shape).toDoubleArray(), f.apply(x, shape).toDoubleArray(), 1e-6, shape.toString());
            }
        }
        Ember.reset();
        var g = Ember.compile((dev.ember.Fn2<Tensor, Integer, Tensor>) Capture7RegressionTest::boxedEquals, Options.fullgraph());
        for (int n : new int[] {4, 5, 4, 6, 7}) {
            Tensor x = Tensor.randn(3);
            assertArrayEquals(boxedEquals(x, n).toDoubleArray(), g.apply(x, n).toDoubleArray(), 1e-6, "n = " + n);
        }
    }
}
