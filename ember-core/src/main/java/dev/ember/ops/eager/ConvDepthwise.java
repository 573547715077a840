package dev.ember.ops.eager;

import dev.ember.kernels.Conv2dGeometry;
import dev.ember.kernels.Parallel;
import dev.ember.tensor.Tensor;

/**
 * Convolution with one input channel per group (depthwise, with any channel multiplier): each
 * output plane is a sum of shifted, scaled input rows, accumulated tap by tap so that the inner
 * loop runs along a row. Planes are independent and spread across cores. A GEMM per plane would
 * have an inner dimension of only kernelH*kernelW.
 */
final class ConvDepthwise {
    private ConvDepthwise() {}

    /** Adds the convolution to {@code out} (contiguous, holding the bias or zeros); float32 and float64 only. */
    static void forward(Tensor input, Tensor weight, Tensor out, Conv2dGeometry g) {
        int[] xs = input.strides(), ws = weight.strides();
        int multiplier = g.groupOutChannels(), pixels = g.outPixels();
        Parallel.forRange(g.batch() * g.outChannels(), (long) pixels * g.kernelH() * g.kernelW(), (lo, hi) -> {
            for (int plane = lo; plane < hi; plane++) {
                int n = plane / g.outChannels(), o = plane % g.outChannels();
                int xBase = input.storageOffset() + n * xs[0] + (o / multiplier) * xs[1];
                int wBase = weight.storageOffset() + o * ws[0];
                for (int i = 0; i < g.kernelH(); i++) {
                    for (int j = 0; j < g.kernelW(); j++) {
                        accumulateTap(input.storage().data(), xBase, xs[2], xs[3], weight.storage().data(), wBase + i * ws[2] + j * ws[3],
                                out.storage().data(), plane * pixels, g, i, j);
                    }
                }
            }
        });
    }

    /** {@code out[oh, ow] += w * x[oh*sh - ph + i*dh, ow*sw - pw + j*dw]} over the output pixels whose tap lands inside the input. */
    private static void accumulateTap(Object x, int xBase, int sh, int sw, Object w, int wIndex, Object out, int outBase,
                                      Conv2dGeometry g, int i, int j) {
        int colOffset = j * g.dilationW() - g.padW();
        int owLo = Math.max(0, Math.ceilDiv(-colOffset, g.strideW()));
        int owHi = Math.min(g.outW(), Math.floorDiv(g.width() - 1 - colOffset, g.strideW()) + 1);
        if (owHi <= owLo) return;
        int step = g.strideW() * sw;
        for (int oh = 0; oh < g.outH(); oh++) {
            int ih = oh * g.strideH() - g.padH() + i * g.dilationH();
            if (ih < 0 || ih >= g.height()) continue;
            int src = xBase + ih * sh + (owLo * g.strideW() + colOffset) * sw;
            int dst = outBase + oh * g.outW();
            switch (out) {
                case float[] o -> {
                    float[] xf = (float[]) x;
                    float wv = ((float[]) w)[wIndex];
                    if (step == 1) for (int ow = owLo; ow < owHi; ow++, src++) o[dst + ow] += wv * xf[src];
                    else for (int ow = owLo; ow < owHi; ow++, src += step) o[dst + ow] += wv * xf[src];
                }
                case double[] o -> {
                    double[] xd = (double[]) x;
                    double wv = ((double[]) w)[wIndex];
                    if (step == 1) for (int ow = owLo; ow < owHi; ow++, src++) o[dst + ow] += wv * xd[src];
                    else for (int ow = owLo; ow < owHi; ow++, src += step) o[dst + ow] += wv * xd[src];
                }
                default -> throw new IllegalArgumentException("depthwise convolution: unsupported storage " + out.getClass().getSimpleName());
            }
        }
    }
}
