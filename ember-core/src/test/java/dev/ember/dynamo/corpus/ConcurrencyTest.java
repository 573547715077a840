package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** 16 threads call one compiled function with varying shapes: every result equals eager, each shape is traced once. */
class ConcurrencyTest {

    @AfterEach
    void reset() { Ember.reset(); }

    private static final int[][] SHAPES = {{3, 4}, {2, 6}, {6, 2}, {1, 12}, {12, 1}};

    @Test
    void sixteenThreadsVaryingShapes() throws Exception {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc).dynamic(false);
        int entries = callFromSixteenThreads(opts);
        assertEquals(SHAPES.length, entries, "static sizes: one cache entry per shape");
        assertTrue(entries <= opts.getRecompileLimit());
        assertEquals(SHAPES.length, cc.frameCount(), "no shape may be traced twice");
    }

    @Test
    void sixteenThreadsVaryingShapesWithAutomaticDynamic() throws Exception {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        int entries = callFromSixteenThreads(opts);
        // sizes of 1 are specialized: at most the first shape, the symbolic graph, and the two shapes with a 1
        assertTrue(entries <= 4, "entries: " + entries);
        assertEquals(entries, cc.frameCount(), "no entry may be traced twice");
    }

    /** 16 threads × 40 calls of transposeView over {@link #SHAPES}, each checked against eager; the cache entries made. */
    private static int callFromSixteenThreads(Options opts) throws Exception {
        var f = Ember.compile((Fn1<Tensor, Tensor>) Programs::transposeView, opts);
        int[][] shapes = SHAPES;
        ExecutorService pool = Executors.newFixedThreadPool(16);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> results = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            int seed = t;
            results.add(pool.submit(() -> {
                start.await();
                int checked = 0;
                for (int i = 0; i < 40; i++) {
                    int[] s = shapes[(seed + i) % shapes.length];
                    Tensor x = Tensor.randn(s);
                    Tensor expected = Programs.transposeView(x);
                    Tensor actual = f.apply(x);
                    if (!expected.sameData(actual)) throw new AssertionError("thread " + seed + " call " + i + ": compiled result differs from eager");
                    checked++;
                }
                return checked;
            }));
        }
        start.countDown();
        int total = 0;
        for (Future<Integer> r : results) total += r.get(60, TimeUnit.SECONDS);
        pool.shutdown();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        assertEquals(16 * 40, total);
        return CorpusTest.frameOf(opts).entries().size();
    }
}
