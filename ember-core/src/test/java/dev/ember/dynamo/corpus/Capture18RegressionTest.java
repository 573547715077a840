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
        Tensor x = Tensor.randn(3);
        Compiled.assertSame(sumsOverAHashSetOfTensors(x), Ember.compile((Fn1<Tensor, Object>) Capture18RegressionTest::sumsOverAHashSetOfTensors).apply(x),
                "compiled against eager");
        Ember.reset();
        ExplainOutput explained = Ember.explain((Fn1<Tensor, Object>) Capture18RegressionTest::sumsOverAHashSetOfTensors).with(x);
        assertTrue(explained.graphBreakCount() > 1, explained::toString);
        for (ExplainOutput.BreakReason r : explained.breakReasons()) {
            assertTrue(r.reason().contains("identity hash code") && r.reason().contains("LinkedHashSet"), () -> "break without the why: " + r.reason());
        }
    }
}
