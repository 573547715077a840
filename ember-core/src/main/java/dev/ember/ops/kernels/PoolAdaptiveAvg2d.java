package dev.ember.ops.kernels;

import dev.ember.tensor.Tensor;

/**
 * adaptive_avg_pool2d: output pixel (oh, ow) averages input rows
 * {@code [floor(oh*H/outH), ceil((oh+1)*H/outH))} and the same for columns, divided as ATen does
 * ({@code sum / kh / kw}). Floating types only.
 */
public final class PoolAdaptiveAvg2d {
    private PoolAdaptiveAvg2d() {}

    public static void forward(Tensor input4d, Tensor out4d, PoolGeometry g) {
        Object x = input4d.storage().data(), y = out4d.storage().data();
        g.forEachPlane(input4d, out4d, switch (x) {
            case float[] xf -> (xb, sh, sw, yb) -> planeFloat(xf, xb, sh, sw, (float[]) y, yb, g);
            case double[] xd -> (xb, sh, sw, yb) -> planeDouble(xd, xb, sh, sw, (double[]) y, yb, g);
            default -> throw new IllegalArgumentException("adaptive_avg_pool2d: unsupported storage " + x.getClass().getSimpleName());
        });
    }

    /** The geometry of an adaptive pool from {@code height x width} to {@code outH x outW} (kernel fields give the largest window). */
    public static PoolGeometry geometry(int height, int width, int outH, int outW) {
        return new PoolGeometry(Math.ceilDiv(height, Math.max(outH, 1)) + 1, Math.ceilDiv(width, Math.max(outW, 1)) + 1,
                1, 1, 0, 0, 1, 1, height, width, outH, outW);
    }

    private static int start(int out, int outSize, int inSize) {
        return (int) ((long) out / outSize * inSize + (long) out % outSize * inSize / outSize);
    }

    private static int end(int out, int outSize, int inSize) {
        return (int) (1 + ((long) (out + 1) * inSize - 1) / outSize);
    }

    private static void planeFloat(float[] x, int xb, int sh, int sw, float[] y, int yb, PoolGeometry g) {
        for (int oh = 0; oh < g.outH(); oh++) {
            int h0 = start(oh, g.outH(), g.height()), h1 = end(oh, g.outH(), g.height());
            for (int ow = 0; ow < g.outW(); ow++) {
                int w0 = start(ow, g.outW(), g.width()), w1 = end(ow, g.outW(), g.width());
                float sum = 0;
                for (int h = h0; h < h1; h++) {
                    for (int w = w0, i = xb + h * sh + w * sw; w < w1; w++, i += sw) sum += x[i];
                }
                y[yb++] = sum / (h1 - h0) / (w1 - w0);
            }
        }
    }

    private static void planeDouble(double[] x, int xb, int sh, int sw, double[] y, int yb, PoolGeometry g) {
        for (int oh = 0; oh < g.outH(); oh++) {
            int h0 = start(oh, g.outH(), g.height()), h1 = end(oh, g.outH(), g.height());
            for (int ow = 0; ow < g.outW(); ow++) {
                int w0 = start(ow, g.outW(), g.width()), w1 = end(ow, g.outW(), g.width());
                double sum = 0;
                for (int h = h0; h < h1; h++) {
                    for (int w = w0, i = xb + h * sh + w * sw; w < w1; w++, i += sw) sum += x[i];
                }
                y[yb++] = sum / (h1 - h0) / (w1 - w0);
            }
        }
    }
}
