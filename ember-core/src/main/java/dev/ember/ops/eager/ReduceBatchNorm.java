package dev.ember.ops.eager;

import dev.ember.kernels.Parallel;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;

import java.util.Arrays;

/**
 * batch_norm's kernels for an input {@code (N, C, *)}: per-channel batch statistics (a reduction
 * over every dimension but 1, two-pass in double), the per-channel affine transform
 * {@code x * scale[c] + shift[c]} that normalises, and the running-statistics update.
 */
public final class ReduceBatchNorm {
    private ReduceBatchNorm() {}

    /** Per-channel mean and biased variance of a float32 or float64 input: {@code {mean, var}}. */
    public static double[][] batchStatistics(Tensor in) {
        boolean[] reduced = new boolean[in.dim()];
        Arrays.fill(reduced, true);
        reduced[1] = false;
        ReducePlan plan = ReducePlan.of(in, reduced, false);
        int count = plan.redNumel();
        double[] mean = ReduceFold.floating(in, plan, ReduceFold.Op.SUM, null);
        for (int c = 0; c < mean.length; c++) mean[c] /= count;
        double[] var = ReduceFold.floating(in, plan, ReduceFold.Op.SQUARED_DEVIATIONS, mean);
        for (int c = 0; c < var.length; c++) var[c] /= count;
        return new double[][] {mean, var};
    }

    /** {@code out[n, c, s] = in[n, c, s] * scale[c] + shift[c]}; both tensors contiguous. */
    public static void affine(Tensor in, Tensor out, double[] scale, double[] shift) {
        int[] shape = in.shape();
        int n = shape[0], c = shape[1], s = in.numel() / Math.max(1, n * c);
        int src = in.storageOffset(), dst = out.storageOffset();
        switch (in.storage().data()) {
            case float[] x -> {
                float[] y = out.storage().floats(), a = toFloats(scale), b = toFloats(shift);
                if (s == 1) {
                    Parallel.forRange(n, c, (lo, hi) -> {
                        for (int r = lo; r < hi; r++) {
                            int p = src + r * c, q = dst + r * c;
                            for (int k = 0; k < c; k++) y[q + k] = x[p + k] * a[k] + b[k];
                        }
                    });
                } else {
                    Parallel.forRange(n * c, s, (lo, hi) -> {
                        for (int r = lo; r < hi; r++) {
                            int p = src + r * s, q = dst + r * s;
                            float ak = a[r % c], bk = b[r % c];
                            for (int k = 0; k < s; k++) y[q + k] = x[p + k] * ak + bk;
                        }
                    });
                }
            }
            case double[] x -> {
                double[] y = out.storage().doubles();
                Parallel.forRange(n * c, s, (lo, hi) -> {
                    for (int r = lo; r < hi; r++) {
                        int p = src + r * s, q = dst + r * s;
                        double ak = scale[r % c], bk = shift[r % c];
                        for (int k = 0; k < s; k++) y[q + k] = x[p + k] * ak + bk;
                    }
                });
            }
            default -> throw new IllegalStateException("batch_norm takes float32 or float64, got " + in.dtype());
        }
    }

    /** {@code running = (1 - momentum) * running + momentum * batch}, element {@code c} in row-major order; bumps the version. */
    public static void updateRunning(Tensor running, double[] batch, double momentum) {
        Storage s = running.storage();
        int[] offsets = elementOffsets(running);
        for (int c = 0; c < batch.length; c++) {
            s.writeDouble(offsets[c], (1 - momentum) * s.readDouble(offsets[c]) + momentum * batch[c]);
        }
        running.bumpVersion();
    }

    private static int[] elementOffsets(Tensor t) {
        int[] shape = t.shape(), strides = t.strides(), out = new int[t.numel()];
        for (int i = 0; i < out.length; i++) {
            int rem = i, off = t.storageOffset();
            for (int d = shape.length - 1; d >= 0; d--) {
                off += rem % shape[d] * strides[d];
                rem /= shape[d];
            }
            out[i] = off;
        }
        return out;
    }

    private static float[] toFloats(double[] v) {
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) out[i] = (float) v[i];
        return out;
    }
}
