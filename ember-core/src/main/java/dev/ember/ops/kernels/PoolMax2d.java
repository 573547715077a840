package dev.ember.ops.kernels;

import dev.ember.tensor.Tensor;

/**
 * max_pool2d: the largest element of each (dilated) window, NaN if the window holds one, as
 * ATen's CPU kernel compares ({@code v > max || isnan(v)}). Padding never wins: windows are
 * clipped to the input; an empty window yields -inf (floats) or the type's minimum (integers).
 */
public final class PoolMax2d {
    private PoolMax2d() {}

    /** {@code input4d} is {@code [N, C, H, W]} (any strides), {@code out4d} contiguous {@code [N, C, outH, outW]}. */
    public static void forward(Tensor input4d, Tensor out4d, PoolGeometry g) {
        Object x = input4d.storage().data(), y = out4d.storage().data();
        g.forEachPlane(input4d, out4d, switch (x) {
            case float[] xf -> (xb, sh, sw, yb) -> planeFloat(xf, xb, sh, sw, (float[]) y, yb, g);
            case double[] xd -> (xb, sh, sw, yb) -> planeDouble(xd, xb, sh, sw, (double[]) y, yb, g);
            case int[] xi -> (xb, sh, sw, yb) -> planeInt(xi, xb, sh, sw, (int[]) y, yb, g);
            case long[] xl -> (xb, sh, sw, yb) -> planeLong(xl, xb, sh, sw, (long[]) y, yb, g);
            default -> throw new IllegalArgumentException("max_pool2d: unsupported storage " + x.getClass().getSimpleName());
        });
    }

    /** First in-input position of a dilated window starting at {@code start} (padding skipped in whole dilation steps). */
    private static int firstInside(int start, int dilation) {
        return start >= 0 ? start : start + Math.ceilDiv(-start, dilation) * dilation;
    }

    private static void planeFloat(float[] x, int xb, int sh, int sw, float[] y, int yb, PoolGeometry g) {
        for (int oh = 0; oh < g.outH(); oh++) {
            int h0 = oh * g.strideH() - g.padH(), h1 = Math.min(h0 + (g.kernelH() - 1) * g.dilationH() + 1, g.height());
            h0 = firstInside(h0, g.dilationH());
            for (int ow = 0; ow < g.outW(); ow++) {
                int w0 = ow * g.strideW() - g.padW(), w1 = Math.min(w0 + (g.kernelW() - 1) * g.dilationW() + 1, g.width());
                w0 = firstInside(w0, g.dilationW());
                float max = Float.NEGATIVE_INFINITY;
                for (int h = h0; h < h1; h += g.dilationH()) {
                    for (int w = w0, i = xb + h * sh + w0 * sw; w < w1; w += g.dilationW(), i += g.dilationW() * sw) {
                        float v = x[i];
                        if (v > max || v != v) max = v;
                    }
                }
                y[yb++] = max;
            }
        }
    }

    private static void planeDouble(double[] x, int xb, int sh, int sw, double[] y, int yb, PoolGeometry g) {
        for (int oh = 0; oh < g.outH(); oh++) {
            int h0 = oh * g.strideH() - g.padH(), h1 = Math.min(h0 + (g.kernelH() - 1) * g.dilationH() + 1, g.height());
            h0 = firstInside(h0, g.dilationH());
            for (int ow = 0; ow < g.outW(); ow++) {
                int w0 = ow * g.strideW() - g.padW(), w1 = Math.min(w0 + (g.kernelW() - 1) * g.dilationW() + 1, g.width());
                w0 = firstInside(w0, g.dilationW());
                double max = Double.NEGATIVE_INFINITY;
                for (int h = h0; h < h1; h += g.dilationH()) {
                    for (int w = w0, i = xb + h * sh + w0 * sw; w < w1; w += g.dilationW(), i += g.dilationW() * sw) {
                        double v = x[i];
                        if (v > max || v != v) max = v;
                    }
                }
                y[yb++] = max;
            }
        }
    }

    private static void planeInt(int[] x, int xb, int sh, int sw, int[] y, int yb, PoolGeometry g) {
        for (int oh = 0; oh < g.outH(); oh++) {
            int h0 = oh * g.strideH() - g.padH(), h1 = Math.min(h0 + (g.kernelH() - 1) * g.dilationH() + 1, g.height());
            h0 = firstInside(h0, g.dilationH());
            for (int ow = 0; ow < g.outW(); ow++) {
                int w0 = ow * g.strideW() - g.padW(), w1 = Math.min(w0 + (g.kernelW() - 1) * g.dilationW() + 1, g.width());
                w0 = firstInside(w0, g.dilationW());
                int max = Integer.MIN_VALUE;
                for (int h = h0; h < h1; h += g.dilationH()) {
                    for (int w = w0, i = xb + h * sh + w0 * sw; w < w1; w += g.dilationW(), i += g.dilationW() * sw) {
                        max = Math.max(max, x[i]);
                    }
                }
                y[yb++] = max;
            }
        }
    }

    private static void planeLong(long[] x, int xb, int sh, int sw, long[] y, int yb, PoolGeometry g) {
        for (int oh = 0; oh < g.outH(); oh++) {
            int h0 = oh * g.strideH() - g.padH(), h1 = Math.min(h0 + (g.kernelH() - 1) * g.dilationH() + 1, g.height());
            h0 = firstInside(h0, g.dilationH());
            for (int ow = 0; ow < g.outW(); ow++) {
                int w0 = ow * g.strideW() - g.padW(), w1 = Math.min(w0 + (g.kernelW() - 1) * g.dilationW() + 1, g.width());
                w0 = firstInside(w0, g.dilationW());
                long max = Long.MIN_VALUE;
                for (int h = h0; h < h1; h += g.dilationH()) {
                    for (int w = w0, i = xb + h * sh + w0 * sw; w < w1; w += g.dilationW(), i += g.dilationW() * sw) {
                        max = Math.max(max, x[i]);
                    }
                }
                y[yb++] = max;
            }
        }
    }
}
