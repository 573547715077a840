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

    @Test
    void sixteenThreadsVaryingShapes() throws Exception {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn1<Tensor, Tensor>) Programs::transposeView, opts);
        int[][] shapes = {{3, 4}, {2, 6}, {6, 2}, {1, 12}, {12, 1}};
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
        int entries = CorpusTest.frameOf(opts).entries().size();
        assertEquals(shapes.length, entries, "one cache entry per shape");
        assertTrue(entries <= opts.getRecompileLimit());
        assertEquals(shapes.length, cc.frameCount(), "no shape may be traced twice");
    }
}
