package dev.ember.ops.eager;

import dev.ember.kernels.Parallel;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;

/**
 * 3-d max and average pooling over planes {@code [planes, D, H, W]}: straightforward loops, one
 * plane per task across cores, with ATen's window rules (those of the 2-d kernels one dimension
 * up). Inputs and gradients are contiguous, outputs fresh and contiguous; floating values are
 * read as double and integer ones as long, so no value is rounded on the way.
 */
public final class Pool3d {
    private Pool3d() {}

    /** One window layout: per dimension (depth, height, width) kernel, stride, padding, dilation, input and output size. */
    public record Window(int[] kernel, int[] stride, int[] padding, int[] dilation, int[] in, int[] out) {
        int inVoxels() { return in[0] * in[1] * in[2]; }

        int outVoxels() { return out[0] * out[1] * out[2]; }
    }

    /**
     * Each output the maximum of its (dilated) window, and its flat position {@code (d*H + h)*W + w}
     * in the input plane: the first maximum, or the last NaN (ATen's {@code val > max || isnan(val)}).
     */
    public static void maxForward(Tensor input, Tensor out, Tensor indices, Window g) {
        Storage x = input.storage(), y = out.storage();
        long[] ix = indices.storage().longs();
        boolean floating = input.dtype().isFloatingPoint();
        int inV = g.inVoxels(), outV = g.outVoxels(), planes = input.numel() / Math.max(1, inV);
        int x0 = input.storageOffset();
        Parallel.forRange(planes, (long) outV * g.kernel()[0] * g.kernel()[1] * g.kernel()[2], (lo, hi) -> {
            int[] lo3 = new int[3], hi3 = new int[3];
            for (int p = lo; p < hi; p++) {
                int o = p * outV;
                for (int od = 0; od < g.out()[0]; od++) {
                    for (int oh = 0; oh < g.out()[1]; oh++) {
                        for (int ow = 0; ow < g.out()[2]; ow++, o++) {
                            dilatedBounds(g, new int[] {od, oh, ow}, lo3, hi3);
                            long at = ((long) lo3[0] * g.in()[1] + lo3[1]) * g.in()[2] + lo3[2];
                            double maxD = Double.NEGATIVE_INFINITY;
                            long maxL = Long.MIN_VALUE;
                            for (int d = lo3[0]; d < hi3[0]; d += g.dilation()[0]) {
                                for (int h = lo3[1]; h < hi3[1]; h += g.dilation()[1]) {
                                    for (int w = lo3[2]; w < hi3[2]; w += g.dilation()[2]) {
                                        int i = (d * g.in()[1] + h) * g.in()[2] + w;
                                        if (floating) {
                                            double v = x.readDouble(x0 + p * inV + i);
                                            if (v > maxD || Double.isNaN(v)) { maxD = v; at = i; }
                                        } else {
                                            long v = x.readLong(x0 + p * inV + i);
                                            if (v > maxL) { maxL = v; at = i; }
                                        }
                                    }
                                }
                            }
                            ix[o] = at;
                            if (floating) y.writeDouble(o, maxD);
                            else y.writeLong(o, maxL);
                        }
                    }
                }
            }
        });
    }

    /**
     * Each output the sum of its window over its divisor: {@code divisorOverride}, else the window
     * clipped to the padded input ({@code countIncludePad}) or to the input; 0 for a window that
     * covers no input. Integer sums divide as ATen's do, truncating.
     */
    public static void avgForward(Tensor input, Tensor out, Window g, boolean countIncludePad, Integer divisorOverride) {
        Storage x = input.storage(), y = out.storage();
        boolean floating = input.dtype().isFloatingPoint();
        int inV = g.inVoxels(), outV = g.outVoxels(), planes = input.numel() / Math.max(1, inV), x0 = input.storageOffset();
        Parallel.forRange(planes, (long) outV * g.kernel()[0] * g.kernel()[1] * g.kernel()[2], (lo, hi) -> {
            int[] b = new int[7];
            for (int p = lo; p < hi; p++) {
                int o = p * outV;
                for (int od = 0; od < g.out()[0]; od++) {
                    for (int oh = 0; oh < g.out()[1]; oh++) {
                        for (int ow = 0; ow < g.out()[2]; ow++, o++) {
                            if (!avgWindow(g, od, oh, ow, countIncludePad, divisorOverride, b)) continue; // the output stays 0
                            double sumD = 0;
                            long sumL = 0;
                            for (int d = b[0]; d < b[1]; d++) {
                                for (int h = b[2]; h < b[3]; h++) {
                                    for (int w = b[4]; w < b[5]; w++) {
                                        int i = x0 + p * inV + (d * g.in()[1] + h) * g.in()[2] + w;
                                        if (floating) sumD += x.readDouble(i);
                                        else sumL += x.readLong(i);
                                    }
                                }
                            }
                            if (floating) y.writeDouble(o, sumD / b[6]);
                            else y.writeLong(o, sumL / b[6]);
                        }
                    }
                }
            }
        });
    }

