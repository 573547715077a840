package dev.ember.ops.eager;

import dev.ember.kernels.Conv2dGeometry;
import dev.ember.kernels.ConvIm2col;
import dev.ember.kernels.ConvWorkspace;
import dev.ember.kernels.Gemm;
import dev.ember.kernels.Parallel;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

/**
 * The gradients of a 2-d convolution ({@link Conv2d}) as GEMMs over the same im2col column
 * matrices, per image and group: {@code gradWeight[Og x taps] += gradOut[Og x pixels] @ columnsᵀ},
 * {@code gradColumns[taps x pixels] = weightᵀ @ gradOut[Og x pixels]} folded back onto the input
 * (col2im), and {@code gradBias[o]} the sum of output channel o's gradient. Floating dtypes;
 * strides, padding, dilation and groups as the forward.
 */
public final class Conv2dBackward {
    private Conv2dBackward() {}

    /**
     * Fills the requested gradients, each a fresh zeroed contiguous tensor (or null when not
     * wanted): {@code gradInput} {@code [N, C, H, W]}, {@code gradWeight} {@code [O, C/groups, kH, kW]},
     * {@code gradBias} {@code [O]}. {@code input} may have any strides.
     */
    public static void backward(Tensor gradOutput, Tensor input, Tensor weight, Conv2dGeometry g,
                                Tensor gradInput, Tensor gradWeight, Tensor gradBias) {
        Tensor go = contiguous(gradOutput);
        int pixels = g.outPixels(), og = g.groupOutChannels(), taps = g.groupTaps(), channels = g.outChannels();
        Object gd = go.storage().data();
        int goBase = go.storageOffset();
        if (gradBias != null) bias(go, gradBias, g);
        if (pixels == 0 || g.batch() == 0 || taps == 0) return;
        int rows = g.channels() * g.kernelH() * g.kernelW();
        if (gradWeight != null) {
            Object col = ConvWorkspace.array(ConvWorkspace.Slot.COLUMNS, gd, rows * pixels);
            Object gw = gradWeight.storage().data();
            int[] s = input.strides();
            for (int n = 0; n < g.batch(); n++) {
                ConvIm2col.unfold(g, input.storage().data(), input.storageOffset() + n * s[0], s[1], s[2], s[3], col, 0, pixels, 0, rows);
                for (int group = 0; group < g.groups(); group++) {
                    Gemm.Operand a = new Gemm.Operand(gd, goBase + (n * channels + group * og) * pixels, pixels, false);
                    Gemm.Operand b = new Gemm.Operand(col, group * taps * pixels, pixels, true);
                    Gemm.multiply(og, taps, pixels, 1, a, b, n == 0 ? 0 : 1, gw, gradWeight.storageOffset() + group * og * taps, taps);
                }
            }
        }
        if (gradInput != null) {
            Tensor w = contiguous(weight);
            Object gi = gradInput.storage().data();
            int image = g.channels() * g.height() * g.width();
            Parallel.forRange(g.batch(), (long) rows * pixels * og, (lo, hi) -> {
                Object cols = ConvWorkspace.array(ConvWorkspace.Slot.PRODUCT, gd, rows * pixels);
                for (int n = lo; n < hi; n++) {
                    for (int group = 0; group < g.groups(); group++) {
                        Gemm.Operand a = new Gemm.Operand(w.storage().data(), w.storageOffset() + group * og * taps, taps, true);
                        Gemm.Operand b = new Gemm.Operand(gd, goBase + (n * channels + group * og) * pixels, pixels, false);
                        Gemm.multiply(taps, pixels, og, 1, a, b, 0, cols, group * taps * pixels, pixels);
                    }
                    ConvIm2col.fold(g, cols, 0, pixels, gi, gradInput.storageOffset() + n * image);
                }
            });
        }
    }

    /** gradBias[o] = Σ over images and pixels of gradOut[n, o], summed in double. */
    private static void bias(Tensor go, Tensor gradBias, Conv2dGeometry g) {
        int pixels = g.outPixels(), channels = g.outChannels();
        double[] sums = new double[channels];
        for (int n = 0; n < g.batch(); n++) {
            for (int o = 0; o < channels; o++) {
                int base = go.storageOffset() + (n * channels + o) * pixels;
                double s = 0;
                for (int p = 0; p < pixels; p++) s += go.storage().readDouble(base + p);
                sums[o] += s;
            }
        }
        for (int o = 0; o < channels; o++) gradBias.storage().writeDouble(gradBias.storageOffset() + o, sums[o]);
    }

    private static Tensor contiguous(Tensor t) {
        if (t.isContiguous()) return t;
        Tensor c = Tensor.allocate(TensorMeta.contiguous(t.dtype(), t.shape()));
        Copy.copy(t, c);
        return c;
    }
}
