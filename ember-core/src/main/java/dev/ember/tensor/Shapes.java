package dev.ember.tensor;

import java.util.Arrays;

/** Shape arithmetic shared by every op: sizes, strides, broadcasting, dimension wrapping. */
public final class Shapes {
    private Shapes() {}

    public static int numel(int[] shape) {
        long n = 1;
        for (int s : shape) n *= s;
        if (n > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("tensor of shape " + format(shape) + " has " + n
                    + " elements; Ember's heap storage holds at most " + (Integer.MAX_VALUE - 8));
        }
        return (int) n;
    }

    public static int[] contiguousStrides(int[] shape) {
        int[] strides = new int[shape.length];
        int s = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            strides[i] = s;
            s *= Math.max(shape[i], 1);
        }
        return strides;
    }

    /** True when the elements lie in row-major order with no gaps (size-1 dims may have any stride). */
    public static boolean isContiguous(int[] shape, int[] strides) {
        int expected = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            if (shape[i] == 0) return true;
            if (shape[i] != 1 && strides[i] != expected) return false;
            expected *= shape[i];
        }
        return true;
    }

    /** The broadcast of two shapes, or ATen's error naming the op and the mismatched dimension. */
    public static int[] broadcast(String op, int[] a, int[] b) {
        int n = Math.max(a.length, b.length);
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            int da = i - (n - a.length), db = i - (n - b.length);
            int sa = da >= 0 ? a[da] : 1, sb = db >= 0 ? b[db] : 1;
            if (sa == sb || sb == 1) out[i] = sa;
            else if (sa == 1) out[i] = sb;
            else throw new IllegalArgumentException(op + ": the size of tensor a (" + sa + ") must match the size of tensor b ("
                    + sb + ") at non-singleton dimension " + i + " (shapes " + format(a) + " and " + format(b) + ")");
        }
        return out;
    }

    /** The strides that read a tensor of {@code shape}/{@code strides} as if expanded to {@code target}. */
    public static int[] broadcastStrides(int[] shape, int[] strides, int[] target) {
        int[] out = new int[target.length];
        int off = target.length - shape.length;
        for (int i = 0; i < shape.length; i++) {
            out[off + i] = shape[i] == 1 && target[off + i] != 1 ? 0 : strides[i];
        }
        return out;
    }

    /** Wraps a possibly negative dimension, or throws PyTorch's "Dimension out of range" error. */
    public static int wrapDim(String op, int dim, int ndim) {
        int n = Math.max(ndim, 1);
        if (dim < -n || dim >= n) {
            throw new IndexOutOfBoundsException(op + ": Dimension out of range (expected to be in range of [" + (-n) + ", " + (n - 1)
                    + "], but got " + dim + ")");
        }
        return dim < 0 ? dim + n : dim;
    }

    /** {@code [3, 4]} */
    public static String format(int[] shape) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < shape.length; i++) {
            if (i > 0) sb.append(", ");
            sb.append(shape[i]);
        }
        return sb.append(']').toString();
    }

    /** Resolves a single -1 in a requested shape, checking the element count (view/reshape). */
    public static int[] inferSize(String op, int[] requested, int numel) {
        int[] out = requested.clone();
        int infer = -1;
        long known = 1;
        for (int i = 0; i < out.length; i++) {
            if (out[i] == -1) {
                if (infer >= 0) throw new IllegalArgumentException(op + ": only one dimension can be inferred");
                infer = i;
            } else if (out[i] < 0) {
                throw new IllegalArgumentException(op + ": invalid shape dimension " + out[i] + " in " + format(requested));
            } else {
                known *= out[i];
            }
        }
        if (infer >= 0) {
            if (known == 0 || numel % known != 0) {
                throw new IllegalArgumentException(op + ": shape '" + format(requested) + "' is invalid for input of size " + numel);
            }
            out[infer] = (int) (numel / known);
        } else if (known != numel) {
            throw new IllegalArgumentException(op + ": shape '" + format(requested) + "' is invalid for input of size " + numel);
        }
        return out;
    }

    public static boolean same(int[] a, int[] b) { return Arrays.equals(a, b); }
}
