package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.nn.ClipGrad;
import dev.ember.nn.Linear;
import dev.ember.nn.Parameter;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.*;

import static dev.ember.dynamo.corpus.Capture12RegressionTest.assertOneFrameNoBreak;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Capture session 18's fixes, each failing without it: compiled behaves as eager, with the frame and graph-break counts Dynamo would have. */
class Capture18RegressionTest {
    @AfterEach
    void reset() { Ember.reset(); }

    // ---- Tensor.grad() of an input or parameter is a graph input (Dynamo's p.grad), guarded ----

    /** Leaves that require grad, with these gradients (null: none yet). */
    private static List<Tensor> leavesWithGrads(Tensor... grads) {
        List<Tensor> params = new ArrayList<>();
        for (Tensor g : grads) {
            Tensor p = Tensor.randn(g == null ? new int[] {2} : g.shape()).requiresGrad(true);
            if (g != null) p.setGrad(g.clone());
            params.add(p);
        }
        return params;
    }

    private static List<Tensor> gradsOf(List<Tensor> params) {
        List<Tensor> out = new ArrayList<>();
        for (Tensor p : params) out.add(p.grad());
        return out;
    }

    static Object clipsGradNorm(List<Tensor> params) { return ClipGrad.clipGradNorm_(params, 1.0); }

    /** Runs {@code fn} on copies of the same gradients eagerly and compiled: results and the gradients after (written in place) agree. */
    private static void assertSameOnGrads(Fn1<List<Tensor>, Object> eagerFn, Fn1<List<Tensor>, Object> compiled, Tensor... grads) {
        List<Tensor> eagerParams = leavesWithGrads(grads), compiledParams = leavesWithGrads(grads);
        List<Tensor> realGrads = gradsOf(compiledParams);
        Object expected = eagerFn.apply(eagerParams);
        Object got = compiled.apply(compiledParams);
        Compiled.assertSame(expected, got, "result");
        Compiled.assertSame(gradsOf(eagerParams), gradsOf(compiledParams), "gradients after");
        for (int i = 0; i < grads.length; i++) {
            // the in-place write reached the real gradient tensor, not a copy put in its place
            assertTrue(realGrads.get(i) == compiledParams.get(i).grad(), "gradient " + i + " is the same tensor");
        }
    }

    @Test
    void clipGradNormReadsGradientsAsGraphInputsAndScalesThemInPlace() {
        CompileCounter cc = new CompileCounter();
        Fn1<List<Tensor>, Object> compiled = Ember.compile(Capture18RegressionTest::clipsGradNorm, Options.backend(cc));
        assertSameOnGrads(Capture18RegressionTest::clipsGradNorm, compiled, Tensor.randn(3, 4).mul(5), Tensor.randn(4).mul(5));
        assertEquals(1, cc.frameCount(), "frames");
        // other gradients of the same shapes: the same graph
        assertSameOnGrads(Capture18RegressionTest::clipsGradNorm, compiled, Tensor.randn(3, 4).mul(0.01), Tensor.randn(4).mul(0.01));
        assertEquals(1, cc.frameCount(), "frames after a call with other gradients of the same shapes");
        // a parameter without a gradient: the guard on .grad fails and the frame recompiles, skipping it as eager does
        assertSameOnGrads(Capture18RegressionTest::clipsGradNorm, compiled, Tensor.randn(3, 4).mul(5), null);
        assertEquals(2, cc.frameCount(), "frames after a call where one gradient is null");
        // parameters and gradients of other shapes: guarded too
        assertSameOnGrads(Capture18RegressionTest::clipsGradNorm, compiled, Tensor.randn(5, 2).mul(5), Tensor.randn(7).mul(5));

        List<Tensor> params = leavesWithGrads(Tensor.randn(3, 4), Tensor.randn(4));
        Ember.reset();
        ExplainOutput explained = Ember.explain((Fn1<List<Tensor>, Object>) Capture18RegressionTest::clipsGradNorm).with(params);
        assertEquals(0, explained.graphBreakCount(), () -> "graph breaks: " + explained.breakReasons());
    }

