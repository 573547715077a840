package dev.ember.ops.kernels;

import dev.ember.tensor.Tensor;

/**
 * avg_pool2d as ATen's CPU kernel computes it: the window is clipped to input + padding (ceil
 * mode windows may run past it), the sum covers the part inside the input, and the divisor is
 * {@code divisor_override}, else the clipped window's area with padding ({@code count_include_pad})
 * or without it. A window wholly in the padding gives 0. Integer (int64) averages truncate.
 */
public final class PoolAvg2d {
    private PoolAvg2d() {}

    /** {@code divisorOverride} null: none. */
    public static void forward(Tensor input4d, Tensor out4d, PoolGeometry g, boolean countIncludePad, Integer divisorOverride) {
        Object x = input4d.storage().data(), y = out4d.storage().data();
        Window window = new Window(g, countIncludePad, divisorOverride);
        g.forEachPlane(input4d, out4d, switch (x) {
            case float[] xf -> (xb, sh, sw, yb) -> planeFloat(xf, xb, sh, sw, (float[]) y, yb, window);
            case double[] xd -> (xb, sh, sw, yb) -> planeDouble(xd, xb, sh, sw, (double[]) y, yb, window);
            case long[] xl -> (xb, sh, sw, yb) -> planeLong(xl, xb, sh, sw, (long[]) y, yb, window);
            default -> throw new IllegalArgumentException("avg_pool2d: unsupported storage " + x.getClass().getSimpleName());
        });
    }

    /** The clipped bounds of one output pixel's window and its divisor, filled in by {@link #at}. */
    private static final class Window {
        final PoolGeometry g;
        final boolean countIncludePad;
        final Integer divisorOverride;

        Window(PoolGeometry g, boolean countIncludePad, Integer divisorOverride) {
            this.g = g;
            this.countIncludePad = countIncludePad;
            this.divisorOverride = divisorOverride;
        }

        /** {h0, h1, w0, w1, divisor} for output pixel (oh, ow); h0 >= h1 or w0 >= w1 when it covers no input. */
        void at(int oh, int ow, int[] b) {
            int h0 = oh * g.strideH() - g.padH(), w0 = ow * g.strideW() - g.padW();
            int h1 = Math.min(h0 + g.kernelH(), g.height() + g.padH()), w1 = Math.min(w0 + g.kernelW(), g.width() + g.padW());
            int poolSize = (h1 - h0) * (w1 - w0);
            h0 = Math.max(h0, 0);
            w0 = Math.max(w0, 0);
            h1 = Math.min(h1, g.height());
            w1 = Math.min(w1, g.width());
            b[0] = h0;
            b[1] = h1;
            b[2] = w0;
            b[3] = w1;
            b[4] = divisorOverride != null ? divisorOverride : countIncludePad ? poolSize : (h1 - h0) * (w1 - w0);
        }
    }

    private static void planeFloat(float[] x, int xb, int sh, int sw, float[] y, int yb, Window win) {
        int[] b = new int[5];
        for (int oh = 0; oh < win.g.outH(); oh++) {
            for (int ow = 0; ow < win.g.outW(); ow++, yb++) {
                win.at(oh, ow, b);
                if (b[0] >= b[1] || b[2] >= b[3]) continue;
                float sum = 0;
                for (int h = b[0]; h < b[1]; h++) {
                    for (int w = b[2], i = xb + h * sh + w * sw; w < b[3]; w++, i += sw) sum += x[i];
                }
                y[yb] = sum / b[4];
            }
        }
    }

    private static void planeDouble(double[] x, int xb, int sh, int sw, double[] y, int yb, Window win) {
        int[] b = new int[5];
        for (int oh = 0; oh < win.g.outH(); oh++) {
            for (int ow = 0; ow < win.g.outW(); ow++, yb++) {
                win.at(oh, ow, b);
                if (b[0] >= b[1] || b[2] >= b[3]) continue;
                double sum = 0;
                for (int h = b[0]; h < b[1]; h++) {
                    for (int w = b[2], i = xb + h * sh + w * sw; w < b[3]; w++, i += sw) sum += x[i];
                }
                y[yb] = sum / b[4];
            }
        }
    }

    private static void planeLong(long[] x, int xb, int sh, int sw, long[] y, int yb, Window win) {
        int[] b = new int[5];
        for (int oh = 0; oh < win.g.outH(); oh++) {
            for (int ow = 0; ow < win.g.outW(); ow++, yb++) {
                win.at(oh, ow, b);
                if (b[0] >= b[1] || b[2] >= b[3]) continue;
                long sum = 0;
                for (int h = b[0]; h < b[1]; h++) {
                    for (int w = b[2], i = xb + h * sh + w * sw; w < b[3]; w++, i += sw) sum += x[i];
                }
                y[yb] = sum / b[4];
            }
        }
    }
}
