package dev.ember.debug;

import dev.ember.fx.NanAsserts;
import dev.ember.tensor.Tensor;

/**
 * What a tensor holds, in a few numbers: type ({@code f32[2, 3]}), minimum, maximum and mean of its
 * finite elements (NaN when it has none), how many elements are NaN and how many infinite, and the
 * index of the first non-finite one ({@code null} when all are finite).
 */
public record TensorStats(String type, double min, double max, double mean, long nanCount, long infCount, String firstNonFinite) {

    public static TensorStats of(Tensor t) {
        double[] v = t.toDoubleArray();
        double min = Double.POSITIVE_INFINITY, max = Double.NEGATIVE_INFINITY, sum = 0;
        long nan = 0, inf = 0, finite = 0;
        int first = -1;
        for (int i = 0; i < v.length; i++) {
            double x = v[i];
            if (Double.isFinite(x)) {
                min = Math.min(min, x);
                max = Math.max(max, x);
                sum += x;
                finite++;
                continue;
            }
            if (Double.isNaN(x)) nan++;
            else inf++;
            if (first < 0) first = i;
        }
        if (finite == 0) min = max = Double.NaN;
        return new TensorStats(t.meta().describe(), min, max, finite == 0 ? Double.NaN : sum / finite, nan, inf,
                first < 0 ? null : NanAsserts.index(first, t.shape()));
    }

    /** Whether every element is finite. */
    public boolean allFinite() { return nanCount == 0 && infCount == 0; }
}
