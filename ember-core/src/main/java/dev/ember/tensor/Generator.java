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
    /** Streams handed out since the seed ({@link #split}): with the seed, the whole state ({@link #getState}). */
    private long draws;

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
        this.draws = 0;
        return this;
    }

    public synchronized long initialSeed() { return seed; }

    /** An independent stream for one op call, so parallel kernels fill deterministically. */
    public synchronized SplittableRandom split() {
        draws++;
        return random.split();
    }

    /**
     * This generator's state, as PyTorch's {@code Generator.get_state()}: a tensor to keep (in a
     * checkpoint, beside the state dict) and give to {@link #setState} to draw the same numbers again
     * from there. Its form is Ember's own, an int64 tensor {@code [seed, draws]}, not libtorch's bytes.
     */
    public synchronized Tensor getState() { return Tensor.ofLongs(seed, draws); }

    /**
     * Puts this generator back into a state {@link #getState} returned (PyTorch's
     * {@code Generator.set_state}): the next draws are the ones that followed it. Replaying takes one
     * step per op call drawn since the seed.
     */
    public Generator setState(Tensor state) {
        if (state == null) throw new IllegalArgumentException("Generator.setState: the state is null; pass a tensor getState() returned");
        if (state.dtype() != DType.INT64 || state.shape().length != 1 || state.shape()[0] != 2) {
            throw new IllegalArgumentException("Generator.setState: expected the int64 tensor of 2 elements that getState() returns, got a "
                    + state.dtype().name().toLowerCase(java.util.Locale.ROOT) + " tensor of shape " + java.util.Arrays.toString(state.shape()));
        }
        long[] values = state.toLongArray();
        if (values[1] < 0) throw new IllegalArgumentException("Generator.setState: the state's draw count is negative (" + values[1] + "): not a state getState() returned");
        synchronized (this) {
            manualSeed(values[0]);
            for (long i = 0; i < values[1]; i++) random.split();
            draws = values[1];
        }
        return this;
    }
}
