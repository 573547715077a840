package dev.ember.kernels;

import java.lang.ref.SoftReference;
import java.lang.reflect.Array;

/**
 * Scratch arrays for convolution kept per thread between calls. A fresh array of tens of
 * megabytes costs more than the convolution itself (the JVM zeroes it and the OS maps its pages in
 * on first touch); a reused one is free. Held softly, so the GC takes them back under memory
 * pressure. Contents are stale: users overwrite every element they read.
 */
public final class ConvWorkspace {
    private ConvWorkspace() {}

    /** The two arrays a convolution needs at once: im2col columns and the GEMM's product. */
    public enum Slot { COLUMNS, PRODUCT }

    private static final ThreadLocal<SoftReference<?>[]> CACHE = ThreadLocal.withInitial(() -> new SoftReference<?>[Slot.values().length]);

    /**
     * An array of {@code like}'s type (float[], double[], int[], long[] or byte[]) with at least
     * {@code length} elements, for this thread's use until it asks again for the same slot.
     */
    public static Object array(Slot slot, Object like, int length) {
        SoftReference<?>[] slots = CACHE.get();
        Object cached = slots[slot.ordinal()] == null ? null : slots[slot.ordinal()].get();
        Class<?> type = like.getClass();
        if (cached != null && cached.getClass() == type && Array.getLength(cached) >= length) return cached;
        Object fresh = Array.newInstance(type.componentType(), length);
        slots[slot.ordinal()] = new SoftReference<>(fresh);
        return fresh;
    }
}
