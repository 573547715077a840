package dev.ember.ops.eager;

import dev.ember.kernels.Parallel;
import dev.ember.kernels.ReduceRows;
import dev.ember.kernels.VectorMath;
import dev.ember.tensor.Tensor;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * layer_norm over the last {@code m} elements of a contiguous float32 or float64 tensor:
 * {@code (x - mean) / sqrt(var + eps) * weight + bias} per row, with the biased variance. Each row
 * takes three sweeps that stay in cache (sum, squared deviations, output); rows run in parallel.
 *
 * <p>A float32 row's mean and variance are summed in float64 and rounded once ({@code mean} and
 * {@code 1 / sqrt(var + eps)}), as layer_norm's decomposition computes them: compiled code then
 * gives these bits, whatever order its reductions take (float32 sums in different orders differed
 * by a few ulp, which chains of normalizations amplify).
 */
public final class ReduceLayerNorm {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Double> WIDE = DoubleVector.SPECIES_PREFERRED;

    private ReduceLayerNorm() {}

    /**
     * @param weight contiguous, {@code m} elements, or null
     * @param bias   contiguous, {@code m} elements, or null
     */
    public static void run(Tensor in, Tensor out, int m, Tensor weight, Tensor bias, double eps) {
        if (in.numel() == 0 || m == 0) return;
        int rows = in.numel() / m, src = in.storageOffset(), dst = out.storageOffset();
        int wo = weight == null ? 0 : weight.storageOffset(), bo = bias == null ? 0 : bias.storageOffset();
        switch (in.storage().data()) {
            case float[] x -> {
                float[] y = out.storage().floats();
                float[] w = weight == null ? null : weight.storage().floats(), b = bias == null ? null : bias.storage().floats();
                Parallel.forRange(rows, 3L * m, (lo, hi) -> {
                    for (int r = lo; r < hi; r++) rowFloat(x, src + r * m, y, dst + r * m, m, w, wo, b, bo, eps);
                });
            }
            case double[] x -> {
                double[] y = out.storage().doubles();
                double[] w = weight == null ? null : weight.storage().doubles(), b = bias == null ? null : bias.storage().doubles();
                Parallel.forRange(rows, 3L * m, (lo, hi) -> {
                    for (int r = lo; r < hi; r++) rowDouble(x, src + r * m, y, dst + r * m, m, w, wo, b, bo, eps);
                });
            }
            default -> throw new IllegalStateException("layer_norm takes float32 or float64, got " + in.dtype());
        }
    }

    private static void rowFloat(float[] x, int xo, float[] y, int yo, int m, float[] w, int wo, float[] b, int bo, double eps) {
        double mean = sumWide(x, xo, m) / m;
        double var = squaredDeviationsWide(x, xo, m, mean) / m;
        float mu = (float) mean, rstd = (float) (1 / Math.sqrt(var + eps));
        FloatVector mv = FloatVector.broadcast(F, mu), rv = FloatVector.broadcast(F, rstd);
        int step = F.length(), i = 0;
        for (; i <= m - step; i += step) {
            FloatVector v = FloatVector.fromArray(F, x, xo + i).sub(mv).mul(rv);
            if (w != null) v = v.mul(FloatVector.fromArray(F, w, wo + i));
            if (b != null) v = v.add(FloatVector.fromArray(F, b, bo + i));
            v.intoArray(y, yo + i);
        }
        for (; i < m; i++) {
            float v = (x[xo + i] - mu) * rstd;
            if (w != null) v *= w[wo + i];
            if (b != null) v += b[bo + i];
            y[yo + i] = v;
        }
    }

    private static void rowDouble(double[] x, int xo, double[] y, int yo, int m, double[] w, int wo, double[] b, int bo, double eps) {
        double mean = ReduceRows.sum(x, xo, m, 1) / m;
        double rstd = 1 / Math.sqrt(ReduceRows.squaredDeviations(x, xo, m, 1, mean) / m + eps);
        for (int i = 0; i < m; i++) y[yo + i] = (x[xo + i] - mean) * rstd;
        if (w != null) for (int i = 0; i < m; i++) y[yo + i] *= w[wo + i];
        if (b != null) for (int i = 0; i < m; i++) y[yo + i] += b[bo + i];
    }

    private static double sumWide(float[] x, int off, int n) {
        DoubleVector s0 = DoubleVector.zero(WIDE), s1 = DoubleVector.zero(WIDE);
        int step = WIDE.length(), i = 0;
        for (; i <= n - 2 * step; i += 2 * step) {
            s0 = s0.add(VectorMath.widen(x, off + i));
            s1 = s1.add(VectorMath.widen(x, off + i + step));
        }
        for (; i <= n - step; i += step) s0 = s0.add(VectorMath.widen(x, off + i));
        double total = VectorMath.sumLanes(s0.add(s1));
        for (; i < n; i++) total += x[off + i];
        return total;
    }

    private static double squaredDeviationsWide(float[] x, int off, int n, double mean) {
        DoubleVector mv = DoubleVector.broadcast(WIDE, mean), s0 = DoubleVector.zero(WIDE), s1 = DoubleVector.zero(WIDE);
        int step = WIDE.length(), i = 0;
        for (; i <= n - 2 * step; i += 2 * step) {
            DoubleVector d0 = VectorMath.widen(x, off + i).sub(mv), d1 = VectorMath.widen(x, off + i + step).sub(mv);
            s0 = d0.fma(d0, s0);
            s1 = d1.fma(d1, s1);
        }
        for (; i <= n - step; i += step) {
            DoubleVector d0 = VectorMath.widen(x, off + i).sub(mv);
            s0 = d0.fma(d0, s0);
        }
        double total = VectorMath.sumLanes(s0.add(s1));
        for (; i < n; i++) {
            double d = x[off + i] - mean;
            total += d * d;
        }
        return total;
    }
}
