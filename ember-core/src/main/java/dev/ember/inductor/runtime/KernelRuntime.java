package dev.ember.inductor.runtime;

import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;

/** Small helpers generated code calls around extern kernels. */
public final class KernelRuntime {
    private KernelRuntime() {}

    /** A tensor viewing {@code storage}. */
    public static Tensor view(Storage storage, int[] shape, int[] strides, int offset) {
        return Tensor.wrap(storage, shape, strides, offset);
    }

    /** {@code t}, or a contiguous copy when an eager kernel returned a strided result (generated code indexes it as contiguous). */
    public static Tensor contiguous(Tensor t) { return t.isContiguous() ? t : t.clone(); }
}
