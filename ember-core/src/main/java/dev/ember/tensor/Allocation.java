package dev.ember.tensor;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Where a storage's array comes from: a recycled array released by a {@link TensorScope}, or a
 * new one — zeroed, or, for a kernel that promised to write every element before anyone reads one
 * ({@link Tensor#allocateUninitialized}), left as it is.
 *
 * <p>Why recycling: a new 16 MB array on the Java heap is zeroed by the allocating thread alone,
 * in memory no cache holds (the allocator's pointer moves on through the young generation), and
 * the kernel then writes it a second time. HotSpot skips the zeroing only for arrays allocated
 * inside a thread's TLAB (C2 allocates nothing above 1 MB there), so
 * {@code Unsafe.allocateUninitializedArray} helps only small arrays. An array released a moment
 * ago is still in cache: what libtorch's caching allocator hands back.
 *
 * <p>The pool is filled only by a deterministic signal — a {@link TensorScope} closing, which marks
 * the storages it releases so that every later access through them throws — never by guessing
 * what the garbage collector would free. It keeps at most {@link #POOL_BYTES} bytes of arrays
 * (system property {@code ember.alloc.poolBytes}, default an eighth of the maximum heap) and hands
 * back the array released last first, the one most likely still in cache. Arrays smaller than
 * {@link #POOL_MIN_BYTES} are never pooled: the TLAB allocates them faster than a pool finds them.
 *
 * <p>Debugging: with {@code -Dember.alloc.poison=true} every array a kernel receives uninitialized
 * (fresh or recycled) is first filled with a pattern no kernel computes by chance — NaN for
 * floating point, {@code 0xDEADBEEF…} for integers, 0x5A for bool — so an opted-in kernel that
 * leaves an element unwritten shows it in its result (the tests run the opted-in kernels so).
 *
 * <p>Uninitialized new arrays use {@code jdk.internal.misc.Unsafe.allocateUninitializedArray} when
 * the JVM was started with {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED} (as
 * {@code ./ember}, the tests and the benchmarks are); without it they are ordinary zeroed arrays,
 * silently: the same results, only the zeroing is paid.
 */
public final class Allocation {
    private Allocation() {}

    /** Arrays below this size in bytes are allocated, never pooled. */
    public static final int POOL_MIN_BYTES = 32 * 1024;
    /** The pool's capacity in bytes. */
    public static final long POOL_BYTES = Long.getLong("ember.alloc.poolBytes", Runtime.getRuntime().maxMemory() / 8);

    private static volatile boolean poison = Boolean.getBoolean("ember.alloc.poison");
    /** Arrays below this many bytes are never pooled: {@link #POOL_MIN_BYTES}, lowered by the fuzzer's scoped runs. */
    private static volatile int poolMinBytes = POOL_MIN_BYTES;

    /** {@code Unsafe.allocateUninitializedArray(Class, int)} bound to the Unsafe instance, or null without the export. */
    private static final MethodHandle UNINITIALIZED = Boolean.parseBoolean(System.getProperty("ember.alloc.unsafe", "true")) ? uninitializedArrayHandle() : null;

    private record Key(DType dtype, int length) {}

    private static final Map<Key, ArrayDeque<Object>> FREE = new HashMap<>();
    private static long pooledBytes;

    /** Whether uninitialized arrays are filled with the poison pattern (see the class comment). */
    public static boolean poisoning() { return poison; }

    /** Turns the poison pattern on or off (tests; {@code -Dember.alloc.poison=true} sets it at start-up). */
    public static void setPoisoning(boolean on) { poison = on; }

    /**
     * Pools arrays of at least {@code bytes} (default {@link #POOL_MIN_BYTES}): the differential
     * fuzzer's scoped runs pool every array, so that its small programs recycle too.
     */
    public static void setPoolMinBytes(int bytes) {
        if (bytes < 0) throw new IllegalArgumentException("a pool's minimum array size cannot be negative, got " + bytes);
        poolMinBytes = bytes;
    }

    /** Whether new uninitialized arrays skip the JVM's zeroing (the export is present), rather than falling back to zeroed ones. */
    public static boolean uninitializedArraysAvailable() { return UNINITIALIZED != null; }

    /** The bytes of arrays the pool holds now. */
    public static synchronized long pooledBytes() { return pooledBytes; }

    /** Empties the pool (its arrays are left to the garbage collector). */
    public static synchronized void clearPool() {
        FREE.clear();
        pooledBytes = 0;
    }

    /** A zeroed array of {@code n} elements: a recycled one cleared, or a new one. */
    static Object zeroed(DType dtype, int n) {
        Object recycled = take(dtype, n);
        if (recycled == null) return dtype.allocate(n);
        fill(recycled, 0);
        return recycled;
    }

    /** An array of {@code n} elements whose contents are undefined (poisoned in debug mode): the caller writes every one. */
    static Object uninitialized(DType dtype, int n) {
        Object array = take(dtype, n);
        if (array == null) array = fresh(dtype, n);
        if (poison) poisonFill(array);
        return array;
    }

    /** Gives a released storage's array to the pool (or to the garbage collector when the pool is full or the array small). */
    static void release(DType dtype, Object array) {
        int n = java.lang.reflect.Array.getLength(array);
        long bytes = (long) n * dtype.itemSize();
        if (bytes < poolMinBytes) return;
        synchronized (Allocation.class) {
            if (pooledBytes + bytes > POOL_BYTES) return;
            FREE.computeIfAbsent(new Key(dtype, n), k -> new ArrayDeque<>()).push(array);
            pooledBytes += bytes;
        }
    }

    private static Object take(DType dtype, int n) {
        if ((long) n * dtype.itemSize() < poolMinBytes) return null;
        synchronized (Allocation.class) {
            if (pooledBytes == 0) return null;
            ArrayDeque<Object> free = FREE.get(new Key(dtype, n));
            Object array = free == null ? null : free.poll();
            if (array != null) pooledBytes -= (long) n * dtype.itemSize();
            return array;
        }
    }

    private static Object fresh(DType dtype, int n) {
        if (UNINITIALIZED != null) {
            try {
                return (Object) UNINITIALIZED.invokeExact(componentType(dtype), n);
            } catch (Throwable e) {
                throw new IllegalStateException("Unsafe.allocateUninitializedArray failed for " + n + " elements of " + dtype, e);
            }
        }
        return dtype.allocate(n);
    }

    private static Class<?> componentType(DType dtype) {
        return switch (dtype) {
            case BOOL -> byte.class;
            case INT32 -> int.class;
            case INT64 -> long.class;
            case FLOAT32 -> float.class;
            case FLOAT64 -> double.class;
        };
    }

    private static void fill(Object array, int value) {
        switch (array) {
            case float[] a -> Arrays.fill(a, value);
            case double[] a -> Arrays.fill(a, value);
            case int[] a -> Arrays.fill(a, value);
            case long[] a -> Arrays.fill(a, value);
            case byte[] a -> Arrays.fill(a, (byte) value);
            default -> throw new IllegalArgumentException("not a storage array: " + array.getClass());
        }
    }

    /** The poison pattern: values no kernel writes by chance, and that turn any arithmetic reading them visibly wrong. */
    private static void poisonFill(Object array) {
        switch (array) {
            case float[] a -> Arrays.fill(a, Float.NaN);
            case double[] a -> Arrays.fill(a, Double.NaN);
            case int[] a -> Arrays.fill(a, 0xDEADBEEF);
            case long[] a -> Arrays.fill(a, 0xDEADBEEFDEADBEEFL);
            case byte[] a -> Arrays.fill(a, (byte) 0x5A);
            default -> throw new IllegalArgumentException("not a storage array: " + array.getClass());
        }
    }

    /**
     * The JDK's {@code allocateUninitializedArray}, found reflectively so that nothing needs the
     * export at compile time; null (the zeroing fallback) when the JVM does not export the package.
     * This class's own lookup, not the public one: the export is qualified (to ALL-UNNAMED), which
     * the public lookup does not see.
     */
    private static MethodHandle uninitializedArrayHandle() {
        try {
            Class<?> unsafeClass = Class.forName("jdk.internal.misc.Unsafe");
            Object unsafe = unsafeClass.getMethod("getUnsafe").invoke(null);
            MethodHandle h = MethodHandles.lookup().findVirtual(unsafeClass, "allocateUninitializedArray",
                    MethodType.methodType(Object.class, Class.class, int.class));
            return h.bindTo(unsafe);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;   // not exported to this module: new arrays are zeroed, as always
        }
    }
}
