package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Defaults;

/**
 * The window functions of signal processing (torch.hann_window, hamming_window, blackman_window,
 * bartlett_window, kaiser_window): factories composed of arange and pointwise ops, computed in the window's dtype
 * in ATen's order of operations. A periodic window (the default) of length N is the symmetric window
 * of length N + 1 without its last element; lengths 0 and 1 give an empty window and a one.
 */
public final class WindowOps {
    private WindowOps() {}

    public static final OpOverload HANN_WINDOW = window("hann_window(int window_length, *, ScalarType? dtype=None) -> Tensor",
            (e, n, periodic, dtype) -> hamming(e, n, periodic, dtype, 0.5, 0.5));
    public static final OpOverload HANN_WINDOW_PERIODIC = window("hann_window.periodic(int window_length, bool periodic, *, ScalarType? dtype=None) -> Tensor",
            (e, n, periodic, dtype) -> hamming(e, n, periodic, dtype, 0.5, 0.5));
    public static final OpOverload HAMMING_WINDOW = window("hamming_window(int window_length, *, ScalarType? dtype=None) -> Tensor",
            (e, n, periodic, dtype) -> hamming(e, n, periodic, dtype, 0.54, 0.46));
    public static final OpOverload HAMMING_WINDOW_PERIODIC = window(
            "hamming_window.periodic(int window_length, bool periodic, *, ScalarType? dtype=None) -> Tensor",
            (e, n, periodic, dtype) -> hamming(e, n, periodic, dtype, 0.54, 0.46));
    public static final OpOverload BLACKMAN_WINDOW = window("blackman_window(int window_length, *, ScalarType? dtype=None) -> Tensor", WindowOps::blackman);
    public static final OpOverload BLACKMAN_WINDOW_PERIODIC = window(
            "blackman_window.periodic(int window_length, bool periodic, *, ScalarType? dtype=None) -> Tensor", WindowOps::blackman);
    public static final OpOverload BARTLETT_WINDOW = window("bartlett_window(int window_length, *, ScalarType? dtype=None) -> Tensor", WindowOps::bartlett);
    public static final OpOverload BARTLETT_WINDOW_PERIODIC = window(
            "bartlett_window.periodic(int window_length, bool periodic, *, ScalarType? dtype=None) -> Tensor", WindowOps::bartlett);

    public static final OpOverload KAISER_WINDOW = window("kaiser_window(int window_length, *, ScalarType? dtype=None) -> Tensor",
            (e, n, periodic, dtype) -> kaiser(e, n, dtype, 12.0));
    public static final OpOverload KAISER_WINDOW_PERIODIC = window(
            "kaiser_window.periodic(int window_length, bool periodic, *, ScalarType? dtype=None) -> Tensor",
            (e, n, periodic, dtype) -> kaiser(e, n, dtype, 12.0));
    /** The one window with a parameter: beta, read by {@link #window} into the formula. */
    public static final OpOverload KAISER_WINDOW_BETA = window(
            "kaiser_window.beta(int window_length, bool periodic, float beta, *, ScalarType? dtype=None) -> Tensor", null);

    /** A symmetric window of {@code n ≥ 2} points in {@code dtype}. */
    private interface Formula { Object symmetric(OpEmitter e, int n, boolean periodic, DType dtype); }

    /** The op of {@code schema} (with or without a {@code periodic} argument; true when absent) computing {@code formula}. */
    private static OpOverload window(String schema, Formula given) {
        boolean hasPeriodic = schema.contains("bool periodic"), hasBeta = schema.contains("float beta");
        String name = Schema.parse(schema).name();
        int dtypeAt = hasBeta ? 3 : hasPeriodic ? 2 : 1;
        return ComposedOps.define(schema,
                a -> {
                    long n = a.integer(0);
                    DType dtype = dtypeOf(a.get(dtypeAt));
                    if (!dtype.isFloatingPoint()) {
                        throw new IllegalArgumentException(name + " expects floating point dtypes, got: TensorOptions(dtype=" + PointwiseOps.typeMetaName(dtype)
                                + ", device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))");
                    }
                    if (n < 0) throw new IllegalArgumentException(name + " requires non-negative window_length, got window_length=" + n);
                },
                (e, a) -> {
                    int n = ((Number) a[0]).intValue();
                    boolean periodic = !hasPeriodic || (Boolean) a[1];
                    DType dtype = dtypeOf(a[dtypeAt]);
                    Formula formula = hasBeta ? (em, length, p, d) -> kaiser(em, length, d, ((Number) a[2]).doubleValue()) : given;
                    if (n == 0) return e.call(CreationOps.ZEROS, new int[] {0}, dtype);
                    if (n == 1) return e.call(CreationOps.ONES, new int[] {1}, dtype);
                    int length = periodic ? n + 1 : n;
                    Object w = formula.symmetric(e, length, periodic, dtype);
                    return periodic ? e.call(ShapeOps.CLONE, e.call(ShapeOps.NARROW, w, 0L, 0L, (long) n), null) : w;
                });
    }

