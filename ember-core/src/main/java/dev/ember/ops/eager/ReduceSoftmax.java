package dev.ember.ops.eager;

import dev.ember.kernels.Parallel;
import dev.ember.kernels.VectorMath;
import dev.ember.tensor.Tensor;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * softmax and log_softmax along one dimension of a contiguous float32 or float64 tensor, shifted by
 * the maximum for stability: {@code exp(x - max) / sum} and {@code x - max - log(sum)}.
 *
 * <p>The tensor is seen as {@code [outer, n, inner]}. With {@code inner == 1} each row of {@code n} is
 * done in three sweeps that stay in L1 (max; exp, store and sum; scale); otherwise blocks of inner
 * positions are done side by side on SIMD lanes, with per-lane running maxima and sums. Float32 runs
 * on {@link VectorMath#exp(FloatVector)}, tails included as masked vectors: the exp the inductor's
 * generated softmax calls, equal to its scalar twin in every JIT tier (the Vector API's
 * {@code lanewise(EXP)} is an SVML call in C2 and {@link Math#exp} before it); float64 on {@link Math#exp}.
 */
public final class ReduceSoftmax {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final int INNER_BLOCK = 256;

    private ReduceSoftmax() {}

    /** Writes softmax (or log_softmax) of {@code in} along {@code dim} into {@code out}; both contiguous, same shape and dtype. */
    public static void run(Tensor in, Tensor out, int dim, boolean log) {
        int[] shape = in.shape();
        int n = shape.length == 0 ? 1 : shape[dim], outer = 1, inner = 1;
        for (int d = 0; d < dim; d++) outer *= shape[d];
        for (int d = dim + 1; d < shape.length; d++) inner *= shape[d];
        if (in.numel() == 0) return;
        int src = in.storageOffset(), dst = out.storageOffset(), len = n, in1 = inner;
        switch (in.storage().data()) {
            case float[] x -> {
                float[] y = out.storage().floats();
                if (inner == 1) {
                    Parallel.forRange(outer, 3L * n, (lo, hi) -> {
                        for (int r = lo; r < hi; r++) rowFloat(x, src + r * len, y, dst + r * len, len, log);
                    });
                } else {
                    int blocks = (inner + INNER_BLOCK - 1) / INNER_BLOCK;
                    Parallel.forRange(outer * blocks, 3L * n * Math.min(inner, INNER_BLOCK), (lo, hi) -> {
                        float[] max = new float[INNER_BLOCK], sum = new float[INNER_BLOCK];
                        for (int t = lo; t < hi; t++) {
                            int k0 = t % blocks * INNER_BLOCK, base = t / blocks * len * in1 + k0;
                            columnsFloat(x, src + base, y, dst + base, len, in1, Math.min(INNER_BLOCK, in1 - k0), max, sum, log);
                        }
                    });
                }
            }
            case double[] x -> {
                double[] y = out.storage().doubles();
                Parallel.forRange(outer * inner, 3L * n, (lo, hi) -> {
                    for (int t = lo; t < hi; t++) {
                        int base = t / in1 * len * in1 + t % in1;
                        lineDouble(x, src + base, y, dst + base, len, in1, log);
                    }
                });
            }
            default -> throw new IllegalStateException("softmax takes float32 or float64, got " + in.dtype());
        }
    }

    private static void rowFloat(float[] x, int xo, float[] y, int yo, int n, boolean log) {
        int step = F.length(), i = 0;
        FloatVector mv = FloatVector.broadcast(F, Float.NEGATIVE_INFINITY);
        for (; i <= n - step; i += step) mv = mv.max(FloatVector.fromArray(F, x, xo + i));
        float max = mv.reduceLanes(VectorOperators.MAX);
        for (; i < n; i++) max = Math.max(max, x[xo + i]);

        mv = FloatVector.broadcast(F, max);
        FloatVector sv = FloatVector.zero(F);
        for (i = 0; i <= n - step; i += step) {
            FloatVector e = VectorMath.exp(FloatVector.fromArray(F, x, xo + i).sub(mv));
            if (!log) e.intoArray(y, yo + i);
            sv = sv.add(e);
        }
        {    // the tail as one masked vector: a scalar exp rounds differently (see the class comment); run even when empty (LoopWriter's TAIL_ALWAYS_RUNS)
            VectorMask<Float> m = F.indexInRange(i, n);
            FloatVector e = VectorMath.exp(FloatVector.fromArray(F, x, xo + i, m).sub(mv));
            if (!log) e.intoArray(y, yo + i, m);
            sv = sv.add(e, m);
        }
        float sum = VectorMath.sumLanes(sv);

        if (log) {
            float logSum = (float) Math.log(sum);
            FloatVector lv = FloatVector.broadcast(F, logSum);
            for (i = 0; i <= n - step; i += step) FloatVector.fromArray(F, x, xo + i).sub(mv).sub(lv).intoArray(y, yo + i);
            for (; i < n; i++) y[yo + i] = x[xo + i] - max - logSum;
        } else {
            float inv = 1f / sum;
            FloatVector iv = FloatVector.broadcast(F, inv);
            for (i = 0; i <= n - step; i += step) FloatVector.fromArray(F, y, yo + i).mul(iv).intoArray(y, yo + i);
            for (; i < n; i++) y[yo + i] *= inv;
        }
    }

    /** {@code m} inner positions side by side; element {@code (d, k)} at {@code d * stride + k}. */
    private static void columnsFloat(float[] x, int xo, float[] y, int yo, int n, int stride, int m, float[] max, float[] sum, boolean log) {
        int step = F.length(), vm = m - m % step;
        java.util.Arrays.fill(max, 0, m, Float.NEGATIVE_INFINITY);
        java.util.Arrays.fill(sum, 0, m, 0f);
        for (int d = 0; d < n; d++) {
            int p = xo + d * stride, k = 0;
            for (; k < vm; k += step) FloatVector.fromArray(F, max, k).max(FloatVector.fromArray(F, x, p + k)).intoArray(max, k);
            for (; k < m; k++) max[k] = Math.max(max[k], x[p + k]);
        }
        for (int d = 0; d < n; d++) {
            int p = xo + d * stride, q = yo + d * stride, k = 0;
            for (; k < vm; k += step) {
                FloatVector e = VectorMath.exp(FloatVector.fromArray(F, x, p + k).sub(FloatVector.fromArray(F, max, k)));
                if (!log) e.intoArray(y, q + k);
                FloatVector.fromArray(F, sum, k).add(e).intoArray(sum, k);
            }
            {   // run even when empty (LoopWriter's TAIL_ALWAYS_RUNS)
                VectorMask<Float> tail = F.indexInRange(k, m);
                FloatVector e = VectorMath.exp(FloatVector.fromArray(F, x, p + k, tail).sub(FloatVector.fromArray(F, max, k, tail)));
                if (!log) e.intoArray(y, q + k, tail);
                FloatVector.fromArray(F, sum, k, tail).add(e).intoArray(sum, k, tail);
            }
        }
        for (int k = 0; k < m; k++) sum[k] = log ? (float) Math.log(sum[k]) : 1f / sum[k];
        for (int d = 0; d < n; d++) {
            int p = xo + d * stride, q = yo + d * stride, k = 0;
            if (log) {
                for (; k < vm; k += step) {
                    FloatVector.fromArray(F, x, p + k).sub(FloatVector.fromArray(F, max, k)).sub(FloatVector.fromArray(F, sum, k)).intoArray(y, q + k);
                }
                for (; k < m; k++) y[q + k] = x[p + k] - max[k] - sum[k];
            } else {
                for (; k < vm; k += step) FloatVector.fromArray(F, y, q + k).mul(FloatVector.fromArray(F, sum, k)).intoArray(y, q + k);
                for (; k < m; k++) y[q + k] *= sum[k];
            }
        }
    }

    /** One softmax line of {@code n} elements {@code stride} apart. */
    private static void lineDouble(double[] x, int xo, double[] y, int yo, int n, int stride, boolean log) {
        double max = Double.NEGATIVE_INFINITY, sum = 0;
        for (int i = 0, p = xo; i < n; i++, p += stride) max = Math.max(max, x[p]);
        for (int i = 0, p = xo, q = yo; i < n; i++, p += stride, q += stride) {
            double e = Math.exp(x[p] - max);
            if (!log) y[q] = e;
            sum += e;
        }
        if (log) {
            double logSum = Math.log(sum);
            for (int i = 0, p = xo, q = yo; i < n; i++, p += stride, q += stride) y[q] = x[p] - max - logSum;
        } else {
            double inv = 1 / sum;
            for (int i = 0, q = yo; i < n; i++, q += stride) y[q] *= inv;
        }
    }
}
