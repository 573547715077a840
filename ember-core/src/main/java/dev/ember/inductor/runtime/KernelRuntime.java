package dev.ember.inductor.runtime;

import dev.ember.fx.NanAsserts;
import dev.ember.fx.NonFiniteValueError;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;

/** Small helpers generated code calls around extern kernels, and the NaN asserts it runs after kernels. */
public final class KernelRuntime {
    private KernelRuntime() {}

    /** A tensor viewing {@code storage}. */
    public static Tensor view(Storage storage, int[] shape, int[] strides, int offset) {
        return Tensor.wrap(storage, shape, strides, offset);
    }

    /**
     * The array of arena slot {@code slot} when it holds at least {@code size} elements, else a new
     * one of that size of the same type, kept in the slot: a slot for a buffer whose size depends
     * on a size symbol grows to the largest size a call has needed, and is reused after that.
     */
    public static Object grown(Object[] arena, int slot, int size) {
        Object array = arena[slot];
        if (java.lang.reflect.Array.getLength(array) >= size) return array;
        Object larger = java.lang.reflect.Array.newInstance(array.getClass().getComponentType(), size);
        arena[slot] = larger;
        return larger;
    }

    /** {@code t}, or a contiguous copy when an eager kernel returned a strided result (generated code indexes it as contiguous). */
    public static Tensor contiguous(Tensor t) { return t.isContiguous() ? t : t.clone(); }

    /**
     * {@code EMBER_NAN_ASSERTS}: throws at the first NaN or infinity of the value of {@code node}
     * that {@code kernel} just wrote at {@code data[offset…]} in row-major order. The error names no
     * graph: the generated class may be shared by graphs of several functions (the artifact cache),
     * so the graph running it adds its name ({@link NonFiniteValueError#inGraph}).
     */
    public static void checkFinite(float[] data, int offset, int[] shape, String kernel, String node, String sourceLine) {
        int n = Shapes.numel(shape);
        for (int i = 0; i < n; i++) {
            float v = data[offset + i];
            if (!Float.isFinite(v)) throw new NonFiniteValueError(kernel, node, sourceLine, null, NanAsserts.index(i, shape), v);
        }
    }

    /** {@link #checkFinite(float[], int, int[], String, String, String)} for float64 values. */
    public static void checkFinite(double[] data, int offset, int[] shape, String kernel, String node, String sourceLine) {
        int n = Shapes.numel(shape);
        for (int i = 0; i < n; i++) {
            double v = data[offset + i];
            if (!Double.isFinite(v)) throw new NonFiniteValueError(kernel, node, sourceLine, null, NanAsserts.index(i, shape), v);
        }
    }
}
