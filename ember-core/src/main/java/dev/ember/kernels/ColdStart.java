package dev.ember.kernels;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ember's Java SIMD kernels are fast only once the JIT's C2 has compiled them: until then every
 * Vector API operation runs its fallback (a lambda per lane, objects allocated per operation), a
 * hundred times slower than compiled. In a fresh JVM that made the first call of a model spend
 * most of its time in the first GEMMs ({@link GemmDot}'s tiles, interpreted: the first MLP call
 * took 0.8–1 s, docs/benchmarks.md), while OpenBLAS, compiled ahead of time, is as fast on the
 * first call as on the thousandth.
 *
 * <p>So, as a JIT's tiers do for code, the kernels have tiers ({@link Tier}, one per kernel): while
 * a Java kernel is cold, its caller computes the work another way (OpenBLAS for the few-row GEMMs,
 * im2col and OpenBLAS for the direct and Winograd convolutions), and the kernel runs a small slice
 * of scratch operands on a daemon thread ({@link Tier#exercise}; the result is thrown away, and one
 * slice per kernel at a time is under way) so that the JIT sees it run and compiles it. Each slice
 * is timed; once one runs at compiled speed ({@link #HOT_FLOPS_PER_NANO}: at least 2 GFLOP/s on one
 * thread, twenty times what the fallback reaches and a tenth of what C2's code does on any vector
 * machine) the kernel is hot for the rest of the process and does its work itself. Results change
 * only in rounding (the two ways sum in different orders), as they already do across the JIT's tiers.
 *
 * <p>{@code EMBER_COLD_START=java} (or {@code -Dember.coldStart=java}) turns this off: the Java
 * kernels run from the first call, interpreted. It turns off the generated kernels' tiers too
 * ({@code KernelTier}).
 */
public final class ColdStart {
    private ColdStart() {}

    /** A slice runs at compiled speed from this many float operations per nanosecond (2 GFLOP/s). */
    static final double HOT_FLOPS_PER_NANO = 2.0;

    static final boolean ENABLED = !"java".equals(System.getProperty("ember.coldStart", System.getenv("EMBER_COLD_START")));

    /** Whether tiers are on (not {@code EMBER_COLD_START=java}): the generated kernels' ({@code KernelTier}) read it too. */
    public static boolean enabled() { return ENABLED; }

    /** The one daemon thread slices run on. */
    private static final ExecutorService WARMER = Executors.newSingleThreadExecutor(
            r -> Thread.ofPlatform().name("ember-kernel-warmer").daemon().unstarted(r));

    /**
     * A kernel's tier: {@code slice} runs the kernel on scratch operands of its own (so that every
     * code path the kernel has is run), {@code sliceFlops} float operations.
     */
    public static Tier tier(String kernel, double sliceFlops, Runnable slice) { return new Tier(kernel, sliceFlops, slice); }

    /** Whether a kernel is still cold, and the warming of it. */
    public static final class Tier {
        private final String kernel;
        private final double sliceFlops;
        private final Runnable slice;
        private volatile boolean hot;
        private final AtomicBoolean running = new AtomicBoolean();
        private final AtomicInteger coldCalls = new AtomicInteger();

        private Tier(String kernel, double sliceFlops, Runnable slice) {
            this.kernel = kernel;
            this.sliceFlops = sliceFlops;
            this.slice = slice;
        }

        /**
         * Whether the kernel's work should still be done another way: the tiering is on, the kernel
         * is cold, and OpenBLAS (which every other way here runs on) is there.
         */
        public boolean cold() { return ENABLED && !hot && Blas.nativeAvailable(); }

        /** Whether a slice ran at compiled speed in this process. */
        public boolean hot() { return hot; }

        /** Calls done another way while the kernel was cold. */
        public int coldCalls() { return coldCalls.get(); }

        /**
         * Counts one call done another way, and has the warming thread run a slice (unless one of
         * this kernel is already under way): the caller does not wait for it.
         */
        public void exercise() {
            coldCalls.incrementAndGet();
            if (!running.compareAndSet(false, true)) return;
            try {
                WARMER.execute(() -> {
                    try {
                        runSlice();
                    } finally {
                        running.set(false);
                    }
                });
            } catch (RejectedExecutionException e) {
                running.set(false);
            }
        }

        /** Runs one slice on this thread, timed; marks the kernel hot at compiled speed. */
        void runSlice() {
            long t0 = System.nanoTime();
            slice.run();
            long nanos = Math.max(1, System.nanoTime() - t0);
            if (sliceFlops / nanos >= HOT_FLOPS_PER_NANO) hot = true;
        }

        /** Cold again, nothing counted (tests only). */
        public void resetForTests() {
            hot = false;
            coldCalls.set(0);
        }

        /** Hot (tests that need the Java kernel itself). */
        public void markHotForTests() { hot = true; }

        @Override
        public String toString() { return kernel + (hot ? " (hot)" : " (cold)"); }
    }

    /** Scratch operands of {@code length} floats for a slice: their values do not matter, only that the kernel runs. */
    public static float[] scratch(int length) {
        float[] x = new float[length];
        for (int i = 0; i < length; i++) x[i] = (i % 7) * 0.25f - 0.75f;
        return x;
    }
}
