package dev.ember.tensor;

/**
 * A tensor's elements: one primitive array on the Java heap ({@code float[]}, {@code double[]},
 * {@code int[]}, {@code long[]}, or {@code byte[]} for bool), so the garbage collector frees it;
 * native kernels take the array itself through FFM critical downcalls (see Blas).
 * Views share a storage; the version counter counts in-place writes through any of them.
 *
 * <p>A storage can be marked overwritten: a graph compiled with {@code mode("reduce-overhead")}
 * reuses its output arrays, and the outputs of its previous call are marked when the next call
 * writes over them. Every access to the elements then throws, saying why, so a stale output is
 * never read as if it held its old values. A {@link TensorScope} releases the storages made inside
 * it the same way when it closes, and hands their arrays to {@link Allocation}'s pool.
 */
public final class Storage {
    private final DType dtype;
    private final Object data;
    private final int length;
    /** Whether Ember allocated the array for this storage alone (then a scope may recycle it); false for a caller's array. */
    private final boolean owned;
    private int version;
    /** This storage's place in the order storages were made (see {@link #madeSince}). */
    private final long serial = SERIALS.incrementAndGet();
    private static final java.util.concurrent.atomic.AtomicLong SERIALS = new java.util.concurrent.atomic.AtomicLong();
    /** Whether this storage outlives every scope ({@link TensorScope#escape}): long-lived state made inside one. */
    private volatile boolean escaped;
    /** Why the elements are gone (see {@link #markOverwritten}), or null while they are this storage's. */
    private java.util.function.Supplier<String> overwritten;
    /** How many holders still need the elements where they are (see {@link #keepFromReuse}). */
    private int keptBy;

    /** {@code length} zeroed elements (a recycled array cleared, or a new one), owned by the innermost open {@link TensorScope}. */
    public Storage(DType dtype, int length) {
        this(dtype, Allocation.zeroed(dtype, length), true);
        TensorScope.track(this);
    }

    /** A storage over the caller's array, which stays the caller's: no scope ever recycles it. */
    public Storage(DType dtype, Object data) {
        this(dtype, data, false);
    }

    private Storage(DType dtype, Object data, boolean owned) {
        this.dtype = dtype;
        this.data = data;
        this.owned = owned;
        this.length = java.lang.reflect.Array.getLength(data);
        Class<?> expected = dtype.allocate(0).getClass();
        if (data.getClass() != expected) {
            throw new IllegalArgumentException("storage of " + dtype + " needs a " + expected.getSimpleName()
                    + ", got " + data.getClass().getSimpleName());
        }
    }

    /**
     * {@code length} elements of undefined value (NaN-poisoned under {@code -Dember.alloc.poison=true}),
     * owned by the innermost open {@link TensorScope}: only for a kernel that writes every element
     * before anything reads one (see {@link Allocation}).
     */
    public static Storage uninitialized(DType dtype, int length) {
        Storage s = new Storage(dtype, Allocation.uninitialized(dtype, length), true);
        TensorScope.track(s);
        return s;
    }

    public DType dtype() { return dtype; }

    /** The backing primitive array; kernels cast it to the array type of {@link #dtype()}. */
    public Object data() {
        if (overwritten != null) throw new IllegalStateException(overwritten.get());
        return data;
    }

    public int length() { return length; }

    /** Element {@code i} as a double (bool as 0 or 1). */
    public double readDouble(int i) {
        return switch (dtype) {
            case FLOAT32 -> floats()[i];
            case FLOAT64 -> doubles()[i];
            case INT32 -> ints()[i];
            case INT64 -> longs()[i];
            case BOOL -> bools()[i];
        };
    }

    /** Element {@code i} as a long (floats truncated toward zero). */
    public long readLong(int i) {
        return switch (dtype) {
            case FLOAT32 -> (long) floats()[i];
            case FLOAT64 -> (long) doubles()[i];
            case INT32 -> ints()[i];
            case INT64 -> longs()[i];
            case BOOL -> bools()[i];
        };
    }

