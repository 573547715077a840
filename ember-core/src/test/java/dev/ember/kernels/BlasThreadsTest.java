package dev.ember.kernels;

import dev.ember.tuning.Machine;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** OpenBLAS runs its products on one thread while a kernel warms, and on every thread again after; the products agree. */
class BlasThreadsTest {
    private static int libraryThreads() throws Throwable {
        return (int) OpenBlas.GET_THREADS.invokeExact();
    }

    @Test
    void productsRunOnOneThreadWhileAKernelWarmsAndOnAllAfter() throws Throwable {
        assumeTrue(Blas.nativeAvailable() && NativeBlas.Loaded.SET_OPENBLAS_THREADS != null && OpenBlas.GET_THREADS != null
                && Machine.current().threads() > 1, "OpenBLAS with the thread count Ember sets, on more than one core");
        int m = 96, n = 512, k = 384, all = Machine.current().threads();
        float[] a = ColdStartTest.random(m * k, 1), b = ColdStartTest.random(k * n, 2), beside = new float[m * n], alone = new float[m * n];

        CountDownLatch release = new CountDownLatch(1), started = new CountDownLatch(1);
        ColdStart.Tier blocked = ColdStart.tier("a slice that waits", 1, () -> {
            started.countDown();
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        blocked.exercise();
        try {
            assertTrue(started.await(60, TimeUnit.SECONDS));
            assertTrue(ColdStart.warming());
            Blas.sgemm(false, false, m, n, k, 1f, a, 0, k, b, 0, n, 0f, beside, 0, n);
            assertEquals(1, libraryThreads(), "while a kernel warms, one OpenBLAS thread");
            assertEquals(1, BlasThreads.current());
        } finally {
            release.countDown();
        }
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (ColdStart.warming() && System.nanoTime() < deadline) Thread.sleep(1);
        assertFalse(ColdStart.warming());
        Blas.sgemm(false, false, m, n, k, 1f, a, 0, k, b, 0, n, 0f, alone, 0, n);
        assertEquals(all, libraryThreads(), "nothing warms: every thread again");
        // the count changes speed only: each element is summed over k by one thread either way
        assertArrayEquals(alone, beside);
    }
}
