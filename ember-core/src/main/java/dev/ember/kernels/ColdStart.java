package dev.ember.kernels;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Ember's Java SIMD kernels are fast only once the JIT's C2 has compiled them: until then every
 * Vector API operation runs its fallback (a lambda per lane, objects allocated per operation), a
 * hundred times slower than compiled. In a fresh JVM that made the first call of a model spend
 * most of its time in the first GEMMs ({@link GemmDot}'s tiles, interpreted: the first MLP call
 * took 0.8–1 s, docs/benchmarks.md), while OpenBLAS, compiled ahead of time, is as fast on the
 * first call as on the thousandth.
 *
 * <p>So, as a JIT's tiers do for code, the kernels have tiers: while a Java kernel is cold, a
 * product it would compute runs on OpenBLAS (when OpenBLAS is available), and the Java kernel
 * computes a small slice of scratch operands on a daemon thread ({@link #exercise}; the result is
 * thrown away, and one slice per kernel at a time is under way) so that the JIT sees it run and
 * compiles it. Each slice is timed; once one runs at
 * compiled speed ({@link #HOT_FLOPS_PER_NANO}: at least 2 GFLOP/s on one thread, twenty times
 * what the fallback reaches and a tenth of what C2's code does on any vector machine) the kernel
 * is hot for the rest of the process and computes its products itself. Results change only in
 * rounding (OpenBLAS and the Java kernel sum in different orders), as they already do across the
 * JIT's tiers.
 *
 * <p>{@code EMBER_COLD_START=java} (or {@code -Dember.coldStart=java}) turns this off: the Java
 * kernels run from the first call, interpreted.
 */
final class ColdStart {
    private ColdStart() {}

    /** The Java kernels this tiering covers. */
    enum Kernel { DOT, BROADCAST }

    /** A slice runs at compiled speed from this many float operations per nanosecond (2 GFLOP/s). */
    static final double HOT_FLOPS_PER_NANO = 2.0;
    /** Rows of a slice: a whole 4-row tile and one row left over, so both of the kernels' tile shapes get compiled. */
    static final int SLICE_ROWS = 5;
    /** Columns of a slice: two of {@link GemmBroadcast}'s 64-column tiles, 32 of {@link GemmDot}'s 4-column ones. */
    static final int SLICE_COLUMNS = 128;
    /** Reduction steps of a slice: enough loop iterations for the JIT's back-edge counters, few enough to stay cheap cold. */
    static final int SLICE_REDUCTION = 128;

    static final boolean ENABLED = !"java".equals(System.getProperty("ember.coldStart", System.getenv("EMBER_COLD_START")));

    /** Per kernel: 1 once a slice ran at compiled speed. */
    private static final AtomicIntegerArray HOT = new AtomicIntegerArray(Kernel.values().length);
    /** Per kernel: how many products OpenBLAS ran while it was cold (for tests and the trace of a cold start). */
    private static final AtomicIntegerArray COLD_PRODUCTS = new AtomicIntegerArray(Kernel.values().length);

    /** Per thread: the slice's operands (their values do not matter: the result is thrown away) and its result. */
    private static final ThreadLocal<float[][]> SCRATCH = ThreadLocal.withInitial(() -> new float[][] {
            filled(SLICE_ROWS * SLICE_REDUCTION), filled(SLICE_COLUMNS * SLICE_REDUCTION), new float[SLICE_ROWS * SLICE_COLUMNS]});

    private static float[] filled(int length) {
        float[] x = new float[length];
        for (int i = 0; i < length; i++) x[i] = (i % 7) * 0.25f - 0.75f;
        return x;
    }

    /** Whether {@code kernel}'s products should still run elsewhere: the tiering is on, the kernel is cold, and OpenBLAS is there. */
    static boolean cold(Kernel kernel) {
        return ENABLED && HOT.get(kernel.ordinal()) == 0 && Blas.nativeAvailable();
    }

    /** Whether {@code kernel} ran a slice at compiled speed in this process. */
    static boolean hot(Kernel kernel) { return HOT.get(kernel.ordinal()) == 1; }

    /** Products OpenBLAS computed in {@code kernel}'s place while it was cold. */
    static int coldProducts(Kernel kernel) { return COLD_PRODUCTS.get(kernel.ordinal()); }

    /**
     * Counts one product OpenBLAS ran in {@code kernel}'s place, and has the kernel run (on the
     * warming thread, unless a slice of it is already under way) a slice of
     * {@value #SLICE_ROWS} x {@value #SLICE_COLUMNS} x {@value #SLICE_REDUCTION} of this thread's
     * scratch operands (a whole 4-row tile and a leftover row, so every tile shape the kernel has is
     * run), marking the kernel hot when the slice ran at compiled speed.
     */
    static void exercise(Kernel kernel) {
        COLD_PRODUCTS.incrementAndGet(kernel.ordinal());
        // on a thread of its own, one slice per kernel at a time: the caller's product is done, it need not wait for the
        // slice (in the interpreter a slice costs milliseconds, a fresh JVM's first call makes several)
        if (!RUNNING.compareAndSet(kernel.ordinal(), 0, 1)) return;
        try {
            WARMER.execute(() -> {
                try {
                    runSlice(kernel);
                } finally {
                    RUNNING.set(kernel.ordinal(), 0);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            RUNNING.set(kernel.ordinal(), 0);
        }
    }

    /** Per kernel: 1 while a slice is queued or running. */
    private static final AtomicIntegerArray RUNNING = new AtomicIntegerArray(Kernel.values().length);

    /** The one daemon thread slices run on. */
    private static final java.util.concurrent.ExecutorService WARMER = java.util.concurrent.Executors.newSingleThreadExecutor(
            r -> Thread.ofPlatform().name("ember-kernel-warmer").daemon().unstarted(r));

    /** Runs one slice of {@code kernel} on this thread, timed; marks the kernel hot at compiled speed. */
    static void runSlice(Kernel kernel) {
        float[][] s = SCRATCH.get();
        long t0 = System.nanoTime();
        if (kernel == Kernel.DOT) {
            GemmDot.columns(SLICE_ROWS, SLICE_REDUCTION, 1f, s[0], 0, SLICE_REDUCTION, s[1], 0, SLICE_REDUCTION, 0f, s[2], 0, SLICE_COLUMNS, 0, SLICE_COLUMNS);
        } else {
            GemmBroadcast.columns(SLICE_ROWS, SLICE_REDUCTION, 1f, s[0], 0, SLICE_REDUCTION, s[1], 0, SLICE_COLUMNS, 0f, s[2], 0, SLICE_COLUMNS, 0, SLICE_COLUMNS);
        }
        long nanos = Math.max(1, System.nanoTime() - t0);
        if (2.0 * SLICE_ROWS * SLICE_COLUMNS * SLICE_REDUCTION / nanos >= HOT_FLOPS_PER_NANO) HOT.set(kernel.ordinal(), 1);
    }

    /** Forgets what was learnt (tests only): every kernel cold again. */
    static void resetForTests() {
        for (int i = 0; i < HOT.length(); i++) {
            HOT.set(i, 0);
            COLD_PRODUCTS.set(i, 0);
        }
    }

    /** Marks {@code kernel} hot (tests that need the Java kernel itself). */
    static void markHotForTests(Kernel kernel) { HOT.set(kernel.ordinal(), 1); }
}