    /** avg_pool3d's gradient: each output gradient over its divisor, added to every input voxel its window summed. */
    public static void avgBackward(Tensor gradOut, Tensor gradIn, Window g, boolean countIncludePad, Integer divisorOverride) {
        Storage go = gradOut.storage(), gi = gradIn.storage();
        int inV = g.inVoxels(), outV = g.outVoxels(), planes = gradIn.numel() / Math.max(1, inV), g0 = gradOut.storageOffset();
        Parallel.forRange(planes, (long) outV * g.kernel()[0] * g.kernel()[1] * g.kernel()[2], (lo, hi) -> {
            int[] b = new int[7];
            for (int p = lo; p < hi; p++) {
                int o = p * outV;
                for (int od = 0; od < g.out()[0]; od++) {
                    for (int oh = 0; oh < g.out()[1]; oh++) {
                        for (int ow = 0; ow < g.out()[2]; ow++, o++) {
                            if (!avgWindow(g, od, oh, ow, countIncludePad, divisorOverride, b)) continue;
                            double share = go.readDouble(g0 + o) / b[6];
                            for (int d = b[0]; d < b[1]; d++) {
                                for (int h = b[2]; h < b[3]; h++) {
                                    for (int w = b[4]; w < b[5]; w++) {
                                        int i = p * inV + (d * g.in()[1] + h) * g.in()[2] + w;
                                        gi.writeDouble(i, gi.readDouble(i) + share);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        });
    }

    /**
     * Adaptive average pooling of contiguous planes {@code [planes, D, H, W]} to {@code out}'s last
     * three sizes: output {@code o} of a dimension averages inputs {@code [floor(o*in/out), ceil((o+1)*in/out))}.
     */
    public static void adaptiveAvgForward(Tensor input, Tensor out, int[] in, int[] size) {
        adaptive(input.storage(), input.storageOffset(), out.storage(), in, size, out.numel() / Math.max(1, size[0] * size[1] * size[2]), false);
    }

    /** adaptive_avg_pool3d's gradient: each output gradient over its window's volume, added over the window. */
    public static void adaptiveAvgBackward(Tensor gradOut, Tensor gradIn, int[] in, int[] size) {
        adaptive(gradOut.storage(), gradOut.storageOffset(), gradIn.storage(), in, size, gradOut.numel() / Math.max(1, size[0] * size[1] * size[2]), true);
    }

    private static void adaptive(Storage src, int s0, Storage dst, int[] in, int[] size, int planes, boolean backward) {
        int inV = in[0] * in[1] * in[2], outV = size[0] * size[1] * size[2];
        Parallel.forRange(planes, (long) inV, (lo, hi) -> {
            int[] b = new int[6];
            for (int p = lo; p < hi; p++) {
                int o = p * outV;
                for (int od = 0; od < size[0]; od++) {
                    for (int oh = 0; oh < size[1]; oh++) {
                        for (int ow = 0; ow < size[2]; ow++, o++) {
                            int[] at = {od, oh, ow};
                            long count = 1;
                            for (int k = 0; k < 3; k++) {
                                b[2 * k] = (int) Math.floorDiv((long) at[k] * in[k], size[k]);
                                b[2 * k + 1] = (int) Math.ceilDiv((long) (at[k] + 1) * in[k], size[k]);
                                count *= b[2 * k + 1] - b[2 * k];
                            }
                            double share = backward ? src.readDouble(s0 + o) / count : 0, sum = 0;
                            for (int d = b[0]; d < b[1]; d++) {
                                for (int h = b[2]; h < b[3]; h++) {
                                    for (int w = b[4]; w < b[5]; w++) {
                                        int i = p * inV + (d * in[1] + h) * in[2] + w;
                                        if (backward) dst.writeDouble(i, dst.readDouble(i) + share);
                                        else sum += src.readDouble(s0 + i);
                                    }
                                }
                            }
                            if (!backward) dst.writeDouble(o, sum / count);
                        }
                    }
                }
            }
        });
    }

    /** A max window's first in-bounds tap and its end per dimension, on the dilation's grid. */
    private static void dilatedBounds(Window g, int[] o, int[] lo, int[] hi) {
        for (int k = 0; k < 3; k++) {
            int start = o[k] * g.stride()[k] - g.padding()[k], dil = g.dilation()[k];
            hi[k] = Math.min(start + (g.kernel()[k] - 1) * dil + 1, g.in()[k]);
            lo[k] = start >= 0 ? start : start + Math.ceilDiv(-start, dil) * dil;
        }
    }

    /** Fills {@code b} with {d0, d1, h0, h1, w0, w1, divisor} for one output; false when the window covers no input. */
    private static boolean avgWindow(Window g, int od, int oh, int ow, boolean countIncludePad, Integer divisorOverride, int[] b) {
        int[] o = {od, oh, ow};
        int poolSize = 1, inside = 1;
        for (int k = 0; k < 3; k++) {
            int start = o[k] * g.stride()[k] - g.padding()[k];
            int end = Math.min(start + g.kernel()[k], g.in()[k] + g.padding()[k]);
            poolSize *= end - start;
            start = Math.max(start, 0);
            end = Math.min(end, g.in()[k]);
            if (start >= end) return false;
            inside *= end - start;
            b[2 * k] = start;
            b[2 * k + 1] = end;
        }
        b[6] = divisorOverride != null ? divisorOverride : countIncludePad ? poolSize : inside;
        return true;
    }
}
