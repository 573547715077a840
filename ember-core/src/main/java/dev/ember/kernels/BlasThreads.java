package dev.ember.kernels;

import dev.ember.tuning.Machine;

import java.lang.invoke.MethodHandle;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * How many threads OpenBLAS runs a product on: one for a product computed in place of a Java
 * kernel that is still cold ({@link Blas#sgemmOnOneThread}, from {@link Gemm} while
 * {@link ColdStart} warms the kernel), all of the machine's for every other.
 *
 * <p>Why: while a kernel warms, the warming thread and the JIT's compiler threads hold the other
 * core, and a product split over two OpenBLAS threads waits for the half whose thread is not
 * running. In a fresh JVM the MLP's first compiled call, whose products OpenBLAS computes while
 * {@code GemmDot} warms, took 124-129 ms with two OpenBLAS threads and 46-50 ms with one
 * (docs/benchmarks.md, session 36).
 *
 * <p>Which count a product runs with is decided by the call alone, never by timing: OpenBLAS's
 * result can differ in the last bits between one thread and two, so a product of the same call
 * gives the same bits every time. (A cold kernel's products were already OpenBLAS's where the hot
 * kernel's are its own, docs/tuning.md.) {@code openblas_set_num_threads} must not run while a
 * product is in flight (OpenBLAS reads the count as a call starts), so every native product holds
 * the read side of a lock under which the count is the one it wants; a change takes the write side
 * and downgrades to the read side. Only OpenBLAS, and only when Ember set its thread count: a user's
 * {@code OPENBLAS_NUM_THREADS}, oneMKL and a one-core machine are left alone.
 */
final class BlasThreads {
    private BlasThreads() {}

    private static final ReentrantReadWriteLock PRODUCTS = new ReentrantReadWriteLock();
    /** The machine's threads: OpenBLAS's count for every other product (set so when it loaded). */
    private static final int ALL = Machine.current().threads();
    /** The count OpenBLAS is set to now; written under the write lock. */
    private static volatile int current = ALL;

    /**
     * Holds the count a product wants ({@code oneThread}: 1, else all) until the returned read lock
     * is released, which the caller does when the product has returned.
     */
    static Lock enter(boolean oneThread) {
        Lock product = PRODUCTS.readLock();
        MethodHandle set = NativeBlas.Loaded.SET_OPENBLAS_THREADS;
        int wanted = oneThread ? 1 : ALL;
        product.lock();
        if (set == null || ALL == 1 || current == wanted) return product;
        product.unlock();
        PRODUCTS.writeLock().lock();
        try {
            if (current != wanted) {
                set.invokeExact(wanted);
                current = wanted;
            }
            product.lock();   // downgrade: no other count until this product returns
        } catch (Throwable t) {
            throw new IllegalStateException("openblas_set_num_threads(" + wanted + ") failed", t);
        } finally {
            PRODUCTS.writeLock().unlock();
        }
        return product;
    }

    /** The count OpenBLAS runs products with now (tests). */
    static int current() { return current; }
}
