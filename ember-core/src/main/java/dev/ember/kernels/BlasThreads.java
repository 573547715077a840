package dev.ember.kernels;

import dev.ember.tuning.Machine;

import java.lang.invoke.MethodHandle;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * How many threads OpenBLAS runs a product on: one while one of Ember's kernels warms
 * ({@link ColdStart#warming}), all of the machine's otherwise.
 *
 * <p>Why: while a kernel warms, the warming thread and the JIT's compiler threads hold the other
 * core, and a product split over two OpenBLAS threads waits for the half whose thread is not
 * running. In a fresh JVM the MLP's first compiled call, whose products OpenBLAS computes while
 * {@code GemmDot} warms, took 124-129 ms with two OpenBLAS threads and 46-50 ms with one, and its
 * next three calls 20-75 ms against 14-28 (docs/benchmarks.md, session 36). Once nothing warms,
 * the products get every thread back.
 *
 * <p>Safety: {@code openblas_set_num_threads} must not run while a product is in flight (OpenBLAS
 * reads the count as a call starts, and its thread pool is shared), so every native product holds
 * the read side of a lock and a change takes the write side, without waiting: a change that would
 * wait for a product in flight is left to the next product. Only OpenBLAS, and only when Ember set
 * its thread count: a user's {@code OPENBLAS_NUM_THREADS}, oneMKL and a one-core machine are left
 * alone. The count changes speed only: a product's result does not depend on its threads.
 */
final class BlasThreads {
    private BlasThreads() {}

    private static final ReentrantReadWriteLock PRODUCTS = new ReentrantReadWriteLock();
    /** The machine's threads: OpenBLAS's count when nothing warms (set so when it loaded). */
    private static final int ALL = Machine.current().threads();
    /** The count OpenBLAS is set to now; written under the write lock. */
    private static volatile int current = ALL;

    /**
     * Sets the thread count this product should run with, if it can without waiting, and returns
     * the held read lock, which the caller releases when the product has returned.
     */
    static Lock enter() {
        MethodHandle set = NativeBlas.Loaded.SET_OPENBLAS_THREADS;
        if (set != null && ALL > 1) {
            int wanted = ColdStart.warming() ? 1 : ALL;
            if (wanted != current && PRODUCTS.writeLock().tryLock()) {
                try {
                    set.invokeExact(wanted);
                    current = wanted;
                } catch (Throwable t) {
                    throw new IllegalStateException("openblas_set_num_threads(" + wanted + ") failed", t);
                } finally {
                    PRODUCTS.writeLock().unlock();
                }
            }
        }
        Lock product = PRODUCTS.readLock();
        product.lock();
        return product;
    }

    /** The count OpenBLAS runs products with now (tests). */
    static int current() { return current; }
}
