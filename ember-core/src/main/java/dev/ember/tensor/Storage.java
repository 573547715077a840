package dev.ember.tensor;

/**
 * A tensor's elements: one primitive array on the Java heap ({@code float[]}, {@code double[]},
 * {@code int[]}, {@code long[]}, or {@code byte[]} for bool), so the garbage collector frees it;
 * native kernels take the array itself through FFM critical downcalls (see Blas).
 * Views share a storage; the version counter counts in-place writes through any of them.
 */
public final class Storage {
    private final DType dtype;
    private final Object data;
    private final int length;
    private int version;

    public Storage(DType dtype, int length) {
        this(dtype, dtype.allocate(length));
    }

    public Storage(DType dtype, Object data) {
        this.dtype = dtype;
        this.data = data;
        this.length = java.lang.reflect.Array.getLength(data);
        Class<?> expected = dtype.allocate(0).getClass();
        if (data.getClass() != expected) {
            throw new IllegalArgumentException("storage of " + dtype + " needs a " + expected.getSimpleName()
                    + ", got " + data.getClass().getSimpleName());
        }
    }

    public DType dtype() { return dtype; }

    /** The backing primitive array; kernels cast it to the array type of {@link #dtype()}. */
    public Object data() { return data; }

    public int length() { return length; }

    public float[] floats() { return (float[]) data; }

    public double[] doubles() { return (double[]) data; }

    public int[] ints() { return (int[]) data; }

    public long[] longs() { return (long[]) data; }

    public byte[] bools() { return (byte[]) data; }

    public int version() { return version; }

    public void bumpVersion() { version++; }
}
