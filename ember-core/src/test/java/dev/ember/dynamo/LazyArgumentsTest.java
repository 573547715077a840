package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Fn4;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

    static Tensor copiesThenReads(Tensor x, Tensor a, Tensor b) {
        Tensor kept = b;          // a copy to another local is no read
        Tensor y = x.mul(2);
        return kept == null ? y : y.add(a);
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
        // the null check reads b: it is guarded from there on (as a value read), but x for a recompiles only through a
        List<String> guards = guards(frameOf(opts));
        assertTrue(guards.stream().anyMatch(g -> g.startsWith("TENSOR_MATCH: L['b']")), "the comparison with null reads b: " + guards);
        assertEquals(1, cc.frameCount());
    }

    static Tensor branchesOnEach(Tensor x, Tensor c1, Tensor c2, Tensor c3) {
        x = x.add(1);
        if (c1.asBoolean()) x = x.add(2);
        x = x.add(3);
        if (c2.asBoolean()) x = x.add(4);
        x = x.add(5);
        if (c3.asBoolean()) x = x.add(6);
        return x.add(7);
    }

    /**
     * test_subgraphs.py::test_resume_paths_join: eight calls, one per path through three data-dependent
     * branches, with one tensor object as every true condition. A condition carried to a resume method
     * unread is not guarded there, so the paths join: 7 graphs and 10 ops, as PyTorch 2.13 compiles.
     */
    @Test
    void pathsThroughBreaksJoinAtEachResume() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn4<Tensor, Tensor, Tensor, Tensor, Tensor>) LazyArgumentsTest::branchesOnEach, opts);
        Tensor x = Tensor.randn(10), t = Tensor.of(1f), no = Tensor.of(0f);
        for (int round = 0; round < 2; round++) {
            for (Tensor a : List.of(t, no)) for (Tensor b : List.of(t, no)) for (Tensor c : List.of(t, no)) {
                assertArrayEquals(branchesOnEach(x, a, b, c).toFloatArray(), f.apply(x, a, b, c).toFloatArray(), 1e-6f);
            }
        }
        assertEquals(7, cc.frameCount());
        assertEquals(10, cc.opCount());
        // one resume method per break, however many paths reach it
        long resumeFrames = FrameRegistry.frames().stream().filter(fr -> fr.name().contains("resume_in_")).count();
        assertEquals(3, resumeFrames, FrameRegistry.frames().toString());
        assertFalse(FrameRegistry.frames().stream().anyMatch(fr -> fr.name().contains("resume_in_resume_in")), "resume methods are not nested per path");
    }

    static Tensor nestedIfs(Tensor x, Tensor c1, Tensor c2) {
        x = x.add(1);
        if (c1.asBoolean()) {
            x = x.mul(2);
            if (c2.asBoolean()) x = x.add(3);
            x = x.sub(1);
        }
        return x.add(5);
    }

    /** Nested data-dependent ifs, every path twice: 5 graphs and 8 ops, as PyTorch 2.13 compiles them; one resume method per break. */
    @Test
    void nestedIfsCompileOneResumeMethodPerBreak() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) LazyArgumentsTest::nestedIfs, opts);
        Tensor x = Tensor.randn(4), t = Tensor.of(1f), no = Tensor.of(0f);
        for (int round = 0; round < 2; round++) {
            for (Tensor a : List.of(t, no)) for (Tensor b : List.of(t, no)) {
                assertArrayEquals(nestedIfs(x, a, b).toFloatArray(), f.apply(x, a, b).toFloatArray(), 1e-6f);
            }
        }
        assertEquals(5, cc.frameCount());
        assertEquals(8, cc.opCount());
        assertEquals(2, FrameRegistry.frames().stream().filter(fr -> fr.name().contains("resume_in_")).count(), FrameRegistry.frames().toString());
    }

    static Tensor halveUntilBelow(Tensor x, Tensor limit) {
        for (int i = 0; i < 20; i++) {
            x = x.mul(0.5);
            if (x.abs().sum().lt(limit).asBoolean()) break;
        }
        return x.add(1);
    }

    /**
     * A loop that leaves by a data-dependent {@code break}: each iteration's branch is a break at the same
     * position, continuing in the same resume method, so the graphs are bounded whatever the trip count.
     */
    @Test
    void aLoopLeftByADataDependentBreakCompilesABoundedNumberOfGraphs() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) LazyArgumentsTest::halveUntilBelow, opts);
        Tensor limit = Tensor.of(1f);
        int afterFirst = -1;
        for (float scale : new float[] {3f, 40f, 700f, 9000f, 0.5f, 100000f}) {
            Tensor x = Tensor.ones(3).mul(scale);
            assertArrayEquals(halveUntilBelow(x, limit).toFloatArray(), f.apply(x, limit).toFloatArray(), 1e-6f, "scale " + scale);
            if (afterFirst < 0 && scale == 40f) afterFirst = cc.frameCount();
        }
        assertEquals(afterFirst, cc.frameCount(), "trip counts of 2 to 17 iterations compile nothing more once both sides of the break exist");
        assertTrue(cc.frameCount() <= 5, "graphs: " + cc.frameCount());
        assertEquals(1, FrameRegistry.frames().stream().filter(fr -> fr.name().contains("resume_in_")).count(), FrameRegistry.frames().toString());
    }
}
