package dev.ember.kernels;

import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Parallel.forRange covers every item once, uses every core (the caller too) from a loop's second run, and runs nested loops inline. */
class ParallelTest {

    @Test
    void everyItemRunsExactlyOnce() {
        int n = 100_003;
        AtomicIntegerArray seen = new AtomicIntegerArray(n);
        Parallel.forRange(n, 16, (lo, hi) -> { for (int i = lo; i < hi; i++) seen.incrementAndGet(i); });
        for (int i = 0; i < n; i++) assertEquals(1, seen.get(i), "item " + i);
    }

    @Test
    void aLargeLoopRunsOnTheCallerAndAnotherCore() {
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "needs two cores");
        Thread caller = Thread.currentThread();
        boolean bothInOneCall = false;
        for (int attempt = 0; attempt < 10 && !bothInOneCall; attempt++) {
            Set<Thread> threads = ConcurrentHashMap.newKeySet();
            Parallel.forRange(64, 1 << 20, (lo, hi) -> {
                threads.add(Thread.currentThread());
                long deadline = System.nanoTime() + 2_000_000;   // long enough for a worker to steal the other half
                while (System.nanoTime() < deadline) Thread.onSpinWait();
            });
            bothInOneCall = threads.contains(caller) && threads.size() >= 2;
        }
        assertTrue(bothInOneCall, "one loop runs on the caller and on another core at once");
    }

    @Test
    void aLoopsFirstRunStaysOnTheCallerAndLaterRunsSplit() {
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "needs two cores");
        Thread caller = Thread.currentThread();
        Set<Thread> first = ConcurrentHashMap.newKeySet();
        spinningLoop(first);
        assertEquals(Set.of(caller), first, "a loop's first run (interpreted, in a cold JVM) is not split");
        boolean split = false;
        for (int attempt = 0; attempt < 10 && !split; attempt++) {
            Set<Thread> later = ConcurrentHashMap.newKeySet();
            spinningLoop(later);
            split = later.size() >= 2;
        }
        assertTrue(split, "the same loop's later runs use another core too");
    }

    @Test
    void eachBodyOfAGeneratedClassHasItsOwnFirstRun() {
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "needs two cores");
        Thread caller = Thread.currentThread();
        Set<Thread> body0 = ConcurrentHashMap.newKeySet(), body1 = ConcurrentHashMap.newKeySet();
        Parallel.Bodies bodies = (body, captured, lo, hi) -> spin(body == 0 ? body0 : body1);
        Parallel.forBody(64, 1 << 20, bodies, 0, new Object[0]);
        for (int attempt = 0; attempt < 10 && body0.size() < 2; attempt++) Parallel.forBody(64, 1 << 20, bodies, 0, new Object[0]);
        assertTrue(body0.size() >= 2, "body 0 splits once it has run");
        Parallel.forBody(64, 1 << 20, bodies, 1, new Object[0]);
        assertEquals(Set.of(caller), body1, "body 1's first run stays on the caller though body 0 of its class has run");
    }

    private static void spinningLoop(Set<Thread> threads) {
        Parallel.forRange(64, 1 << 20, (lo, hi) -> spin(threads));
    }

    private static void spin(Set<Thread> threads) {
        threads.add(Thread.currentThread());
        long deadline = System.nanoTime() + 500_000;   // long enough for a worker to steal a chunk
        while (System.nanoTime() < deadline) Thread.onSpinWait();
    }

    @Test
    void nestedLoopsRunInsideTheirChunkAndFailuresReachTheCaller() {
        java.util.concurrent.atomic.AtomicInteger elsewhere = new java.util.concurrent.atomic.AtomicInteger();
        Parallel.forRange(8, 1 << 20, (lo, hi) -> {
            Thread outer = Thread.currentThread();
            Parallel.forRange(8, 1 << 20, (a, b) -> { if (Thread.currentThread() != outer) elsewhere.incrementAndGet(); });
        });
        assertEquals(0, elsewhere.get(), "a nested loop stays on its chunk's thread");
        var e = assertThrows(IllegalStateException.class, () -> Parallel.forRange(64, 1 << 20, (lo, hi) -> {
            throw new IllegalStateException("boom in [" + lo + ", " + hi + ")");
        }));
        assertTrue(e.getMessage().startsWith("boom"), e.getMessage());
    }
}
