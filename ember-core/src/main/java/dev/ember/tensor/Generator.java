package dev.ember.tensor;

import java.util.SplittableRandom;

/**
 * A seeded source of random numbers for rand/randn/randint/dropout. The same seed gives the same
 * tensors in every run (not the same values as PyTorch's generator: its algorithm differs).
 */
public final class Generator {
    private static final Generator DEFAULT = new Generator(0x5EED_E3BE_4L);

    private SplittableRandom random;
    private long seed;

    public Generator(long seed) { manualSeed(seed); }

    /** The generator used when an op is given none. */
    public static Generator global() { return DEFAULT; }

    public synchronized Generator manualSeed(long seed) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        return this;
    }

    public synchronized long initialSeed() { return seed; }

    /** An independent stream for one op call, so parallel kernels fill deterministically. */
    public synchronized SplittableRandom split() { return random.split(); }
}
