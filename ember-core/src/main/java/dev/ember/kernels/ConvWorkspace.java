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

    /**
     * The arrays a convolution needs at once: im2col columns (or padded input rows) and the GEMM's
     * product (or Winograd's transformed inputs); Winograd's transformed weights (written by the
     * calling thread, read by every worker until the call returns) and its channel GEMMs' sums
     * before the output transform.
     */
    public enum Slot { COLUMNS, PRODUCT, TRANSFORMED_WEIGHTS, TRANSFORMED_OUTPUTS }

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
