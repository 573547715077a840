package dev.ember.ops.kernels;

/**
 * Folds one contiguous input row into the run of accumulators starting at {@code at}, element by element: the inner loop of
 * a column-wise reduction (summing a matrix over dim 0 adds whole rows). Plain indexed loops, which
 * C2 vectorises, float-to-double conversion included.
 */
final class ReduceColumns {
    private ReduceColumns() {}

    static void add(double[] acc, int at, float[] a, int off, int n) {
        for (int k = 0; k < n; k++) acc[at + k] += a[off + k];
    }

    static void add(double[] acc, int at, double[] a, int off, int n) {
        for (int k = 0; k < n; k++) acc[at + k] += a[off + k];
    }

    static void add(long[] acc, int at, long[] a, int off, int n) {
        for (int k = 0; k < n; k++) acc[at + k] += a[off + k];
    }

    static void max(double[] acc, int at, float[] a, int off, int n) {
        for (int k = 0; k < n; k++) acc[at + k] = Math.max(acc[at + k], a[off + k]);
    }

    static void max(double[] acc, int at, double[] a, int off, int n) {
        for (int k = 0; k < n; k++) acc[at + k] = Math.max(acc[at + k], a[off + k]);
    }

    static void max(long[] acc, int at, long[] a, int off, int n) {
        for (int k = 0; k < n; k++) acc[at + k] = Math.max(acc[at + k], a[off + k]);
    }

    static void min(double[] acc, int at, float[] a, int off, int n) {
        for (int k = 0; k < n; k++) acc[at + k] = Math.min(acc[at + k], a[off + k]);
    }

    static void min(double[] acc, int at, double[] a, int off, int n) {
        for (int k = 0; k < n; k++) acc[at + k] = Math.min(acc[at + k], a[off + k]);
    }

    static void min(long[] acc, int at, long[] a, int off, int n) {
        for (int k = 0; k < n; k++) acc[at + k] = Math.min(acc[at + k], a[off + k]);
    }

    /** {@code acc[at + k] += (a[off + k] - mean[at + k])^2} */
    static void squaredDeviations(double[] acc, double[] mean, int at, float[] a, int off, int n) {
        for (int k = 0; k < n; k++) {
            double d = a[off + k] - mean[at + k];
            acc[at + k] += d * d;
        }
    }

    static void squaredDeviations(double[] acc, double[] mean, int at, double[] a, int off, int n) {
        for (int k = 0; k < n; k++) {
            double d = a[off + k] - mean[at + k];
            acc[at + k] += d * d;
        }
    }
}
