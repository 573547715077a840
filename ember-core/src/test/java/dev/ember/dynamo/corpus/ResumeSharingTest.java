package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Fn4;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.FrameRegistry;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Resume methods are shared by the position of their break: paths through several data-dependent
 * branches join at each resume method (its cache entries serve every path that reaches it), and the
 * number of resume methods and graphs is bounded by the code, not by the paths or the trip count.
 */
class ResumeSharingTest {

    @AfterEach
    void reset() { Ember.reset(); }

    private static long resumeFrames() { return FrameRegistry.frames().stream().filter(fr -> fr.name().contains("resume_in_")).count(); }

    /**
     * test_subgraphs.py::test_resume_paths_join: eight calls, one per path through three data-dependent
     * branches, with one tensor object as every true condition, twice. A condition carried to a resume
     * method unread is not guarded there, so the paths join: 7 graphs and 10 ops, as PyTorch 2.13 compiles.
     */
    @Test
    void pathsThroughBreaksJoinAtEachResume() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn4<Tensor, Tensor, Tensor, Tensor, Tensor>) PyTorchBreakPrograms::resumePathsJoin, Options.backend(cc));
        Tensor x = Tensor.randn(10), t = Tensor.of(1f), no = Tensor.of(0f);
        for (int round = 0; round < 2; round++) {
            for (Tensor a : List.of(t, no)) for (Tensor b : List.of(t, no)) for (Tensor c : List.of(t, no)) {
                assertArrayEquals(PyTorchBreakPrograms.resumePathsJoin(x, a, b, c).toFloatArray(), f.apply(x, a, b, c).toFloatArray(), 1e-6f);
            }
        }
        assertEquals(7, cc.frameCount());
        assertEquals(10, cc.opCount());
        assertEquals(3, resumeFrames(), "one resume method per break, however many paths reach it: " + FrameRegistry.frames());
        assertFalse(FrameRegistry.frames().stream().anyMatch(fr -> fr.name().contains("resume_in_resume_in")), "resume methods are not nested per path");
    }

    /** Nested data-dependent ifs, every path twice: 5 graphs and 8 ops, as PyTorch 2.13 compiles them; one resume method per break. */
    @Test
    void nestedIfsCompileOneResumeMethodPerBreak() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) PyTorchBreakPrograms::nestedPathsJoin, Options.backend(cc));
        Tensor x = Tensor.randn(4), t = Tensor.of(1f), no = Tensor.of(0f);
        for (int round = 0; round < 2; round++) {
            for (Tensor a : List.of(t, no)) for (Tensor b : List.of(t, no)) {
                assertArrayEquals(PyTorchBreakPrograms.nestedPathsJoin(x, a, b).toFloatArray(), f.apply(x, a, b).toFloatArray(), 1e-6f);
            }
        }
        assertEquals(5, cc.frameCount());
        assertEquals(8, cc.opCount());
        assertEquals(2, resumeFrames(), FrameRegistry.frames().toString());
    }

    static Tensor halveUntilBelow(Tensor x, Tensor limit) {
        for (int i = 0; i < 20; i++) {
            x = x.mul(0.5);
            if (x.abs().sum().lt(limit).asBoolean()) break;
        }
        return x.add(1);
    }

    /**
     * A loop left by a data-dependent {@code break}: each iteration's branch is a break at the same
     * position, continuing in the same resume method, so the graphs are bounded whatever the trip count.
     */
    @Test
    void aLoopLeftByADataDependentBreakCompilesABoundedNumberOfGraphs() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) ResumeSharingTest::halveUntilBelow, Options.backend(cc));
        Tensor limit = Tensor.of(1f);
        int afterFirstTwo = -1;
        for (float scale : new float[] {3f, 40f, 700f, 9000f, 0.5f, 100000f}) {
            Tensor x = Tensor.ones(3).mul(scale);
            assertArrayEquals(halveUntilBelow(x, limit).toFloatArray(), f.apply(x, limit).toFloatArray(), 1e-6f, "scale " + scale);
            if (scale == 40f) afterFirstTwo = cc.frameCount();
        }
        assertEquals(afterFirstTwo, cc.frameCount(), "trip counts of 1 to 18 iterations compile nothing more once both sides of the break exist");
        assertTrue(cc.frameCount() <= 5, "graphs: " + cc.frameCount());
        assertEquals(1, resumeFrames(), FrameRegistry.frames().toString());
    }
}
