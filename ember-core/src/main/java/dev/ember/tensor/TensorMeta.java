package dev.ember.tensor;

import java.util.Arrays;

/**
 * A tensor's metadata without data: what a meta function computes and a fake tensor carries.
 */
public record TensorMeta(DType dtype, int[] shape, int[] strides, int storageOffset) {

    public static TensorMeta contiguous(DType dtype, int... shape) {
        return new TensorMeta(dtype, shape.clone(), Shapes.contiguousStrides(shape), 0);
    }

    public int dim() { return shape.length; }

    public int numel() { return Shapes.numel(shape); }

    public boolean isContiguous() { return Shapes.isContiguous(shape, strides); }

    /** {@code f32[3, 4]}: the form printed graphs use. */
    public String describe() { return dtype.shortName() + Shapes.format(shape); }

    @Override
    public boolean equals(Object o) {
        return o instanceof TensorMeta m && m.dtype == dtype && Arrays.equals(m.shape, shape)
                && Arrays.equals(m.strides, strides) && m.storageOffset == storageOffset;
    }

    @Override
    public int hashCode() { return dtype.hashCode() * 31 + Arrays.hashCode(shape) * 17 + Arrays.hashCode(strides); }

    @Override
    public String toString() {
        return describe() + (isContiguous() && storageOffset == 0 ? "" : " strides=" + Shapes.format(strides) + " offset=" + storageOffset);
    }
}
