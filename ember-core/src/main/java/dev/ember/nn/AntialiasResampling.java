package dev.ember.nn;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

/**
 * The weights of ATen's antialiased resampling along one dim ({@code HelperInterpBase::_compute_weights_aa}):
 * output pixel {@code i} is centred at {@code scale·(i + 0.5)} in the input; the filter (triangle
 * for bilinear, Keys' cubic with a = −0.5 for bicubic) spans {@code support = interp/2 · scale}
 * input pixels when shrinking ({@code scale ≥ 1}) and is evaluated at distances divided by the
 * scale; each row is normalized to sum 1.
 */
final class AntialiasResampling {
    private AntialiasResampling() {}

    /** {@code [out, in]}: row i holds output pixel i's weights over the input pixels. */
    static Tensor weights(int in, int out, boolean alignCorners, Double scaleGiven, boolean bicubic, DType dtype) {
        double scale = alignCorners ? (out > 1 ? (in - 1) / (double) (out - 1) : 0.0)
                : (scaleGiven != null && scaleGiven > 0 ? 1.0 / scaleGiven : in / (double) out);   // ATen's area_pixel_compute_scale
        int interp = bicubic ? 4 : 2;
        double support = scale >= 1.0 ? interp * 0.5 * scale : interp * 0.5;
        double invScale = scale >= 1.0 ? 1.0 / scale : 1.0;
        double[] w = new double[out * in];
        for (int i = 0; i < out; i++) {
            double center = scale * (i + 0.5);
            int xmin = Math.max((int) (center - support + 0.5), 0);
            int xsize = Math.min((int) (center + support + 0.5), in) - xmin;
            double total = 0;
            for (int j = 0; j < xsize; j++) {
                double v = filter((j + xmin - center + 0.5) * invScale, bicubic);
                w[i * in + xmin + j] = v;
                total += v;
            }
            if (total != 0.0) for (int j = 0; j < xsize; j++) w[i * in + xmin + j] /= total;
        }
        return Tensor.of(w, out, in).to(dtype);
    }

    private static double filter(double x, boolean bicubic) {
        x = Math.abs(x);
        if (!bicubic) return x < 1 ? 1 - x : 0;
        double a = -0.5;
        if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
        if (x < 2) return (((x - 5) * x + 8) * x - 4) * a;
        return 0;
    }
}
