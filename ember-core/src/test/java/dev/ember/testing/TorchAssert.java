package dev.ember.testing;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@code torch.testing.assert_close} for Ember: compares an Ember result with a libtorch result
 * (a DJL {@link NDArray}) or with a reference computed in Java, checking, in order, the shape,
 * the dtype and the values.
 *
 * <p>An element passes when {@code |actual - expected| <= atol + rtol * |expected|}, with these
 * defaults (those of {@code torch.testing.assert_close}):
 *
 * <table>
 *   <caption>Default tolerances by dtype</caption>
 *   <tr><th>dtype</th><th>rtol</th><th>atol</th></tr>
 *   <tr><td>float32</td><td>1.3e-6</td><td>1e-5</td></tr>
 *   <tr><td>float64</td><td>1e-7</td><td>1e-7</td></tr>
 *   <tr><td>int32, int64, bool</td><td>0</td><td>0 (exact)</td></tr>
 * </table>
 *
 * <p>When the two dtypes differ (only allowed with {@link Tolerance#ignoringDtype()}) the looser
 * default applies. NaN equals NaN (unlike {@code assert_close}'s default
 * {@code equal_nan=False}); an infinity matches only the same infinity; -0.0 equals 0.0.
 *
 * <p>A failure names the context, the shape and dtypes, how many elements mismatch, the greatest
 * absolute and relative differences with their indices, and the first mismatching elements with
 * both values.
 */
public final class TorchAssert {
    private TorchAssert() {}

    /** How many mismatching elements a failure message lists. */
    static final int SHOWN = 5;

    /**
     * Relative and absolute tolerance; {@code checkDtype=false} compares values of different
     * dtypes (e.g. an Ember float32 result against a float64 reference).
     */
    public record Tolerance(double rtol, double atol, boolean checkDtype) {
        /** Exact equality (still NaN == NaN). */
        public static final Tolerance EXACT = new Tolerance(0, 0, true);

        public Tolerance {
            if (!(rtol >= 0) || !(atol >= 0)) throw new IllegalArgumentException("tolerances must be >= 0: rtol=" + rtol + " atol=" + atol);
        }

        public static Tolerance of(double rtol, double atol) {
            return new Tolerance(rtol, atol, true);
        }

        /** The default tolerance of {@code dtype} (see the table on {@link TorchAssert}). */
        public static Tolerance forDtype(DType dtype) {
            return switch (dtype) {
                case FLOAT32 -> of(1.3e-6, 1e-5);
                case FLOAT64 -> of(1e-7, 1e-7);
                case INT32, INT64, BOOL -> EXACT;
            };
        }

        /** The same tolerance, comparing values even when the dtypes differ. */
        public Tolerance ignoringDtype() {
            return new Tolerance(rtol, atol, false);
        }

        /** The default tolerance of the less precise of two dtypes. */
        static Tolerance looser(DType a, DType b) {
            Tolerance x = forDtype(a), y = forDtype(b);
            return of(Math.max(x.rtol, y.rtol), Math.max(x.atol, y.atol));
        }
    }

    // ------------------------------------------------------------------ entry points

    /** Asserts that an Ember result matches libtorch's, with the default tolerance of its dtype. */
    public static void assertClose(Tensor actual, NDArray expected, String context) {
        check(Values.of(actual), Values.of(expected), context, null);
    }

    public static void assertClose(Tensor actual, NDArray expected, String context, Tolerance tolerance) {
        check(Values.of(actual), Values.of(expected), context, tolerance);
    }

    public static void assertClose(Tensor actual, NDArray expected, String context, double rtol, double atol) {
        assertClose(actual, expected, context, Tolerance.of(rtol, atol));
    }

    /** Asserts that an Ember result matches a reference tensor (e.g. one computed in Java). */
    public static void assertClose(Tensor actual, Tensor expected, String context) {
        check(Values.of(actual), Values.of(expected), context, null);
    }

    public static void assertClose(Tensor actual, Tensor expected, String context, Tolerance tolerance) {
        check(Values.of(actual), Values.of(expected), context, tolerance);
    }

    /** Asserts that two DJL arrays match (e.g. two ways of computing an op in libtorch). */
    public static void assertClose(NDArray actual, NDArray expected, String context) {
        check(Values.of(actual), Values.of(expected), context, null);
    }

    public static void assertClose(NDArray actual, NDArray expected, String context, Tolerance tolerance) {
        check(Values.of(actual), Values.of(expected), context, tolerance);
    }

    /** Asserts that a list of results ({@code split}, {@code chunk}, …) matches, element by element. */
    public static void assertClose(List<Tensor> actual, NDList expected, String context) {
        assertClose(actual, expected, context, null);
    }

    public static void assertClose(List<Tensor> actual, NDList expected, String context, Tolerance tolerance) {
        if (actual.size() != expected.size()) {
            throw new AssertionError(context + ": expected " + expected.size() + " tensors, got " + actual.size());
        }
        for (int i = 0; i < actual.size(); i++) {
            check(Values.of(actual.get(i)), Values.of(expected.get(i)), context + "[" + i + "]", tolerance);
        }
    }

    // ------------------------------------------------------------------ comparison

    /**
     * Values in a dtype-neutral form: floating values as doubles (exact for float32 and float64),
     * integral and bool values as longs.
     */
    record Values(int[] shape, DType dtype, double[] floats, long[] longs) {
        static Values of(Tensor t) {
            DType d = t.dtype();
            if (d.isFloatingPoint()) return new Values(t.shape(), d, t.toDoubleArray(), null);
            if (d == DType.BOOL) return new Values(t.shape(), d, null, longs(t.toBooleanArray()));
            return new Values(t.shape(), d, null, t.toLongArray());
        }

        static Values of(NDArray nd) {
            DType d = Torch.dtype(nd.getDataType());
            int[] shape = Torch.shape(nd);
            return switch (d) {
                case FLOAT32 -> {
                    float[] f = nd.toFloatArray();
                    double[] out = new double[f.length];
                    for (int i = 0; i < f.length; i++) out[i] = f[i];
                    yield new Values(shape, d, out, null);
                }
                case FLOAT64 -> new Values(shape, d, nd.toDoubleArray(), null);
                case INT32 -> new Values(shape, d, null, Arrays.stream(nd.toIntArray()).asLongStream().toArray());
                case INT64 -> new Values(shape, d, null, nd.toLongArray());
                case BOOL -> new Values(shape, d, null, longs(nd.toBooleanArray()));
            };
        }

        private static long[] longs(boolean[] b) {
            long[] out = new long[b.length];
            for (int i = 0; i < b.length; i++) out[i] = b[i] ? 1 : 0;
            return out;
        }

        int size() { return floats != null ? floats.length : longs.length; }

        double get(int i) { return floats != null ? floats[i] : longs[i]; }

        String format(int i) {
            if (dtype == DType.BOOL) return longs[i] != 0 ? "true" : "false";
            if (longs != null) return Long.toString(longs[i]);
            return dtype == DType.FLOAT32 ? Float.toString((float) floats[i]) : Double.toString(floats[i]);
        }
    }

    static void check(Values actual, Values expected, String context, Tolerance tolerance) {
        if (!Arrays.equals(actual.shape, expected.shape)) {
            throw new AssertionError(context + ": shape mismatch: actual " + shape(actual.shape) + " " + actual.dtype
                    + ", expected " + shape(expected.shape) + " " + expected.dtype);
        }
        boolean checkDtype = tolerance == null || tolerance.checkDtype();
        if (checkDtype && actual.dtype != expected.dtype) {
            throw new AssertionError(context + ": dtype mismatch: actual " + actual.dtype + ", expected " + expected.dtype
                    + " (shape " + shape(actual.shape) + ")");
        }
        Tolerance tol = tolerance != null ? tolerance : Tolerance.looser(actual.dtype, expected.dtype);
        boolean exactLongs = actual.longs != null && expected.longs != null && tol.rtol() == 0 && tol.atol() == 0;

        int n = actual.size();
        int mismatches = 0;
        int[] shown = new int[SHOWN];
        double maxAbs = 0, maxRel = 0;
        int maxAbsAt = -1, maxRelAt = -1;
        for (int i = 0; i < n; i++) {
            boolean ok;
            double abs, rel;
            if (exactLongs) {
                long a = actual.longs[i], e = expected.longs[i];
                ok = a == e;
                abs = Math.abs((double) a - (double) e);
                rel = relative(abs, e);
            } else {
                double a = actual.get(i), e = expected.get(i);
                if (a == e || Double.isNaN(a) && Double.isNaN(e)) {
                    ok = true;
                    abs = 0;
                    rel = 0;
                } else {
                    abs = difference(a, e);
                    rel = relative(abs, e);
                    ok = Double.isFinite(a) && Double.isFinite(e) && abs <= tol.atol() + tol.rtol() * Math.abs(e);
                }
            }
            if (abs > maxAbs) { maxAbs = abs; maxAbsAt = i; }
            if (rel > maxRel) { maxRel = rel; maxRelAt = i; }
            if (!ok) {
                if (mismatches < SHOWN) shown[mismatches] = i;
                mismatches++;
            }
        }
        if (mismatches == 0) return;

        StringBuilder m = new StringBuilder(context).append(": tensor values are not close\n");
        m.append("  shape ").append(shape(actual.shape)).append(", dtype ").append(actual.dtype);
        if (actual.dtype != expected.dtype) m.append(" (expected ").append(expected.dtype).append(')');
        m.append(", rtol ").append(num(tol.rtol())).append(", atol ").append(num(tol.atol())).append('\n');
        m.append(String.format(Locale.ROOT, "  mismatched elements: %d / %d (%.1f%%)%n", mismatches, n, 100.0 * mismatches / n));
        m.append("  greatest absolute difference: ").append(num(maxAbs)).append(" at index ").append(index(maxAbsAt, actual.shape)).append('\n');
        m.append("  greatest relative difference: ").append(num(maxRel)).append(" at index ").append(index(maxRelAt, actual.shape)).append('\n');
        m.append(mismatches > SHOWN ? "  first " + SHOWN + " mismatches:\n" : "  mismatches:\n");
        for (int k = 0; k < Math.min(mismatches, SHOWN); k++) {
            int i = shown[k];
            double abs = exactLongs ? Math.abs((double) actual.longs[i] - (double) expected.longs[i]) : difference(actual.get(i), expected.get(i));
            m.append("    ").append(index(i, actual.shape)).append(": actual ").append(actual.format(i))
                    .append(", expected ").append(expected.format(i))
                    .append(" (abs diff ").append(num(abs)).append(", rel diff ").append(num(relative(abs, expected.get(i)))).append(")\n");
        }
        throw new AssertionError(m.toString().stripTrailing());
    }

    /** |a - e|, infinite when only one of them is NaN or they are different infinities. */
    private static double difference(double a, double e) {
        if (a == e || Double.isNaN(a) && Double.isNaN(e)) return 0;
        double d = Math.abs(a - e);
        return Double.isNaN(d) ? Double.POSITIVE_INFINITY : d;
    }

    private static double relative(double abs, double expected) {
        if (abs == 0) return 0;
        double r = abs / Math.abs(expected);
        return Double.isNaN(r) ? Double.POSITIVE_INFINITY : r;
    }

    private static String num(double v) {
        if (v == 0) return "0";
        if (Double.isInfinite(v) || Double.isNaN(v)) return Double.toString(v);
        return String.format(Locale.ROOT, "%.6g", v).replaceFirst("\\.?0+(e|$)", "$1");
    }

    static String shape(int[] shape) {
        return Arrays.toString(shape);
    }

    /** The multi-index of row-major position {@code flat} in {@code shape}. */
    static String index(int flat, int[] shape) {
        if (flat < 0) return "-";
        int[] idx = new int[shape.length];
        for (int d = shape.length - 1; d >= 0; d--) {
            idx[d] = flat % shape[d];
            flat /= shape[d];
        }
        return Arrays.toString(idx);
    }
}