    private static DType dtypeOf(Object given) { return given == null ? Defaults.dtype() : (DType) given; }

    /** 0, 1, …, n − 1 in {@code dtype}, times {@code scale}. */
    private static Object scaledRange(OpEmitter e, int n, DType dtype, double scale) {
        return e.call(PointwiseOps.MUL_SCALAR, e.call(CreationOps.ARANGE, 0L, (long) n, 1L, dtype), scale);
    }

    /** {@code alpha − beta cos(2πk / (n − 1))}: Hann with alpha = beta = 0.5. */
    private static Object hamming(OpEmitter e, int n, boolean periodic, DType dtype, double alpha, double beta) {
        Object cos = e.call(PointwiseOps.COS, scaledRange(e, n, dtype, 2 * Math.PI / (n - 1)));
        return e.call(PointwiseOps.ADD_SCALAR, e.call(PointwiseOps.MUL_SCALAR, cos, -beta), alpha);
    }

    /** {@code 0.08 cos(4πk / (n − 1)) − 0.5 cos(2πk / (n − 1)) + 0.42}. */
    private static Object blackman(OpEmitter e, int n, boolean periodic, DType dtype) {
        Object w = scaledRange(e, n, dtype, Math.PI / (n - 1));
        Object four = e.call(PointwiseOps.MUL_SCALAR, e.call(PointwiseOps.COS, e.call(PointwiseOps.MUL_SCALAR, w, 4L)), 0.08);
        Object two = e.call(PointwiseOps.MUL_SCALAR, e.call(PointwiseOps.COS, e.call(PointwiseOps.MUL_SCALAR, w, 2L)), 0.5);
        return e.call(PointwiseOps.ADD_SCALAR, e.call(PointwiseOps.SUB_TENSOR, four, two), 0.42);
    }

    /**
     * {@code I0(beta·sqrt(|1 − ((k − α)/α)²|)) / I0(beta)} with {@code α = (n − 1)/2}, as ATen's
     * kernel computes it (the absolute value keeps rounding from taking a square root of a negative).
     */
    private static Object kaiser(OpEmitter e, int n, DType dtype, double beta) {
        double alpha = (n - 1) / 2.0;
        Object t = e.call(PointwiseOps.DIV_SCALAR, e.call(PointwiseOps.SUB_SCALAR, e.call(CreationOps.ARANGE, 0L, (long) n, 1L, dtype), alpha, 1L), alpha);
        Object inside = e.call(PointwiseOps.ABS, e.call(PointwiseOps.RSUB_SCALAR, e.call(PointwiseOps.MUL_TENSOR, t, t), 1L));
        Object numerator = e.call(MathOps.I0, e.call(PointwiseOps.MUL_SCALAR, e.call(PointwiseOps.SQRT, inside), beta));
        return e.call(PointwiseOps.DIV_TENSOR, numerator, e.call(MathOps.I0, e.call(CreationOps.FULL, new int[0], beta, dtype)));
    }

    /** {@code 2k / (n − 1)} rising to the middle, {@code 2 − 2k / (n − 1)} after it. */
    private static Object bartlett(OpEmitter e, int n, boolean periodic, DType dtype) {
        Object w = scaledRange(e, n, dtype, 2.0 / (n - 1));
        int firstHalf = ((n - 1) >> 1) + 1;
        Object rising = e.call(ShapeOps.NARROW, w, 0L, 0L, (long) firstHalf);
        Object falling = e.call(PointwiseOps.RSUB_SCALAR, e.call(ShapeOps.NARROW, w, 0L, (long) firstHalf, (long) (n - firstHalf)), 2L);
        return e.call(ShapeOps.CAT, java.util.List.of(rising, falling), 0L);
    }
}
