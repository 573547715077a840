package dev.ember.ops.eager;

import dev.ember.kernels.ColdStart;
import dev.ember.kernels.Conv2dGeometry;
import dev.ember.kernels.ConvIm2col;
import dev.ember.kernels.ConvWorkspace;
import dev.ember.kernels.Gemm;
import dev.ember.kernels.Parallel;
import dev.ember.tensor.DType;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.function.IntFunction;

/**
 * 2-d convolution (cross-correlation, as PyTorch computes it) as GEMMs:
 * {@code out[Og x pixels] = weight[Og x taps] @ columns[taps x pixels]} per group, where the
 * column matrix is an im2col buffer, or for a unit 1x1 kernel on one image the input plane itself.
 * Depthwise convolutions (one input channel per group) skip GEMM for a direct loop, and on
 * 512-bit vectors float32 convolutions with stride 1 and a kernel above 1x1 (the common 3x3) run
 * {@link ConvDirect}, which needs no column matrix (on AVX2 the GEMM is faster, see
 * {@link ConvDirect#applies}), or for 3x3 kernels with enough channels the Winograd kernel
 * {@link ConvWinograd}. The backward ({@link Conv2dBackward}) runs the same unfold.
 *
 * <p>Threads: when one image's GEMM is big enough for OpenBLAS to thread, several images are
 * unfolded side by side (split across cores) into one wide column matrix, multiplied in one GEMM
 * per group and copied out to NCHW: few, large GEMMs mean few hand-overs between Java's threads
 * and OpenBLAS's, which matters most when the cores are shared. Smaller GEMMs run one image per
 * core instead (OpenBLAS then stays single-threaded per call).
 */
public final class Conv2d {
    private Conv2d() {}

    /** Bytes of im2col buffer that several images may share. */
    static final long COLUMN_BUDGET = 64L << 20;

    /**
     * Writes the convolution of {@code input} ({@code [N, C, H, W]}, any strides) with
     * {@code weight} plus {@code bias} (or none) into {@code out}, a fresh contiguous zeroed tensor
     * (or an uninitialized one where {@link #overwritesOutput} says so).
     */
    public static void forward(Tensor input, Tensor weight, Tensor bias, Tensor out, Conv2dGeometry g) {
        if (out.numel() == 0) return;
        DType dtype = out.dtype();
        if (g.groupChannels() == 1 && dtype.isFloatingPoint()) {
            fillWithBias(bias, out, g);
            ConvDepthwise.forward(input, weight, out, g);
            return;
        }
        if (columnFree(dtype, g)) {
            columnFree(input, weight, bias, out, g);
            return;
        }
        Tensor w = weight.isContiguous() ? weight : contiguous(weight);
        Images images = new Images(input, new Gemm.Operand(w.storage().data(), w.storageOffset(), g.groupTaps(), false), g, out);
        long gemmWork = (long) g.groupOutChannels() * g.outPixels() * g.groupTaps();
        boolean threaded = Gemm.threadsItself(out.storage().data()) && gemmWork >= Gemm.SINGLE_THREADED_WORK;
        double beta = bias == null ? 0 : 1;
        if (g.batch() > 1 && !threaded) {
            fillWithBias(bias, out, g);
            images.oneImagePerCore(beta);
        } else if (g.batch() == 1 && images.planeOperand(0, 0) != null) {
            fillWithBias(bias, out, g);
            images.multiply(group -> images.planeOperand(0, group), g.outPixels(), out.storage().data(), 0, g.outPixels(), beta, true);
        } else {
            images.wideColumns(bias);
        }
    }

    /**
     * Whether a kernel without a column matrix computes this convolution: {@link ConvWinograd} or
     * {@link ConvDirect} applies and is hot. While that kernel is cold (a fresh JVM, see
     * {@link ColdStart}) the column path (im2col and OpenBLAS) computes the convolution, and the
     * kernel runs a warm-up slice on the warming thread.
     */
    static boolean columnFree(DType dtype, Conv2dGeometry g) {
        ColdStart.Tier tier = columnFreeTier(dtype, g);
        if (tier == null) return false;
        if (!tier.cold()) return true;
        tier.exercise();
        return false;
    }

