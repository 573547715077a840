package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tensor arguments are wrapped when the trace first reads them, as Dynamo wraps lazily: a tensor
 * the frame never reads gets no TENSOR_MATCH and takes no part in the aliasing guard. PyTorch 2.13,
 * for {@code f(x, a, b) = x + 1}: (x, a, b), (x, a, a), (x, x, x) and new shapes and dtypes for a and
 * b compile once; for {@code h(x, a, b) = x + a}: (x, a, b), (x, a, a) once, (x, x, b) recompiles.
 */
class LazyArgumentsTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor readsFirst(Tensor x, Tensor a, Tensor b) { return x.add(1); }

    static Tensor readsTwo(Tensor x, Tensor a, Tensor b) { return x.add(a); }

    @SuppressWarnings("unused")
    static Tensor copiesThenReads(Tensor x, Tensor a, Tensor b) {
        Tensor kept = b;          // a copy to another local is no read
        return x.mul(2).add(a);
    }

    private static CompiledFrame frameOf(Options opts) {
        return FrameRegistry.frames().stream().filter(fr -> fr.options() == opts).findFirst().orElseThrow();
    }

    private static List<String> guards(CompiledFrame frame) {
        return frame.entries().stream().flatMap(e -> e.graph().guards().stream()).map(g -> g.describe()).toList();
    }

    @Test
    void aTensorNeverReadIsNotGuarded() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) LazyArgumentsTest::readsFirst, opts);
        Tensor x = Tensor.randn(3), a = Tensor.randn(3), b = Tensor.randn(3);
        assertArrayEquals(readsFirst(x, a, b).toFloatArray(), f.apply(x, a, b).toFloatArray());
        assertArrayEquals(readsFirst(x, a, a).toFloatArray(), f.apply(x, a, a).toFloatArray());
        assertArrayEquals(readsFirst(x, x, x).toFloatArray(), f.apply(x, x, x).toFloatArray());
        assertArrayEquals(readsFirst(x, Tensor.randn(5, 5), Tensor.zeros(DType.FLOAT64, 2)).toFloatArray(),
                f.apply(x, Tensor.randn(5, 5), Tensor.zeros(DType.FLOAT64, 2)).toFloatArray());
        assertEquals(1, cc.frameCount(), "a and b are never read: no guard on them");
        List<String> guards = guards(frameOf(opts));
        assertTrue(guards.stream().noneMatch(g -> g.contains("L['a']") || g.contains("L['b']")), guards.toString());
        assertTrue(guards.stream().anyMatch(g -> g.startsWith("TENSOR_MATCH: L['x']")), guards.toString());
    }

    @Test
    void aliasingIsGuardedBetweenTheTensorsRead() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) LazyArgumentsTest::readsTwo, opts);
        Tensor x = Tensor.randn(3), a = Tensor.randn(3), b = Tensor.randn(3);
        f.apply(x, a, b);
        assertArrayEquals(readsTwo(x, a, a).toFloatArray(), f.apply(x, a, a).toFloatArray());
        assertEquals(1, cc.frameCount(), "b is not read: passing a for it changes nothing");
        assertArrayEquals(readsTwo(x, x, b).toFloatArray(), f.apply(x, x, b).toFloatArray());
        assertEquals(2, cc.frameCount(), "x for a: the graph was traced with two tensors");
        assertEquals("L['a'] is L['x']: the graph was traced with two distinct tensors", frameOf(opts).recompileReasons().getFirst().failedGuards().getFirst());
        f.apply(x, x, x);
        assertEquals(2, cc.frameCount());
        assertTrue(guards(frameOf(opts)).contains("NO_TENSOR_ALIASING: L['x'], L['a'] are distinct tensors"));
    }

    @Test
    void aCopyToAnotherLocalIsNoRead() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) LazyArgumentsTest::copiesThenReads, opts);
        Tensor x = Tensor.randn(3), a = Tensor.randn(3), b = Tensor.randn(3);
        assertArrayEquals(copiesThenReads(x, a, b).toFloatArray(), f.apply(x, a, b).toFloatArray());
        assertArrayEquals(copiesThenReads(x, a, x).toFloatArray(), f.apply(x, a, x).toFloatArray());
        assertArrayEquals(copiesThenReads(x, a, Tensor.randn(2, 2)).toFloatArray(), f.apply(x, a, Tensor.randn(2, 2)).toFloatArray());
        assertEquals(1, cc.frameCount(), "b is only copied: no guard on it");
        List<String> guards = guards(frameOf(opts));
        assertTrue(guards.stream().noneMatch(g -> g.contains("L['b']")), guards.toString());
    }

    static Tensor readsOneElement(List<Tensor> xs) { return xs.get(0).add(xs.size()); }

    static Tensor iterates(List<Tensor> xs) {
        Tensor sum = xs.get(0);
        for (Tensor x : xs) sum = sum.add(x.sum());
        return sum;
    }

    /**
     * A list's elements are wrapped one by one as the trace reads them: reading element 0 and the
     * size guards the length and element 0 only, so the others may change shape, dtype or aliasing
     * without a recompile, as Dynamo's lazy list items; iterating reads them all.
     */
    @Test
    void aListElementNeverReadIsNotGuarded() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((dev.ember.Fn1<List<Tensor>, Tensor>) LazyArgumentsTest::readsOneElement, opts);
        Tensor x = Tensor.randn(3);
        for (List<Tensor> xs : List.of(List.of(x, Tensor.randn(3), Tensor.randn(3)), List.of(x, Tensor.randn(7, 2), Tensor.zeros(DType.FLOAT64, 2)), List.of(x, x, x))) {
            assertArrayEquals(readsOneElement(xs).toFloatArray(), f.apply(xs).toFloatArray());
        }
        assertEquals(1, cc.frameCount(), "elements 1 and 2 are never read");
        List<String> guards = guards(frameOf(opts));
        assertTrue(guards.stream().noneMatch(g -> g.contains("L['xs'][1]") || g.contains("L['xs'][2]")), guards.toString());
        assertTrue(guards.stream().anyMatch(g -> g.startsWith("TENSOR_MATCH: L['xs'][0]")), guards.toString());
        assertArrayEquals(readsOneElement(List.of(x, x)).toFloatArray(), f.apply(List.of(x, x)).toFloatArray());
        assertEquals(2, cc.frameCount(), "the length is read: guarded");

        Ember.reset();
        CompileCounter all = new CompileCounter();
        var g = Ember.compile((dev.ember.Fn1<List<Tensor>, Tensor>) LazyArgumentsTest::iterates, Options.backend(all));
        List<Tensor> ys = List.of(x, Tensor.randn(3));
        assertArrayEquals(iterates(ys).toFloatArray(), g.apply(ys).toFloatArray(), 1e-6f);
        List<Tensor> zs = List.of(x, Tensor.randn(4));
        assertArrayEquals(iterates(zs).toFloatArray(), g.apply(zs).toFloatArray(), 1e-6f);
        assertEquals(2, all.frameCount(), "iterating reads every element: a new shape for element 1 recompiles");
    }
}
