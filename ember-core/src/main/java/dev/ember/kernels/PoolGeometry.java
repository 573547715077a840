package dev.ember.kernels;

/**
 * One 2-d pooling window layout over planes of {@code height x width}: kernel, stride, padding,
 * dilation, and the output size they give.
 */
public record PoolGeometry(int kernelH, int kernelW, int strideH, int strideW, int padH, int padW,
                           int dilationH, int dilationW, int height, int width, int outH, int outW) {

    /**
     * ATen's pooling_output_shape for one dimension, with its checks: in ceil mode the last window
     * must start inside the input or its left padding.
     */
    public static int outputSize(int in, int kernel, int pad, int stride, int dilation, boolean ceilMode) {
        if (stride == 0) throw new IllegalArgumentException("stride should not be zero");
        if (pad < 0) throw new IllegalArgumentException("pad must be non-negative, but got pad: " + pad);
        if (pad > ((kernel - 1) * dilation + 1) / 2) {
            throw new IllegalArgumentException("pad should be at most half of effective kernel size, but got pad=" + pad
                    + ", kernel_size=" + kernel + " and dilation=" + dilation);
        }
        long out = Math.floorDiv((long) in + 2L * pad - (long) dilation * (kernel - 1) - 1 + (ceilMode ? stride - 1 : 0), stride) + 1;
        if (ceilMode && (out - 1) * stride >= (long) in + pad) out--;
        return Math.toIntExact(out);
    }

    /**
     * Runs {@code plane} for every (image, channel) plane of a 4-d input {@code [batch, channels, H, W]}
     * at {@code offset} with strides {@code s}, spread across cores; plane p writes its output (contiguous) at
     * {@code p * outH * outW}.
     */
    void forEachPlane(int offset, int[] s, int batch, int channels, PlaneKernel plane) {
        int planes = batch * channels, outPixels = outH * outW;
        Parallel.forRange(planes, (long) outPixels * kernelH * kernelW, (lo, hi) -> {
            for (int p = lo; p < hi; p++) {
                int xBase = offset + p / channels * s[0] + p % channels * s[1];
                plane.run(xBase, s[2], s[3], p * outPixels);
            }
        });
    }

    /** One plane: input at {@code xBase} with row and column strides, output (contiguous) at {@code yBase}. */
    @FunctionalInterface
    interface PlaneKernel { void run(int xBase, int sh, int sw, int yBase); }
}