    /** The tier of the kernel without a column matrix that would compute this convolution, or null when none applies. */
    private static ColdStart.Tier columnFreeTier(DType dtype, Conv2dGeometry g) {
        return ConvWinograd4.applies(dtype, g) ? ConvWinograd4.TIER : ConvWinograd.applies(dtype, g) ? ConvWinograd.TIER
                : ConvDirect.applies(dtype, g) ? ConvDirect.TIER : null;
    }

    /**
     * Whether {@link #forward} will write every element of its output itself, so that the output
     * need not be zeroed first ({@code Tensor.allocateUninitialized}): a kernel without columns
     * ({@link ConvWinograd}, {@link ConvWinograd4}, {@link ConvDirect}) computes it and is hot. The
     * other paths add into their output (the depthwise loop, the GEMMs with the bias as their start).
     * A tier only ever turns hot, so a convolution this says yes to runs such a kernel. Asks without
     * counting a cold call or starting a warm-up slice: {@link #forward} does that.
     */
    public static boolean overwritesOutput(DType dtype, Conv2dGeometry g) {
        if (g.groupChannels() == 1 && dtype.isFloatingPoint()) return false;
        ColdStart.Tier tier = columnFreeTier(dtype, g);
        return tier != null && !tier.cold();
    }

    /**
     * A column-free kernel's warm-up slice ({@link ColdStart}): a float32 3x3 convolution with
     * padding 1 of one {@code size x size} image, {@code channels} in and out, on scratch operands.
     */
    record Slice(Tensor input, Tensor weight, Tensor out, Conv2dGeometry geometry) {
        static Slice of(int channels, int size) {
            Conv2dGeometry g = Conv2dGeometry.of(new int[] {1, channels, size, size}, new int[] {channels, channels, 3, 3},
                    new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1);
            return new Slice(scratch(1, channels, size, size), scratch(channels, channels, 3, 3), scratch(1, channels, g.outH(), g.outW()), g);
        }

        /** The convolution's multiply-adds, times two: what a direct kernel computes. */
        double flops() { return 2.0 * geometry.channels() * geometry.outChannels() * 9 * geometry.outPixels(); }
    }

    private static Tensor scratch(int... shape) {
        int n = 1;
        for (int d : shape) n *= d;
        return Tensor.wrap(new Storage(DType.FLOAT32, ColdStart.scratch(n)), shape, TensorMeta.contiguous(DType.FLOAT32, shape).strides(), 0);
    }

    /** Runs a convolution {@link #columnFree(DType, Conv2dGeometry)} accepts: Winograd (4x4 tiles, else 2x2) where it applies, else the direct kernel. */
    static void columnFree(Tensor input, Tensor weight, Tensor bias, Tensor out, Conv2dGeometry g) {
        if (ConvWinograd4.applies(out.dtype(), g)) ConvWinograd4.forward(input, weight, bias, out, g);
        else if (ConvWinograd.applies(out.dtype(), g)) ConvWinograd.forward(input, weight, bias, out, g);
        else ConvDirect.forward(input, weight, bias, out, g);
    }

    /** Fills {@code out} ({@code [N, O, H, W]}) with each output channel's bias; leaves it zero without one. */
    private static void fillWithBias(Tensor bias, Tensor out, Conv2dGeometry g) {
        if (bias == null) return;
        Copy.copy(bias.viewAs(new TensorMeta(bias.dtype(), new int[] {g.outChannels(), 1, 1}, new int[] {bias.stride(0), 0, 0}, bias.storageOffset())), out);
    }

    /** What every image's unfold and GEMMs share. */
    private record Images(Tensor input, Gemm.Operand filters, Conv2dGeometry g, Tensor out) {

        /** Rows of one image's column matrix (all groups). */
        int rows() { return g.channels() * g.kernelH() * g.kernelW(); }

        /** Unfolds rows {@code [rowLo, rowHi)} of image {@code n} into its block of {@code col} at {@code colOffset}, rows {@code ld} apart. */
        void unfold(int n, Object col, int colOffset, int ld, int rowLo, int rowHi) {
            int[] s = input.strides();
            ConvIm2col.unfold(g, input.storage().data(), input.storageOffset() + n * s[0], s[1], s[2], s[3], col, colOffset, ld, rowLo, rowHi);
        }