    @Test
    void sumsGradientNormsOfAModulesParameters() {
        Linear layer = new Linear(4, 3);
        layer.forward(Tensor.randn(2, 4)).sum().backward();
        Fn1<Tensor, Object> f = x -> {
            Tensor total = x.sum();
            for (Parameter p : layer.parameters()) total = total.add(p.grad().norm());
            return total;
        };
        Tensor x = Tensor.randn(5);
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Object> compiled = Ember.compile(f, Options.backend(cc));
        Compiled.assertSame(f.apply(x), compiled.apply(x), "compiled against eager");
        // a new backward changes the gradients' values: the graph reads them afresh
        layer.forward(Tensor.randn(2, 4)).mul(3).sum().backward();
        Compiled.assertSame(f.apply(x), compiled.apply(x), "after another backward");
        assertEquals(1, cc.frameCount(), "frames");
        assertEquals(0, Capture11RegressionTest.graphBreaks(f, x), "graph breaks");
    }

    /** The docs' example (docs/training.md): a module passed in, its parameters' gradients clipped in place, one graph. */
    @Test
    void clipsTheGradientsOfAModulePassedIn() {
        Linear layer = new Linear(4, 3);
        layer.forward(Tensor.randn(2, 4)).mul(10).sum().backward();
        List<Tensor> copies = new ArrayList<>();
        for (Parameter p : layer.parameters()) {
            Tensor copy = p.detach().clone().requiresGrad(true);
            copy.setGrad(p.grad().clone());
            copies.add(copy);
        }
        Tensor expected = ClipGrad.clipGradNorm_(copies, 1.0);
        CompileCounter cc = new CompileCounter();
        Fn1<dev.ember.nn.Module, Tensor> clip = Ember.compile(m -> ClipGrad.clipGradNorm_(m.parameters(), 1.0), Options.backend(cc));
        Compiled.assertSame(expected, clip.apply(layer), "total norm");
        Compiled.assertSame(gradsOf(copies), gradsOf(new ArrayList<>(layer.parameters())), "gradients after");
        assertEquals(1, cc.frameCount(), "frames");
    }

    @Test
    void gradOfAComputedTensorBreaksSayingWhatToReadInstead() {
        Tensor p = Tensor.randn(3).requiresGrad(true);
        p.setGrad(Tensor.randn(3));
        Fn1<Tensor, Object> f = x -> {
            Tensor g = x.mul(p).grad();
            return g == null ? x.add(1) : g;
        };
        Tensor x = Tensor.randn(3);
        Compiled.assertSame(f.apply(x), Ember.compile(f).apply(x), "compiled against eager");
        Ember.reset();
        ExplainOutput explained = Ember.explain(f).with(x);
        assertTrue(explained.breakReasons().stream().anyMatch(r -> r.reason().contains("Tensor.grad() on a tensor")
                && r.reason().contains("only the gradient of an input or parameter becomes a graph input")), () -> explained.breakReasons().toString());
    }

    // ---- a HashSet of tensors iterated: every break says why, and what to use instead ----

    static Object sumsOverAHashSetOfTensors(Tensor x) {
        Set<Tensor> parts = new HashSet<>(List.of(x, x.mul(2), x.mul(3)));
        Tensor acc = x.mul(0);
        for (Tensor t : parts) acc = acc.add(t.sum());
        return acc;
    }

    @Test
    void breaksInAResumedHashSetLoopSayWhyAndWhatToUseInstead() {
        // whole numbers: the set's order (identity hash codes, different in each run) does not change the sum's rounding
        Tensor x = Tensor.randn(3).mul(4).round();
        Compiled.assertSame(sumsOverAHashSetOfTensors(x), Ember.compile((Fn1<Tensor, Object>) Capture18RegressionTest::sumsOverAHashSetOfTensors).apply(x),
                "compiled against eager");
        Ember.reset();
        ExplainOutput explained = Ember.explain((Fn1<Tensor, Object>) Capture18RegressionTest::sumsOverAHashSetOfTensors).with(x);
        assertTrue(explained.graphBreakCount() > 1, explained::toString);
        for (ExplainOutput.BreakReason r : explained.breakReasons()) {
            assertTrue(r.reason().contains("identity hash code") && r.reason().contains("LinkedHashSet"), () -> "break without the why: " + r.reason());
        }
    }

    // ---- an ArrayDeque's iterators as the JDK's: hasNext never fails fast, next reads the array where the cursor stands ----