    /** Writes {@code v} at {@code i} with a C-style cast: truncation toward zero for integers, non-zero for bool. */
    public void writeDouble(int i, double v) {
        switch (dtype) {
            case FLOAT32 -> floats()[i] = (float) v;
            case FLOAT64 -> doubles()[i] = v;
            case INT32 -> ints()[i] = (int) (long) v;
            case INT64 -> longs()[i] = (long) v;
            case BOOL -> bools()[i] = (byte) (v != 0 ? 1 : 0);
        }
    }

    /** Writes {@code v} at {@code i}, converted to this storage's dtype (non-zero is true for bool). */
    public void writeLong(int i, long v) {
        switch (dtype) {
            case FLOAT32 -> floats()[i] = (float) v;
            case FLOAT64 -> doubles()[i] = (double) v;
            case INT32 -> ints()[i] = (int) v;
            case INT64 -> longs()[i] = v;
            case BOOL -> bools()[i] = (byte) (v != 0 ? 1 : 0);
        }
    }

    public float[] floats() { return (float[]) data(); }

    public double[] doubles() { return (double[]) data(); }

    public int[] ints() { return (int[]) data(); }

    public long[] longs() { return (long[]) data(); }

    public byte[] bools() { return (byte[]) data(); }

    /**
     * Marks the elements as written over by someone else: from now on every access throws
     * {@link IllegalStateException} with the message {@code why} gives (which should say what
     * overwrote them and how to keep them). A supplier, so that a caller marking storages on every
     * call formats the message only when someone reads a stale one.
     */
    public void markOverwritten(java.util.function.Supplier<String> why) { overwritten = java.util.Objects.requireNonNull(why); }

    /**
     * Marks this storage released by a closing scope; true when its array may be recycled (Ember
     * allocated it, and nothing marked it before — an overwritten reduce-overhead output's array is
     * the graph's).
     */
    boolean release(java.util.function.Supplier<String> why) {
        if (escaped || overwritten != null) return false;
        overwritten = why;
        return owned;
    }

    /** Lets this storage outlive the scope that made it (see {@link TensorScope#escape}). */
    void escapeScopes() { escaped = true; }

    /** A mark in the order storages are made: {@link #madeSince} is true of every storage made after it. */
    public static long mark() { return SERIALS.get(); }

    /**
     * Whether Ember made this storage's array for it alone after {@code mark}: nothing made before
     * (a caller's array, a value saved by the forward, a compiled graph's reused output array)
     * can hold it. Autograd takes such a gradient as a leaf's {@code .grad} rather than copying it.
     */
    public boolean madeSince(long mark) { return owned && serial > mark; }

    /** The array even when marked (for the pool, which takes it from a storage it just released). */
    Object rawData() { return data; }

    /**
     * Says that someone still needs these elements where they are — a compiled training forward's
     * outputs and saved values, until its backward has run — so a {@code reduce-overhead} graph that
     * wrote them gives its next call fresh arrays instead of writing over them (PyTorch's CUDA graph
     * trees start no new generation while a backward is pending). Counted: each call is undone by
     * one {@link #releaseFromReuse}.
     */
    public synchronized void keepFromReuse() { keptBy++; }

    /** Undoes one {@link #keepFromReuse}. */
    public synchronized void releaseFromReuse() { if (keptBy > 0) keptBy--; }

    /** Whether someone still needs the elements where they are ({@link #keepFromReuse}). */
    public synchronized boolean keptFromReuse() { return keptBy > 0; }

    /** Whether {@link #markOverwritten} was called. */
    public boolean isOverwritten() { return overwritten != null; }

    /** Whether this storage's elements are {@code array} (for owners of arrays that outlive storages; works when overwritten). */
    public boolean holds(Object array) { return data == array; }

    public int version() { return version; }

    public void bumpVersion() { version++; }
}
