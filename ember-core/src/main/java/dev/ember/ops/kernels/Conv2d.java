package dev.ember.ops.kernels;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

/**
 * 2-d convolution (cross-correlation, as PyTorch computes it) as GEMMs: per image and group,
 * {@code out[Og x outPixels] = weight[Og x taps] @ columns[taps x outPixels]}, written straight
 * into the NCHW output. The column matrix is the input plane itself for unit 1x1 kernels, else an
 * im2col buffer. Depthwise convolutions (one input channel per group) skip GEMM for a direct loop.
 *
 * <p>Threads: a GEMM big enough for OpenBLAS to thread runs alone, with im2col split across cores
 * before it; smaller ones run one image per core (OpenBLAS then stays single-threaded per call).
 */
public final class Conv2d {
    private Conv2d() {}

    /**
     * Writes the convolution of {@code input} ({@code [N, C, H, W]}, any strides) with
     * {@code weight} plus {@code bias} (or none) into {@code out}, a fresh contiguous zeroed tensor.
     */
    public static void forward(Tensor input, Tensor weight, Tensor bias, Tensor out, Conv2dGeometry g) {
        if (out.numel() == 0) return;
        if (bias != null) Copy.copy(bias.viewAs(new TensorMeta(bias.dtype(), new int[] {g.outChannels(), 1, 1},
                new int[] {bias.stride(0), 0, 0}, bias.storageOffset())), out);
        if (g.channels() == 0) return;
        DType dtype = out.dtype();
        if (g.groupChannels() == 1 && dtype.isFloatingPoint()) {
            ConvDepthwise.forward(input, weight, out, g);
            return;
        }
        Tensor w = weight.isContiguous() ? weight : contiguous(weight);
        Gemm.Operand filters = new Gemm.Operand(w.storage().data(), w.storageOffset(), g.groupTaps(), false);
        Images images = new Images(input, out, filters, g, bias == null ? 0 : 1);
        long gemmWork = (long) g.groupOutChannels() * g.outPixels() * g.groupTaps();
        boolean imagesInParallel = g.batch() > 1 && (!Gemm.threadsItself(dtype) || gemmWork < Gemm.SINGLE_THREADED_WORK);
        if (imagesInParallel) {
            Parallel.forRange(g.batch(), gemmWork * g.groups(), (lo, hi) -> {
                Object col = images.newColumns();
                for (int n = lo; n < hi; n++) {
                    if (col != null) images.unfold(n, col, 0, images.rows());
                    images.multiply(n, col, false);
                }
            });
        } else {
            Object col = images.newColumns();
            for (int n = 0; n < g.batch(); n++) {
                int image = n;
                if (col != null) Parallel.forRange(images.rows(), g.outPixels(), (lo, hi) -> images.unfold(image, col, lo, hi));
                images.multiply(n, col, true);
            }
        }
    }

    /** What every image's unfold and GEMMs share. */
    private record Images(Tensor input, Tensor out, Gemm.Operand filters, Conv2dGeometry g, double beta) {

        /** Rows of the whole image's column matrix (all groups). */
        int rows() { return g.channels() * g.kernelH() * g.kernelW(); }

        /** A zeroed im2col buffer, or null when the input planes serve as columns. */
        Object newColumns() {
            return planeOperand(0, 0) != null ? null : out.dtype().allocate(rows() * g.outPixels());
        }

        void unfold(int n, Object col, int rowLo, int rowHi) {
            int[] s = input.strides();
            ConvIm2col.unfold(g, input.storage().data(), input.storageOffset() + n * s[0], s[1], s[2], s[3], col, rowLo, rowHi);
        }

        /** The GEMMs of image {@code n}, one per group, from {@code col} (or from the input planes when null). */
        void multiply(int n, Object col, boolean allCores) {
            int og = g.groupOutChannels(), taps = g.groupTaps(), pixels = g.outPixels();
            Object c = out.storage().data();
            for (int group = 0; group < g.groups(); group++) {
                Gemm.Operand columns = col == null ? planeOperand(n, group) : new Gemm.Operand(col, group * taps * pixels, pixels, false);
                Gemm.Operand a = filters.shift(group * og * taps);
                int cOff = (n * g.outChannels() + group * og) * pixels;
                if (allCores) Gemm.multiplyOnAllCores(out.dtype(), og, pixels, taps, 1, a, columns, beta, c, cOff, pixels);
                else Gemm.multiply(out.dtype(), og, pixels, taps, 1, a, columns, beta, c, cOff, pixels);
            }
        }

        /** For a pointwise kernel, group {@code group} of image {@code n} read in place as a {@code channels x pixels} matrix; else null. */
        Gemm.Operand planeOperand(int n, int group) {
            if (!g.isPointwise()) return null;
            int[] s = input.strides();
            int pixelStride = g.height() == 1 ? s[3] : g.width() == 1 ? s[2] : s[2] == g.width() * s[3] ? s[3] : -1;
            if (pixelStride < 0) return null;
            int offset = input.storageOffset() + n * s[0] + group * g.groupChannels() * s[1];
            return Gemm.operand(input.storage().data(), offset, g.groupChannels(), g.outPixels(), s[1], pixelStride);
        }
    }

    private static Tensor contiguous(Tensor t) {
        Tensor c = Tensor.allocate(TensorMeta.contiguous(t.dtype(), t.shape()));
        Copy.copy(t, c);
        return c;
    }
}
