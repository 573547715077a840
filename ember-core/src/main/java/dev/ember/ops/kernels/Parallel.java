package dev.ember.ops.kernels;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;

/**
 * Splits a range of independent work items across the cores. Small ranges run on the caller's
 * thread: forking costs microseconds, so it pays only above a few tens of thousands of elements.
 */
public final class Parallel {
    /** Elements below which a loop runs single-threaded (ATen uses 32768 as its grain). */
    public static final int GRAIN = 32_768;
    private static final int THREADS = Math.max(1, Runtime.getRuntime().availableProcessors());

    private Parallel() {}

    @FunctionalInterface
    public interface Range { void run(int lo, int hi); }

    /** Runs {@code body} over [0, n) in chunks; {@code costPerItem} elements of work per item decide the split. */
    public static void forRange(int n, long costPerItem, Range body) {
        long total = n * Math.max(1, costPerItem);
        if (THREADS == 1 || n < 2 || total < GRAIN || ForkJoinPool.getCommonPoolParallelism() < 1 || inWorker()) {
            body.run(0, n);
            return;
        }
        int chunks = (int) Math.min(n, Math.min(THREADS * 4L, total / GRAIN));
        if (chunks < 2) {
            body.run(0, n);
            return;
        }
        ForkJoinPool.commonPool().invoke(new Split(body, 0, n, Math.max(1, n / chunks)));
    }

    private static boolean inWorker() {
        return Thread.currentThread() instanceof java.util.concurrent.ForkJoinWorkerThread;
    }

    private static final class Split extends RecursiveAction {
        private final Range body;
        private final int lo, hi, grain;

        Split(Range body, int lo, int hi, int grain) {
            this.body = body;
            this.lo = lo;
            this.hi = hi;
            this.grain = grain;
        }

        @Override
        protected void compute() {
            if (hi - lo <= grain) {
                body.run(lo, hi);
                return;
            }
            int mid = (lo + hi) >>> 1;
            invokeAll(new Split(body, lo, mid, grain), new Split(body, mid, hi, grain));
        }
    }
}
