package dev.ember.ops.eager;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

/**
 * The negative log likelihood loss forward, step for step as ATen's CPU kernels
 * ({@code nll_loss_out_frame}, {@code nll_loss2d_forward_out_frame}) so results agree to the bit:
 * the input is read as (batch, classes, positions), a target equal to {@code ignoreIndex} counts
 * nothing, and the reduced sums run through ATen's eight-level cascade in the input's precision.
 * (float32 steps are computed in double and rounded: for one +, - or * of two floats that is exactly
 * the float result.)
 */
public final class NllLoss {
    private NllLoss() {}

    /** ATen's at::Reduction. */
    public static final int NONE = 0, MEAN = 1, SUM = 2;

    private static final int LEVELS = 8, LEVEL_POWER = 4, LEVEL_MASK = (1 << LEVEL_POWER) - 1;

    /**
     * Fills {@code output} (a fresh tensor: one loss per (batch, position) for {@link #NONE} on a
     * batch, else 0-d: an unbatched sample's loss is its sum) and {@code totalWeight} (0-d: the
     * summed weights of the counted targets, 0 for a batch left unreduced).
     * {@code input} is [classes] (one sample), [batch, classes] or [batch, classes, positions…];
     * {@code targets} holds one class per (batch, position), already checked to be in range or ignored.
     */
    public static void forward(Tensor input, long[] targets, Tensor weight, int reduction, long ignoreIndex, Tensor output, Tensor totalWeight) {
        boolean f32 = input.dtype() == DType.FLOAT32;
        Tensor x = input.contiguous();
        double[] w = weight == null ? null : weight.contiguous().toDoubleArray();
        int classes = input.dim() == 1 ? input.size(0) : input.size(1);
        int positions = 1;
        for (int d = 2; d < input.dim(); d++) positions *= input.size(d);
        int count = targets.length;
        if (reduction == NONE && input.dim() > 1) {
            for (int i = 0; i < count; i++) {
                long t = targets[i];
                double loss = t == ignoreIndex ? 0 : -value(x, i, t, classes, positions) * (w == null ? 1 : w[(int) t]);
                output.storage().writeDouble(i, round(f32, loss));
            }
            return;
        }
        if (count == 0) {
            output.storage().writeDouble(0, reduction == MEAN ? Double.NaN : 0);
            return;
        }
        double[] losses = new double[LEVELS], weights = new double[LEVELS];
        int ignored = 0;
        for (int i = 0; i < count; i++) {
            long t = targets[i];
            if (t == ignoreIndex) { ignored++; continue; }
            double data = value(x, i, t, classes, positions);
            if (w != null) {
                losses[0] = round(f32, losses[0] - round(f32, data * w[(int) t]));
                weights[0] = round(f32, weights[0] + w[(int) t]);
            } else {
                losses[0] = round(f32, losses[0] - data);
            }
            for (int j = 0; j + 1 < LEVELS; j++) {
                if ((i & (LEVEL_MASK << (j * LEVEL_POWER))) != 0) break;
                weights[j + 1] = round(f32, weights[j + 1] + weights[j]);
                losses[j + 1] = round(f32, losses[j + 1] + losses[j]);
                weights[j] = 0;
                losses[j] = 0;
            }
        }
        double total = w == null ? round(f32, count - ignored) : accumulate(f32, weights);
        double loss = accumulate(f32, losses);
        if (reduction == MEAN) loss = round(f32, loss / total);
        output.storage().writeDouble(0, loss);
        totalWeight.storage().writeDouble(0, total);
    }

    /**
     * nll_loss_backward: {@code gradInput} (a fresh zeroed contiguous tensor of the input's shape,
     * [classes] or [batch, classes]) gets {@code -weight[t] * g} at each counted sample's target
     * class, where g is the sample's own gradient for {@link #NONE} on a batch, else the single
     * gradient (divided by {@code totalWeight} for {@link #MEAN}).
     */
    public static void backward(Tensor gradOutput, long[] targets, Tensor weight, int reduction, long ignoreIndex, double totalWeight, Tensor gradInput) {
        boolean f32 = gradInput.dtype() == DType.FLOAT32;
        double[] w = weight == null ? null : weight.contiguous().toDoubleArray();
        double[] g = gradOutput.contiguous().toDoubleArray();
        int classes = gradInput.size(-1);
        boolean perSample = reduction == NONE && gradInput.dim() == 2;
        double shared = perSample ? 0 : reduction == MEAN ? g[0] / totalWeight : g[0];
        for (int i = 0; i < targets.length; i++) {
            long t = targets[i];
            if (t == ignoreIndex) continue;
            double v = -(perSample ? g[i] : shared) * (w == null ? 1 : w[(int) t]);
            gradInput.storage().writeDouble(i * classes + (int) t, round(f32, v));
        }
    }

    /** The input's element for sample {@code i} (batch-major over positions) and class {@code t}. */
    private static double value(Tensor x, int i, long t, int classes, int positions) {
        int b = i / positions, p = i % positions;
        return x.storage().readDouble(x.storageOffset() + (b * classes + (int) t) * positions + p);
    }

    private static double accumulate(boolean f32, double[] partials) {
        double s = 0;
        for (double v : partials) s = round(f32, s + v);
        return s;
    }

    private static double round(boolean f32, double v) { return f32 ? (float) v : v; }
}
