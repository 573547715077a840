package dev.ember.tensor;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * A tensor's sizes, strides and offset as {@link SymInt}s: the metadata of a graph value whose
 * shape depends on the input sizes a compiled function was made generic in. A fake tensor carries
 * the same metadata evaluated at the trace's example sizes (the hints).
 */
public record SymShape(SymInt[] sizes, SymInt[] strides, SymInt offset) {

    /** The metadata of {@code meta}, every size constant. */
    public static SymShape of(TensorMeta meta) {
        return new SymShape(SymInt.of(meta.shape()), SymInt.of(meta.strides()), SymInt.of(meta.storageOffset()));
    }

    public int dim() { return sizes.length; }

    /** Whether any size, stride or the offset depends on a symbol. */
    public boolean isSymbolic() {
        if (!offset.isConstant()) return true;
        for (SymInt s : sizes) if (!s.isConstant()) return true;
        for (SymInt s : strides) if (!s.isConstant()) return true;
        return false;
    }

    /** The number of elements. */
    public SymInt numel() {
        SymInt n = SymInt.of(1);
        for (SymInt s : sizes) n = n.times(s);
        return n;
    }

    /** The concrete metadata when symbol {@code i} is {@code values[i]}. */
    public TensorMeta eval(DType dtype, long[] values) {
        int[] shape = new int[sizes.length];
        int[] st = new int[strides.length];
        for (int i = 0; i < shape.length; i++) shape[i] = sizes[i].evalInt(values);
        for (int i = 0; i < st.length; i++) st[i] = strides[i].evalInt(values);
        return new TensorMeta(dtype, shape, st, offset.evalInt(values));
    }

    /** {@code f32[s0, 512]}: the form printed graphs use. */
    public String describe(DType dtype) {
        return dtype.shortName() + Arrays.stream(sizes).map(SymInt::toString).collect(Collectors.joining(", ", "[", "]"));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SymShape s && Arrays.equals(s.sizes, sizes) && Arrays.equals(s.strides, strides) && s.offset.equals(offset);
    }

    @Override
    public int hashCode() { return Arrays.hashCode(sizes) * 31 + Arrays.hashCode(strides); }

    @Override
    public String toString() { return Arrays.toString(sizes) + " strides=" + Arrays.toString(strides) + " offset=" + offset; }
}
