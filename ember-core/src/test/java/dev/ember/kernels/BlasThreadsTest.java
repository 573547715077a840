package dev.ember.kernels;

import dev.ember.tuning.Machine;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A product in place of a cold kernel runs on one OpenBLAS thread, every other on all; the same call gives the same bits. */
class BlasThreadsTest {
    private static int libraryThreads() throws Throwable {
        return (int) OpenBlas.GET_THREADS.invokeExact();
    }

    @Test
    void eachProductRunsWithTheCountItsCallAsksFor() throws Throwable {
        assumeTrue(Blas.nativeAvailable() && NativeBlas.Loaded.SET_OPENBLAS_THREADS != null && OpenBlas.GET_THREADS != null
                && Machine.current().threads() > 1, "OpenBLAS with the thread count Ember sets, on more than one core");
        int m = 96, n = 512, k = 384, all = Machine.current().threads();
        float[] a = ColdStartTest.random(m * k, 1), b = ColdStartTest.random(k * n, 2);
        float[] alone = new float[m * n], aloneAgain = new float[m * n], shared = new float[m * n], sharedAgain = new float[m * n];

        Blas.sgemmOnOneThread(false, false, m, n, k, 1f, a, 0, k, b, 0, n, 0f, alone, 0, n);
        assertEquals(1, libraryThreads(), "a product in place of a cold kernel: one OpenBLAS thread");
        Blas.sgemm(false, false, m, n, k, 1f, a, 0, k, b, 0, n, 0f, shared, 0, n);
        assertEquals(all, libraryThreads(), "any other product: every thread");
        Blas.sgemmOnOneThread(false, false, m, n, k, 1f, a, 0, k, b, 0, n, 0f, aloneAgain, 0, n);
        Blas.sgemm(false, false, m, n, k, 1f, a, 0, k, b, 0, n, 0f, sharedAgain, 0, n);
        // the count follows the call, not the moment: the same call, the same bits
        assertArrayEquals(alone, aloneAgain);
        assertArrayEquals(shared, sharedAgain);
    }
}
