package dev.ember.kernels;

import dev.ember.tuning.Machine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RecursiveAction;

/**
 * Splits a range of independent work items across the cores. Small ranges run on the caller's
 * thread: forking costs microseconds, so it pays only above a few tens of thousands of elements.
 *
 * <p>The calling thread works too: it runs the root task itself, forking halves to the common pool
 * and taking back the ones no worker has stolen yet. Handing the whole range to the pool instead
 * ({@code pool.invoke}) leaves the caller parked, and the common pool has one worker fewer than
 * there are cores, so on two cores a "parallel" loop ran on one.
 */
public final class Parallel {
    /** Elements below which a loop runs single-threaded (ATen uses 32768 as its grain). */
    public static final int GRAIN = 32_768;
    private static final int THREADS = Machine.current().threads();
    /** Set while a caller thread runs a split loop, so loops nested in its chunks run sequentially like a worker's. */
    private static final ThreadLocal<Boolean> SPLITTING = ThreadLocal.withInitial(() -> false);

    private Parallel() {}

    @FunctionalInterface
    public interface Range { void run(int lo, int hi); }

    /**
     * The parallel bodies of one generated class, run by number with the values they captured:
     * what a graph class implements instead of binding each body to a {@link Range} through the
     * {@code LambdaMetafactory}, which spins and links a class per body (17 or 18 in a transformer
     * layer's graph, in every fresh JVM and for every graph loaded from the artifact cache).
     */
    public interface Bodies { void run(int body, Object[] captured, int lo, int hi); }

    /** {@link #forRange} over body number {@code body} of {@code bodies}, given the values it captured. */
    public static void forBody(int n, long costPerItem, Bodies bodies, int body, Object[] captured) {
        split(n, costPerItem, (lo, hi) -> bodies.run(body, captured, lo, hi), bodies.getClass(), body);
    }

    /** Runs {@code body} over [0, n) in chunks; {@code costPerItem} elements of work per item decide the split. */
    public static void forRange(int n, long costPerItem, Range body) {
        split(n, costPerItem, body, body.getClass(), 0);
    }

    /** The loop numbered {@code number} in {@code loop}'s class (a generated graph's body, a kernel's lambda). */
    private static void split(int n, long costPerItem, Range body, Class<?> loop, int number) {
        long total = n * Math.max(1, costPerItem);
        if (THREADS == 1 || n < 2 || total < GRAIN || ForkJoinPool.getCommonPoolParallelism() < 1 || nested()
                || firstRun(loop, number)) {
            body.run(0, n);
            return;
        }
        int chunks = (int) Math.min(n, Math.min(THREADS * 4L, total / GRAIN));
        if (chunks < 2) {
            body.run(0, n);
            return;
        }
        SPLITTING.set(true);
        try {
            new Split(body, 0, n, Math.max(1, n / chunks)).invoke();
        } catch (RuntimeException e) {
            throw (RuntimeException) original(e);
        } catch (Error e) {
            throw (Error) original(e);
        } finally {
            SPLITTING.set(false);
        }
    }

    /**
     * The exception a chunk threw, as it threw it. A task that failed on another thread rethrows a
     * new exception of the same class, made reflectively, with the original as its cause and
     * without its message: an integer division's "ZeroDivisionError" came out as a bare
     * ArithmeticException.
     */
    private static Throwable original(Throwable e) {
        Throwable cause = e.getCause();
        return cause != null && cause.getClass() == e.getClass() ? cause : e;
    }

    /**
     * Whether this is the loop's first run, which stays on the caller's thread. A loop's first run is
     * interpreted code in a JVM that has not compiled it yet: a worker thread started on half of it
     * interprets too, competing for the other core with the JIT's compiler threads, which are what
     * make the second run fast. Measured on the first compiled training step in a fresh JVM
     * (docs/benchmarks.md, session 31): a transformer encoder layer's went from 1,042-1,057 ms to
     * 871-1,017, a Conv-BN-ReLU stack's did not move; making every run serial (session 30) had also
     * sped the first step up, but slowed the second 1.6x.
     */
    private static boolean firstRun(Class<?> loop, int number) {
        Set<Integer> ran = RAN.get(loop);
        return !ran.contains(number) && ran.add(number);
    }

    /** The loops of each class that have run once (by number; a kernel's lambda class has one, numbered 0). */
    private static final ClassValue<Set<Integer>> RAN = new ClassValue<>() {
        @Override
        protected Set<Integer> computeValue(Class<?> loop) {
            return ConcurrentHashMap.newKeySet();
        }
    };

    /** True inside a chunk: nested loops run sequentially, the outer split already uses every core. */
    private static boolean nested() {
        return Thread.currentThread() instanceof ForkJoinWorkerThread || SPLITTING.get();
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
