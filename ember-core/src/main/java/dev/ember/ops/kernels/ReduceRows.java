package dev.ember.ops.kernels;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Folds one strided row of an array into a value: sums, extrema, squared deviations. Stride-1 rows
 * of float and double run on SIMD lanes.
 *
 * <p>Float sums add blocks of {@link #BLOCK} elements on float lanes (each lane sees a few dozen
 * values, so rounding stays at a few ulps) and carry the block totals in a double: a float32 sum of
 * millions of elements is as accurate as a float64 one, at float speed.
 */
public final class ReduceRows {
    static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final int BLOCK = 2048;

    private ReduceRows() {}

    public static double sum(float[] a, int off, int n, int stride) {
        double total = 0;
        if (stride != 1) {
            for (int i = 0, p = off; i < n; i++, p += stride) total += a[p];
            return total;
        }
        int end = off + n, step = F.length();
        for (int start = off; start < end; start += BLOCK) {
            int stop = Math.min(end, start + BLOCK), i = start;
            FloatVector s0 = FloatVector.zero(F), s1 = FloatVector.zero(F);
            for (; i <= stop - 2 * step; i += 2 * step) {
                s0 = s0.add(FloatVector.fromArray(F, a, i));
                s1 = s1.add(FloatVector.fromArray(F, a, i + step));
            }
            for (; i <= stop - step; i += step) s0 = s0.add(FloatVector.fromArray(F, a, i));
            double block = s0.add(s1).reduceLanes(VectorOperators.ADD);
            for (; i < stop; i++) block += a[i];
            total += block;
        }
        return total;
    }

    public static double sum(double[] a, int off, int n, int stride) {
        double total = 0;
        if (stride != 1) {
            for (int i = 0, p = off; i < n; i++, p += stride) total += a[p];
            return total;
        }
        int end = off + n, step = D.length();
        for (int start = off; start < end; start += BLOCK) {
            int stop = Math.min(end, start + BLOCK), i = start;
            DoubleVector s0 = DoubleVector.zero(D), s1 = DoubleVector.zero(D);
            for (; i <= stop - 2 * step; i += 2 * step) {
                s0 = s0.add(DoubleVector.fromArray(D, a, i));
                s1 = s1.add(DoubleVector.fromArray(D, a, i + step));
            }
            for (; i <= stop - step; i += step) s0 = s0.add(DoubleVector.fromArray(D, a, i));
            double block = s0.add(s1).reduceLanes(VectorOperators.ADD);
            for (; i < stop; i++) block += a[i];
            total += block;
        }
        return total;
    }

    public static long sum(long[] a, int off, int n, int stride) {
        long total = 0;
        for (int i = 0, p = off; i < n; i++, p += stride) total += a[p];
        return total;
    }

    /** Largest element; NaN when any element is NaN (like ATen's max). */
    public static double max(float[] a, int off, int n, int stride) {
        float m = Float.NEGATIVE_INFINITY;
        int i = 0;
        if (stride == 1) {
            FloatVector v = FloatVector.broadcast(F, m);
            for (; i <= n - F.length(); i += F.length()) v = v.max(FloatVector.fromArray(F, a, off + i));
            m = v.reduceLanes(VectorOperators.MAX);
        }
        for (int p = off + i * stride; i < n; i++, p += stride) m = Math.max(m, a[p]);
        return m;
    }

    /** Smallest element; NaN when any element is NaN. */
    public static double min(float[] a, int off, int n, int stride) {
        float m = Float.POSITIVE_INFINITY;
        int i = 0;
        if (stride == 1) {
            FloatVector v = FloatVector.broadcast(F, m);
            for (; i <= n - F.length(); i += F.length()) v = v.min(FloatVector.fromArray(F, a, off + i));
            m = v.reduceLanes(VectorOperators.MIN);
        }
        for (int p = off + i * stride; i < n; i++, p += stride) m = Math.min(m, a[p]);
        return m;
    }

