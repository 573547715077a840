package dev.ember.testing;

import dev.ember.tensor.DType;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Test inputs for op tests: random tensors from a seeded {@link Random} (so a failure replays),
 * edge values, the shapes and broadcasting pairs every op should survive, and the same values in
 * non-contiguous layouts.
 *
 * <pre>{@code
 * Random rng = new Random(42);
 * for (int[] shape : Inputs.SHAPES) {
 *     Tensor x = Inputs.randn(rng, DType.FLOAT32, shape);
 *     for (Inputs.Layout in : Inputs.layouts(x)) {
 *         TorchAssert.assertClose(in.tensor().exp(), Torch.call("torch.exp(a)", x), "exp " + in);
 *     }
 * }
 * }</pre>
 *
 * <p>Layouts are built directly on a {@link Storage} with {@link Tensor#wrap}, not with Ember's
 * own view ops, so they hold even while those ops are wrong; the gaps of a strided layout are
 * filled with a sentinel (NaN, or -123456789 for integers, true for bool) that shows up in results
 * when a kernel reads outside the view.
 */
public final class Inputs {
    private Inputs() {}

    /** Shapes for unary ops and reductions: 0-d, zero-size, size-1 dims, 1-d to 4-d. */
    public static final List<int[]> SHAPES = List.of(
            new int[] {}, new int[] {0}, new int[] {1}, new int[] {7}, new int[] {0, 3}, new int[] {3, 0},
            new int[] {1, 1}, new int[] {2, 3}, new int[] {4, 1}, new int[] {3, 4, 5}, new int[] {2, 1, 3, 2});

    /** Pairs of shapes that broadcast (ATen's rules), for binary ops. */
    public static final List<int[][]> BROADCAST_SHAPES = List.of(
            new int[][] {{2, 3}, {2, 3}},
            new int[][] {{2, 3}, {3}},
            new int[][] {{3}, {2, 3}},
            new int[][] {{2, 1}, {1, 3}},
            new int[][] {{}, {2, 3}},
            new int[][] {{2, 3}, {}},
            new int[][] {{}, {}},
            new int[][] {{4, 1, 3}, {2, 1}},
            new int[][] {{0, 3}, {3}},
            new int[][] {{0, 3}, {1, 1}},
            new int[][] {{5, 1, 4}, {1, 6, 1}});

    // ------------------------------------------------------------------ random values

    /** Standard normal values; float dtypes only (like {@code torch.randn}). */
    public static Tensor randn(Random rng, DType dtype, int... shape) {
        requireFloat("randn", dtype);
        double[] v = new double[numel(shape)];
        for (int i = 0; i < v.length; i++) v[i] = rng.nextGaussian();
        return fromDoubles(v, dtype, shape);
    }

    /** Uniform values in [0, 1) for float dtypes (like {@code torch.rand}); fair coin flips for bool. */
    public static Tensor rand(Random rng, DType dtype, int... shape) {
        if (dtype == DType.BOOL) {
            boolean[] b = new boolean[numel(shape)];
            for (int i = 0; i < b.length; i++) b[i] = rng.nextBoolean();
            return Tensor.of(b, shape);
        }
        return uniform(rng, dtype, 0, 1, shape);
    }

    /** Uniform values in [low, high); float dtypes only. Handy for log, sqrt, pow (positive inputs). */
    public static Tensor uniform(Random rng, DType dtype, double low, double high, int... shape) {
        requireFloat("uniform", dtype);
        double[] v = new double[numel(shape)];
        for (int i = 0; i < v.length; i++) v[i] = low + (high - low) * rng.nextDouble();
        if (dtype == DType.FLOAT32) {
            // float rounding may reach high; keep the half-open interval
            for (int i = 0; i < v.length; i++) if ((float) v[i] >= high) v[i] = Math.nextDown((float) high);
        }
        return fromDoubles(v, dtype, shape);
    }

    /**
     * Uniform integers in [low, high) (like {@code torch.randint}), in any dtype: float dtypes get
     * integral values (exact in every op that keeps them small), bool needs [0, 2).
     */
    public static Tensor randint(Random rng, DType dtype, long low, long high, int... shape) {
        if (low >= high) throw new IllegalArgumentException("randint: empty range [" + low + ", " + high + ")");
        if (dtype == DType.BOOL && (low < 0 || high > 2)) throw new IllegalArgumentException("randint: bool values need [0, 2), got [" + low + ", " + high + ")");
        long[] v = new long[numel(shape)];
        for (int i = 0; i < v.length; i++) v[i] = rng.nextLong(low, high);
        return fromLongs(v, dtype, shape);
    }

    /**
     * Edge values of {@code dtype} as a 1-d tensor: for floats ±0, ±1, ±inf, NaN, the smallest
     * normal and subnormal, the largest finite value, 0.5, -2.5 (ties for rounding); for integers
     * 0, ±1, the extremes and ±7 (floor vs trunc division); for bool both values.
     */
    public static Tensor specials(DType dtype) {
        return switch (dtype) {
            case FLOAT32 -> Tensor.of(new float[] {0f, -0f, 1f, -1f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN,
                    Float.MIN_NORMAL, Float.MIN_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE, 0.5f, -2.5f}, 13);
            case FLOAT64 -> Tensor.of(new double[] {0d, -0d, 1d, -1d, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN,
                    Double.MIN_NORMAL, Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, 0.5, -2.5}, 13);
            case INT32 -> Tensor.of(new int[] {0, 1, -1, 7, -7, Integer.MAX_VALUE, Integer.MIN_VALUE}, 7);
            case INT64 -> Tensor.of(new long[] {0, 1, -1, 7, -7, Long.MAX_VALUE, Long.MIN_VALUE}, 7);
            case BOOL -> Tensor.of(new boolean[] {false, true}, 2);
        };
    }

    /** A tensor of {@code dtype} from double values (rounded to float32, truncated for ints, != 0 for bool). */
    public static Tensor fromDoubles(double[] v, DType dtype, int... shape) {
        return switch (dtype) {
            case FLOAT64 -> Tensor.of(v.clone(), shape);
            case FLOAT32 -> {
                float[] f = new float[v.length];
                for (int i = 0; i < v.length; i++) f[i] = (float) v[i];
                yield Tensor.of(f, shape);
            }
            case INT32, INT64, BOOL -> {
                long[] l = new long[v.length];
                for (int i = 0; i < v.length; i++) l[i] = (long) v[i];
                yield fromLongs(l, dtype, shape);
            }
        };
    }

    private static Tensor fromLongs(long[] v, DType dtype, int[] shape) {
        return switch (dtype) {
            case INT64 -> Tensor.of(v, shape);
            case INT32 -> Tensor.of(Arrays.stream(v).mapToInt(Math::toIntExact).toArray(), shape);
            case FLOAT64 -> Tensor.of(Arrays.stream(v).mapToDouble(x -> x).toArray(), shape);
            case FLOAT32 -> {
                float[] f = new float[v.length];
                for (int i = 0; i < v.length; i++) f[i] = v[i];
                yield Tensor.of(f, shape);
            }
            case BOOL -> {
                boolean[] b = new boolean[v.length];
                for (int i = 0; i < v.length; i++) b[i] = v[i] != 0;
                yield Tensor.of(b, shape);
            }
        };
    }

    // ------------------------------------------------------------------ layouts

    /** One way of laying out the same values: {@code name} says which, for failure messages. */
    public record Layout(String name, Tensor tensor) {
        @Override
        public String toString() { return name + " " + Arrays.toString(tensor.shape()) + " strides " + Arrays.toString(tensor.strides()) + " offset " + tensor.storageOffset(); }
    }

    /**
     * The same values (shape, dtype, logical contents) as {@code t} in a non-contiguous layout:
     * the last two dims transposed in memory when both exceed 1, otherwise every element two
     * apart after an offset of one. (0-d and one-element tensors can only get the offset.)
     */
    public static Tensor nonContiguous(Tensor t) {
        int n = t.dim();
        int[] s = t.shape();
        if (n >= 2 && s[n - 1] > 1 && s[n - 2] > 1) return transposed(t);
        return strided(t, 2, 1);
    }

    /**
     * {@code t} itself and every non-contiguous layout of its values that makes sense for its
     * shape: {@code transposed} (last two dims swapped in memory), {@code reversed} (all dims
     * reversed, column-major; 3-d and up), {@code strided} (elements two apart, offset one).
     */
    public static List<Layout> layouts(Tensor t) {
        List<Layout> out = new ArrayList<>();
        out.add(new Layout("contiguous", t));
        int n = t.dim();
        if (n >= 2) out.add(new Layout("transposed", transposed(t)));
        if (n >= 3) {
            int[] reversed = new int[n];
            for (int d = 0; d < n; d++) reversed[d] = n - 1 - d;
            out.add(new Layout("reversed", layout(t, reversed, 1, 0)));
        }
        out.add(new Layout("strided", strided(t, 2, 1)));
        return out;
    }

    /** {@code t}'s values with the last two dims swapped in memory (a transposed copy, transposed back). */
    public static Tensor transposed(Tensor t) {
        int n = t.dim();
        if (n < 2) throw new IllegalArgumentException("transposed: need 2 or more dims, got " + Arrays.toString(t.shape()));
        int[] order = identity(n);
        order[n - 2] = n - 1;
        order[n - 1] = n - 2;
        return layout(t, order, 1, 0);
    }

    /** {@code t}'s values {@code step} elements apart in storage, starting at {@code offset}. */
    public static Tensor strided(Tensor t, int step, int offset) {
        return layout(t, identity(t.dim()), step, offset);
    }

    /**
     * {@code t}'s values in a fresh storage: dims nested in memory in {@code order} (outermost
     * first), the innermost {@code step} elements apart, starting at {@code offset}; the gaps hold
     * a sentinel.
     */
    public static Tensor layout(Tensor t, int[] order, int step, int offset) {
        int[] shape = t.shape();
        int n = shape.length;
        if (order.length != n) throw new IllegalArgumentException("layout: order " + Arrays.toString(order) + " for shape " + Arrays.toString(shape));
        int[] strides = new int[n];
        long s = step;
        for (int k = n - 1; k >= 0; k--) {
            strides[order[k]] = Math.toIntExact(s);
            s *= Math.max(shape[order[k]], 1);
        }
        int numel = numel(shape);
        long last = offset;
        for (int d = 0; d < n; d++) last += (long) (shape[d] - 1) * strides[d];
        int length = numel == 0 ? offset : Math.toIntExact(last + 1);

        DType dtype = t.dtype();
        Object data = dtype.allocate(length);
        fillSentinel(data);
        Object values = switch (dtype) {
            case FLOAT32 -> t.toFloatArray();
            case FLOAT64 -> t.toDoubleArray();
            case INT32 -> t.toIntArray();
            case INT64 -> t.toLongArray();
            case BOOL -> {
                boolean[] b = t.toBooleanArray();
                byte[] bytes = new byte[b.length];
                for (int i = 0; i < b.length; i++) bytes[i] = (byte) (b[i] ? 1 : 0);
                yield bytes;
            }
        };
        int[] idx = new int[n];
        for (int i = 0; i < numel; i++) {
            int pos = offset;
            for (int d = 0; d < n; d++) pos += idx[d] * strides[d];
            System.arraycopy(values, i, data, pos, 1);
            for (int d = n - 1; d >= 0; d--) {
                if (++idx[d] < shape[d]) break;
                idx[d] = 0;
            }
        }
        return Tensor.wrap(new Storage(dtype, data), shape, strides, offset);
    }

    private static void fillSentinel(Object data) {
        switch (data) {
            case float[] f -> Arrays.fill(f, Float.NaN);
            case double[] d -> Arrays.fill(d, Double.NaN);
            case int[] i -> Arrays.fill(i, -123456789);
            case long[] l -> Arrays.fill(l, -123456789L);
            case byte[] b -> Arrays.fill(b, (byte) 1);
            default -> throw new IllegalStateException();
        }
    }

    private static int[] identity(int n) {
        int[] order = new int[n];
        for (int d = 0; d < n; d++) order[d] = d;
        return order;
    }

    private static void requireFloat(String what, DType dtype) {
        if (!dtype.isFloatingPoint()) throw new IllegalArgumentException(what + " makes float32/float64 values, not " + dtype + "; use randint");
    }

    static int numel(int[] shape) {
        long n = 1;
        for (int s : shape) {
            if (s < 0) throw new IllegalArgumentException("negative dimension in " + Arrays.toString(shape));
            n *= s;
        }
        return Math.toIntExact(n);
    }
}
