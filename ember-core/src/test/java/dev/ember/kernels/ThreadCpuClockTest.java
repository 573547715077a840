package dev.ember.kernels;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The clock {@link ColdStart} times warm-up slices by counts the thread's time on a core, not the
 * time it waited: a sleeping thread's clock hardly moves, a spinning one's does.
 */
class ThreadCpuClockTest {
    @Test
    void isTheThreadsCpuTimeOnLinuxAndMac() {
        String os = System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT);
        if (os.contains("linux") || os.contains("mac")) assertTrue(ThreadCpuClock.isCpuTime(), "clock_gettime(CLOCK_THREAD_CPUTIME_ID) on " + os);
    }

    @Test
    void aSleepingThreadsClockStandsAndASpinningOnesRuns() throws InterruptedException {
        if (!ThreadCpuClock.isCpuTime()) return;   // the wall-clock fallback has nothing to show here
        long before = ThreadCpuClock.nanos();
        Thread.sleep(300);
        long slept = ThreadCpuClock.nanos() - before;
        assertTrue(slept < 100_000_000L, "300 ms asleep counted " + slept / 1e6 + " ms of CPU time");

        long start = ThreadCpuClock.nanos(), wallEnd = System.nanoTime() + 10_000_000_000L;
        double sink = 0;
        while (ThreadCpuClock.nanos() - start < 50_000_000L && System.nanoTime() < wallEnd) sink += Math.sqrt(sink + 1);
        assertTrue(ThreadCpuClock.nanos() - start >= 50_000_000L, "10 s of spinning did not reach 50 ms of CPU time (" + sink + ")");
    }
}