    public static double max(double[] a, int off, int n, int stride) {
        double m = Double.NEGATIVE_INFINITY;
        int i = 0;
        if (stride == 1) {
            DoubleVector v = DoubleVector.broadcast(D, m);
            for (; i <= n - D.length(); i += D.length()) v = v.max(DoubleVector.fromArray(D, a, off + i));
            m = v.reduceLanes(VectorOperators.MAX);
        }
        for (int p = off + i * stride; i < n; i++, p += stride) m = Math.max(m, a[p]);
        return m;
    }

    public static double min(double[] a, int off, int n, int stride) {
        double m = Double.POSITIVE_INFINITY;
        int i = 0;
        if (stride == 1) {
            DoubleVector v = DoubleVector.broadcast(D, m);
            for (; i <= n - D.length(); i += D.length()) v = v.min(DoubleVector.fromArray(D, a, off + i));
            m = v.reduceLanes(VectorOperators.MIN);
        }
        for (int p = off + i * stride; i < n; i++, p += stride) m = Math.min(m, a[p]);
        return m;
    }

    public static long max(long[] a, int off, int n, int stride) {
        long m = Long.MIN_VALUE;
        for (int i = 0, p = off; i < n; i++, p += stride) m = Math.max(m, a[p]);
        return m;
    }

    public static long min(long[] a, int off, int n, int stride) {
        long m = Long.MAX_VALUE;
        for (int i = 0, p = off; i < n; i++, p += stride) m = Math.min(m, a[p]);
        return m;
    }

    /**
     * {@code sum((a[i] - mean)^2)}: the second pass of a two-pass variance. Stride-1 rows square on
     * float lanes in blocks (exact differences of nearby floats, a few ulps per block) and carry the
     * block totals in a double.
     */
    public static double squaredDeviations(float[] a, int off, int n, int stride, double mean) {
        double total = 0;
        if (stride != 1) {
            for (int i = 0, p = off; i < n; i++, p += stride) {
                double d = a[p] - mean;
                total += d * d;
            }
            return total;
        }
        float m = (float) mean;
        FloatVector mv = FloatVector.broadcast(F, m);
        int end = off + n, step = F.length();
        for (int start = off; start < end; start += BLOCK) {
            int stop = Math.min(end, start + BLOCK), i = start;
            FloatVector s0 = FloatVector.zero(F), s1 = FloatVector.zero(F);
            for (; i <= stop - 2 * step; i += 2 * step) {
                FloatVector d0 = FloatVector.fromArray(F, a, i).sub(mv), d1 = FloatVector.fromArray(F, a, i + step).sub(mv);
                s0 = d0.fma(d0, s0);
                s1 = d1.fma(d1, s1);
            }
            for (; i <= stop - step; i += step) {
                FloatVector d0 = FloatVector.fromArray(F, a, i).sub(mv);
                s0 = d0.fma(d0, s0);
            }
            double block = s0.add(s1).reduceLanes(VectorOperators.ADD);
            for (; i < stop; i++) {
                float d = a[i] - m;
                block += d * d;
            }
            total += block;
        }
        return total;
    }

    public static double squaredDeviations(double[] a, int off, int n, int stride, double mean) {
        double total = 0;
        if (stride != 1) {
            for (int i = 0, p = off; i < n; i++, p += stride) {
                double d = a[p] - mean;
                total += d * d;
            }
            return total;
        }
        DoubleVector mv = DoubleVector.broadcast(D, mean);
        int i = 0, step = D.length();
        DoubleVector s0 = DoubleVector.zero(D), s1 = DoubleVector.zero(D);
        for (; i <= n - 2 * step; i += 2 * step) {
            DoubleVector d0 = DoubleVector.fromArray(D, a, off + i).sub(mv), d1 = DoubleVector.fromArray(D, a, off + i + step).sub(mv);
            s0 = d0.fma(d0, s0);
            s1 = d1.fma(d1, s1);
        }
        total = s0.add(s1).reduceLanes(VectorOperators.ADD);
        for (; i < n; i++) {
            double d = a[off + i] - mean;
            total += d * d;
        }
        return total;
    }
}
