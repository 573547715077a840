package dev.ember.kernels;

import java.util.Arrays;

/**
 * Unfolds one image for convolution as a GEMM: row {@code (c, i, j)} of the column matrix holds,
 * for every output pixel, the input pixel under kernel tap {@code (i, j)} of channel {@code c},
 * or 0 where the tap falls in the padding. Every element of the image's block is written, so the
 * buffer may hold anything before.
 */
public final class ConvIm2col {
    private ConvIm2col() {}

    /**
     * Fills rows {@code [rowLo, rowHi)} of the image's column block in {@code col}
     * ({@code channels*kh*kw} rows of {@code outH*outW} pixels, starting at {@code colOffset},
     * rows {@code rowStride} apart) from the image at {@code base} in {@code src} with strides
     * {@code sc, sh, sw} (channel, row, column).
     */
    public static void unfold(Conv2dGeometry g, Object src, int base, int sc, int sh, int sw, Object col, int colOffset, int rowStride, int rowLo, int rowHi) {
        int kk = g.kernelH() * g.kernelW(), outW = g.outW();
        for (int r = rowLo; r < rowHi; r++) {
            int c = r / kk, i = r % kk / g.kernelW(), j = r % g.kernelW();
            int shift = j * g.dilationW() - g.padW();
            int owLo = Math.max(0, Math.ceilDiv(-shift, g.strideW()));
            int owHi = Math.max(owLo, Math.min(outW, Math.floorDiv(g.width() - 1 - shift, g.strideW()) + 1));
            int step = g.strideW() * sw;
            int channelBase = base + c * sc + (owLo * g.strideW() + shift) * sw;
            int dst = colOffset + r * rowStride;
            for (int oh = 0; oh < g.outH(); oh++, dst += outW) {
                int ih = oh * g.strideH() - g.padH() + i * g.dilationH();
                if (ih < 0 || ih >= g.height() || owHi == owLo) {
                    zero(col, dst, dst + outW);
                    continue;
                }
                zero(col, dst, dst + owLo);
                copyRun(src, channelBase + ih * sh, step, col, dst + owLo, owHi - owLo);
                zero(col, dst + owHi, dst + outW);
            }
        }
    }

    /**
     * Unfolds images {@code [first, first+images)} of the batch at {@code base} in {@code src}
     * (strides {@code sn, sc, sh, sw}) side by side, across cores: image {@code i}'s block starts
     * at column {@code i*outPixels} of {@code col}, whose rows are {@code ld} apart. The product
     * of a group's weights with these columns is then one GEMM over all the images.
     */
    public static void unfoldImages(Conv2dGeometry g, Object src, int base, int sn, int sc, int sh, int sw,
                                    int first, int images, Object col, int ld) {
        int rows = g.channels() * g.kernelH() * g.kernelW(), pixels = g.outPixels();
        Parallel.forRange(images * rows, pixels, (lo, hi) -> {
            for (int i = lo; i < hi; i++) {
                int image = i / rows, row = i % rows;
                unfold(g, src, base + (first + image) * sn, sc, sh, sw, col, image * pixels, ld, row, row + 1);
            }
        });
    }

    /**
     * The adjoint of {@link #unfold} (col2im): adds row {@code (c, i, j)} of the column block in
     * {@code col} (rows {@code rowStride} apart, from {@code colOffset}) into the image at
     * {@code base} of {@code dst} (contiguous {@code [channels, height, width]}), each column value
     * onto the input pixel its tap read; taps in the padding add nothing. Floating buffers only.
     */
    public static void fold(Conv2dGeometry g, Object col, int colOffset, int rowStride, Object dst, int base) {
        fold(g, col, colOffset, rowStride, dst, base, 0, g.channels());
    }

    /**
     * {@link #fold} of the rows of channels {@code [channelLo, channelHi)} only: they add onto those
     * channels' planes and no others, so disjoint channel ranges may be folded at once.
     */
    public static void fold(Conv2dGeometry g, Object col, int colOffset, int rowStride, Object dst, int base, int channelLo, int channelHi) {
        int kk = g.kernelH() * g.kernelW(), outW = g.outW(), plane = g.height() * g.width();
        for (int r = channelLo * kk; r < channelHi * kk; r++) {
            int c = r / kk, i = r % kk / g.kernelW(), j = r % g.kernelW();
            int shift = j * g.dilationW() - g.padW();
            int owLo = Math.max(0, Math.ceilDiv(-shift, g.strideW()));
            int owHi = Math.max(owLo, Math.min(outW, Math.floorDiv(g.width() - 1 - shift, g.strideW()) + 1));
            int src = colOffset + r * rowStride;
            int channelBase = base + c * plane;
            for (int oh = 0; oh < g.outH(); oh++, src += outW) {
                int ih = oh * g.strideH() - g.padH() + i * g.dilationH();
                if (ih < 0 || ih >= g.height()) continue;
                int to = channelBase + ih * g.width() + owLo * g.strideW() + shift;
                switch (col) {
                    case float[] s -> { float[] d = (float[]) dst; for (int ow = owLo, k = src + owLo; ow < owHi; ow++, k++, to += g.strideW()) d[to] += s[k]; }
                    case double[] s -> { double[] d = (double[]) dst; for (int ow = owLo, k = src + owLo; ow < owHi; ow++, k++, to += g.strideW()) d[to] += s[k]; }
                    default -> throw new IllegalArgumentException("col2im: unsupported buffer " + col.getClass().getSimpleName());
                }
            }
        }
    }

    private static void zero(Object a, int from, int to) {
        if (from >= to) return;
        switch (a) {
            case float[] f -> Arrays.fill(f, from, to, 0f);
            case double[] d -> Arrays.fill(d, from, to, 0d);
            case int[] n -> Arrays.fill(n, from, to, 0);
            case long[] l -> Arrays.fill(l, from, to, 0L);
            default -> throw new IllegalArgumentException("im2col: unsupported buffer " + a.getClass().getSimpleName());
        }
    }

    private static void copyRun(Object src, int from, int step, Object dst, int to, int count) {
        if (step == 1) {
            System.arraycopy(src, from, dst, to, count);
            return;
        }
        switch (src) {
            case float[] s -> { float[] d = (float[]) dst; for (int k = 0; k < count; k++, from += step) d[to + k] = s[from]; }
            case double[] s -> { double[] d = (double[]) dst; for (int k = 0; k < count; k++, from += step) d[to + k] = s[from]; }
            case int[] s -> { int[] d = (int[]) dst; for (int k = 0; k < count; k++, from += step) d[to + k] = s[from]; }
            case long[] s -> { long[] d = (long[]) dst; for (int k = 0; k < count; k++, from += step) d[to + k] = s[from]; }
            default -> throw new IllegalArgumentException("im2col: unsupported storage " + src.getClass().getSimpleName());
        }
    }
}
