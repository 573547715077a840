package dev.ember.tensor;

import java.util.SplittableRandom;

/**
 * A seeded source of random numbers for rand/randn/randint/dropout. The same seed gives the same
 * tensors in every run (not the same values as PyTorch's generator: its algorithm differs).
 */
public final class Generator {
    private static final Generator DEFAULT = new Generator(0x5EED_E3BE_4L);
    /** Bound while the compiler runs code of its own ({@link #drawingFromScratch}): draws naming no generator come from here. */
    private static final ScopedValue<Generator> SCRATCH = ScopedValue.newInstance();

    private SplittableRandom random;
    private long seed;

    public Generator(long seed) { manualSeed(seed); }

    /** The generator used when an op is given none. */
    public static Generator global() { return SCRATCH.isBound() ? SCRATCH.get() : DEFAULT; }

    /**
     * Runs {@code work} with every draw that names no generator taken from a scratch generator of
     * its own, so that the global stream is exactly as it was: the compiler's own runs (max-autotune
     * timing variants on random inputs) must not change the numbers the user's next {@code randn} or
     * dropout draws, as Dynamo's {@code preserve_global_state} keeps torch's RNG state across a compile.
     */
    public static <T> T drawingFromScratch(java.util.function.Supplier<T> work) {
        return ScopedValue.where(SCRATCH, new Generator(0x5C2A_7C4L)).call(work::get);
    }

    public synchronized Generator manualSeed(long seed) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        return this;
    }

    public synchronized long initialSeed() { return seed; }

    /** An independent stream for one op call, so parallel kernels fill deterministically. */
    public synchronized SplittableRandom split() { return random.split(); }
}
