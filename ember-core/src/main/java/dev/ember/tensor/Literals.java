package dev.ember.tensor;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.List;

/** Builds tensors from nested Java arrays ({@code new float[][] {{1, 2}, {3, 4}}}). */
final class Literals {
    private Literals() {}

    static Tensor fromNested(Object nested) {
        if (nested == null || !nested.getClass().isArray()) {
            throw new IllegalArgumentException("Tensor.tensor needs a (nested) primitive array such as float[][], got "
                    + (nested == null ? "null" : nested.getClass().getSimpleName()));
        }
        List<Integer> shape = new ArrayList<>();
        Class<?> c = nested.getClass();
        Object probe = nested;
        while (c.isArray()) {
            shape.add(Array.getLength(probe));
            c = c.getComponentType();
            if (c.isArray()) {
                if (Array.getLength(probe) == 0) throw new IllegalArgumentException("Tensor.tensor: cannot infer the shape of an empty nested array");
                probe = Array.get(probe, 0);
            }
        }
        DType dtype;
        if (c == float.class) dtype = DType.FLOAT32;
        else if (c == double.class) dtype = DType.FLOAT64;
        else if (c == int.class) dtype = DType.INT32;
        else if (c == long.class) dtype = DType.INT64;
        else if (c == boolean.class) dtype = DType.BOOL;
        else throw new IllegalArgumentException("Tensor.tensor: unsupported element type " + c.getSimpleName() + " (use float, double, int, long or boolean)");
        int[] dims = shape.stream().mapToInt(Integer::intValue).toArray();
        Object flat = dtype.allocate(Shapes.numel(dims));
        int[] pos = {0};
        flatten(nested, 0, dims, flat, pos, dtype);
        return Tensor.fromArray(dtype, flat, dims);
    }

    private static void flatten(Object arr, int depth, int[] dims, Object out, int[] pos, DType dtype) {
        int n = Array.getLength(arr);
        if (n != dims[depth]) {
            throw new IllegalArgumentException("Tensor.tensor: ragged nested array: expected length " + dims[depth] + " at depth " + depth + ", got " + n);
        }
        if (depth == dims.length - 1) {
            if (dtype == DType.BOOL) {
                boolean[] b = (boolean[]) arr;
                byte[] o = (byte[]) out;
                for (boolean v : b) o[pos[0]++] = (byte) (v ? 1 : 0);
            } else {
                System.arraycopy(arr, 0, out, pos[0], n);
                pos[0] += n;
            }
            return;
        }
        for (int i = 0; i < n; i++) flatten(Array.get(arr, i), depth + 1, dims, out, pos, dtype);
    }
}
