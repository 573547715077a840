package dev.ember.ops.kernels;

/**
 * Unfolds one image for convolution as a GEMM: row {@code (c, i, j)} of the column matrix holds,
 * for every output pixel, the input pixel under kernel tap {@code (i, j)} of channel {@code c}.
 * Pixels that fall in the padding are never written, so a zeroed buffer reused for image after
 * image (same geometry, same untouched positions) keeps its zeros.
 */
final class ConvIm2col {
    private ConvIm2col() {}

    /**
     * Fills rows {@code [rowLo, rowHi)} of the image's column block in {@code col}
     * ({@code channels*kh*kw} rows of {@code outH*outW} pixels, starting at {@code colOffset},
     * rows {@code rowStride} apart) from the image at {@code base} in {@code src} with strides
     * {@code sc, sh, sw} (channel, row, column).
     */
    static void unfold(Conv2dGeometry g, Object src, int base, int sc, int sh, int sw, Object col, int colOffset, int rowStride, int rowLo, int rowHi) {
        int kk = g.kernelH() * g.kernelW();
        for (int r = rowLo; r < rowHi; r++) {
            int c = r / kk, i = r % kk / g.kernelW(), j = r % g.kernelW();
            int shift = j * g.dilationW() - g.padW();
            int owLo = Math.max(0, Math.ceilDiv(-shift, g.strideW()));
            int owHi = Math.min(g.outW(), Math.floorDiv(g.width() - 1 - shift, g.strideW()) + 1);
            if (owHi <= owLo) continue;
            int step = g.strideW() * sw;
            int channelBase = base + c * sc + (owLo * g.strideW() + shift) * sw;
            int dst = colOffset + r * rowStride + owLo;
            for (int oh = 0; oh < g.outH(); oh++, dst += g.outW()) {
                int ih = oh * g.strideH() - g.padH() + i * g.dilationH();
                if (ih < 0 || ih >= g.height()) continue;
                copyRun(src, channelBase + ih * sh, step, col, dst, owHi - owLo);
            }
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
