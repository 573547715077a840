package dev.ember.ops.kernels;

import dev.ember.tensor.DType;

import java.lang.ref.SoftReference;

/**
 * Scratch arrays for convolution kept per thread between calls. A fresh array of tens of
 * megabytes costs more than the convolution itself (the JVM zeroes it and the OS maps its pages in
 * on first touch); a reused one is free. Held softly, so the GC takes them back under memory
 * pressure. Contents are stale: users overwrite every element they read.
 */
final class ConvWorkspace {
    private ConvWorkspace() {}

    /** The two arrays a convolution needs at once: im2col columns and the GEMM's product. */
    enum Slot { COLUMNS, PRODUCT }

    private static final ThreadLocal<SoftReference<?>[]> CACHE = ThreadLocal.withInitial(() -> new SoftReference<?>[Slot.values().length]);

    /** An array of {@code dtype} with at least {@code length} elements, for this thread's use until it asks again for the same slot. */
    static Object array(Slot slot, DType dtype, int length) {
        SoftReference<?>[] slots = CACHE.get();
        Object cached = slots[slot.ordinal()] == null ? null : slots[slot.ordinal()].get();
        boolean fits = switch (dtype) {
            case FLOAT32 -> cached instanceof float[] a && a.length >= length;
            case FLOAT64 -> cached instanceof double[] a && a.length >= length;
            case INT32 -> cached instanceof int[] a && a.length >= length;
            case INT64 -> cached instanceof long[] a && a.length >= length;
            case BOOL -> cached instanceof byte[] a && a.length >= length;
        };
        if (fits) return cached;
        Object fresh = dtype.allocate(length);
        slots[slot.ordinal()] = new SoftReference<>(fresh);
        return fresh;
    }
}