    /** The iterator returns the elements it was made with: after an addLast, hasNext is still false once they are taken. */
    static Object dequeIteratorEndsAfterAnAdd(Tensor x) {
        ArrayDeque<Tensor> d = new ArrayDeque<>(List.of(x, x.sin()));
        Iterator<Tensor> it = d.iterator();
        Tensor acc = it.next().add(it.next());
        d.addLast(x.cos());
        d.addFirst(x.exp());
        return List.of(acc, it.hasNext(), d.size());
    }
    /** After a pollLast, hasNext still counts the element polled; next() then finds its slot empty and throws ConcurrentModificationException. */
    static Object dequeIteratorAfterAPoll(Tensor x) {
        ArrayDeque<Tensor> d = new ArrayDeque<>(List.of(x, x.sin(), x.cos()));
        Iterator<Tensor> it = d.iterator();
        Tensor acc = it.next();
        d.pollLast();
        List<Object> seen = new ArrayList<>();
        seen.add(it.hasNext());
        acc = acc.add(it.next());
        seen.add(it.hasNext());
        try {
            acc = acc.add(it.next());
        } catch (java.util.ConcurrentModificationException e) {
            seen.add("CME");
        }
        return List.of(acc, seen);
    }
    /** A loop that adds while it walks: the JDK's iterator returns the slots it reaches, and stops after the count it was made with. */
    static Object dequeLoopAddingAsItGoes(Tensor x) {
        ArrayDeque<Tensor> d = new ArrayDeque<>(List.of(x, x.sin(), x.cos()));
        Tensor acc = x.mul(0);
        int steps = 0;
        for (Tensor t : d) {
            acc = acc.mul(2).add(t);
            if (steps++ == 0) d.addLast(t.mul(3));
        }
        return List.of(acc, steps, d.size());
    }
    /** hasNext after a change is no ConcurrentModificationException for a catch to see: the JDK's answers true here. */
    static Object dequeHasNextInsideATry(Tensor x) {
        ArrayDeque<Tensor> d = new ArrayDeque<>(List.of(x, x.sin()));
        Iterator<Tensor> it = d.iterator();
        Tensor acc = it.next();
        d.addLast(x.cos());
        boolean more;
        try {
            more = it.hasNext();
        } catch (java.util.ConcurrentModificationException e) {
            more = false;
            acc = acc.add(100);
        }
        return List.of(acc, more);
    }
    /** The descending iterator alike: hasNext counts, whatever the deque did. */
    static Object descendingIteratorEndsAfterAnAdd(Tensor x) {
        ArrayDeque<Tensor> d = new ArrayDeque<>(List.of(x, x.sin()));
        Iterator<Tensor> it = d.descendingIterator();
        Tensor acc = it.next().add(it.next());
        d.addFirst(x.cos());
        return List.of(acc, it.hasNext());
    }
    /** After its own remove, an ArrayDeque's iterator still counts as the JDK's when the deque changes later. */
    static Object dequeIteratorRemovesThenTheDequeChanges(Tensor x) {
        ArrayDeque<Integer> d = new ArrayDeque<>(List.of(1, 2, 3));
        Iterator<Integer> it = d.descendingIterator();
        it.next();
        it.remove();
        it.next();
        d.addLast(7);
        return List.of(x.add(d.size()), it.hasNext());
    }

    @Test
    void arrayDequeIteratorsAnswerHasNextAsTheJdksInOneGraph() {
        assertOneFrameNoBreak(Capture18RegressionTest::dequeIteratorEndsAfterAnAdd);
        assertOneFrameNoBreak(Capture18RegressionTest::descendingIteratorEndsAfterAnAdd);
        assertOneFrameNoBreak(Capture18RegressionTest::dequeHasNextInsideATry);
    }

    @Test
    void arrayDequeIteratorOwnRemoveThenAChangeCountsAsTheJdks() {
        Tensor x = Tensor.randn(3);
        Capture11RegressionTest.assertAsEager(Capture18RegressionTest::dequeIteratorRemovesThenTheDequeChanges, x);
    }

    @Test
    void arrayDequeIteratorNextAfterAChangeRunsTheFrameEagerly() {
        Tensor x = Tensor.randn(3);
        for (Fn1<Tensor, Object> f : List.<Fn1<Tensor, Object>>of(Capture18RegressionTest::dequeIteratorAfterAPoll, Capture18RegressionTest::dequeLoopAddingAsItGoes)) {
            Capture11RegressionTest.assertAsEager(f, x);
            Ember.reset();
            ExplainOutput explained = Ember.explain(f).with(x);
            assertTrue(explained.breakReasons().stream().anyMatch(r -> r.reason().contains("ArrayDeque.iterator().next() after the deque changed")),
                    explained::toString);
            Ember.reset();
        }
    }
}