        /** One GEMM per group: rows {@code group*Og...} of {@code c} (from {@code cOff}, {@code ldc} apart) from that group's column matrix, {@code width} wide. */
        void multiply(IntFunction<Gemm.Operand> columns, int width, Object c, int cOff, int ldc, double beta, boolean allCores) {
            int og = g.groupOutChannels(), taps = g.groupTaps();
            for (int group = 0; group < g.groups(); group++) {
                Gemm.Operand a = filters.shift(group * og * taps), b = columns.apply(group);
                int offset = cOff + group * og * ldc;
                if (allCores) Gemm.multiplyOnAllCores(og, width, taps, 1, a, b, beta, c, offset, ldc);
                else Gemm.multiply(og, width, taps, 1, a, b, beta, c, offset, ldc);
            }
        }

        /** Small GEMMs: each core takes whole images, unfolding and multiplying them on its own. */
        void oneImagePerCore(double beta) {
            int pixels = g.outPixels(), taps = g.groupTaps();
            boolean inPlace = planeOperand(0, 0) != null;
            Parallel.forRange(g.batch(), (long) g.outChannels() * pixels * taps, (lo, hi) -> {
                Object col = inPlace ? null : ConvWorkspace.array(ConvWorkspace.Slot.COLUMNS, out.storage().data(), rows() * pixels);
                for (int n = lo; n < hi; n++) {
                    int image = n;
                    if (!inPlace) unfold(n, col, 0, pixels, 0, rows());
                    IntFunction<Gemm.Operand> columns = inPlace ? group -> planeOperand(image, group) : group -> new Gemm.Operand(col, group * taps * pixels, pixels, false);
                    multiply(columns, pixels, out.storage().data(), n * g.outChannels() * pixels, pixels, beta, false);
                }
            });
        }

        /**
         * Large GEMMs: as many images as fit in {@link #COLUMN_BUDGET} are unfolded side by side
         * ({@code [taps, images*pixels]}), multiplied by one GEMM per group into a product
         * {@code [outChannels, images*pixels]} that starts as the bias, and copied out image by
         * image. A single image at a time needs no product buffer: its GEMMs write the output.
         */
        void wideColumns(Tensor bias) {
            int pixels = g.outPixels(), rows = rows(), channels = g.outChannels(), taps = g.groupTaps();
            int chunk = (int) Math.max(1, Math.min(g.batch(), COLUMN_BUDGET / out.dtype().itemSize() / Math.max(1L, (long) rows * pixels)));
            int ld = chunk * pixels;
            DType dtype = out.dtype();
            Object col = ConvWorkspace.array(ConvWorkspace.Slot.COLUMNS, out.storage().data(), Math.multiplyExact(rows, ld));
            Tensor scratch = chunk == 1 ? null : Tensor.wrap(new Storage(dtype, ConvWorkspace.array(ConvWorkspace.Slot.PRODUCT, out.storage().data(), Math.multiplyExact(channels, ld))),
                    new int[] {channels, ld}, new int[] {ld, 1}, 0);
            if (chunk == 1) fillWithBias(bias, out, g);
            for (int n0 = 0; n0 < g.batch(); n0 += chunk) {
                int images = Math.min(chunk, g.batch() - n0), first = n0;
                int[] xs = input.strides();
                ConvIm2col.unfoldImages(g, input.storage().data(), input.storageOffset(), xs[0], xs[1], xs[2], xs[3], first, images, col, ld);
                IntFunction<Gemm.Operand> columns = group -> new Gemm.Operand(col, group * taps * ld, ld, false);
                if (scratch == null) {
                    multiply(columns, pixels, out.storage().data(), n0 * channels * pixels, pixels, bias == null ? 0 : 1, true);
                    continue;
                }
                if (bias != null) {
                    Copy.copy(bias.viewAs(new TensorMeta(bias.dtype(), new int[] {channels, 1}, new int[] {bias.stride(0), 0}, bias.storageOffset())),
                            scratch.viewAs(new TensorMeta(dtype, new int[] {channels, images * pixels}, new int[] {ld, 1}, 0)));
                }
                multiply(columns, images * pixels, scratch.storage().data(), 0, ld, bias == null ? 0 : 1, true);
                Object s = scratch.storage().data(), o = out.storage().data();
                Parallel.forRange(images * channels, pixels, (lo, hi) -> {
                    for (int i = lo; i < hi; i++) {
                        int image = i / channels, channel = i % channels;
                        System.arraycopy(s, channel * ld + image * pixels, o, ((first + image) * channels + channel) * pixels, pixels);
                    }
                });
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
