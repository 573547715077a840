package dev.ember.ops.eager;

import dev.ember.kernels.Conv2dGeometry;
import dev.ember.kernels.ConvIm2col;
import dev.ember.kernels.ConvWorkspace;
import dev.ember.kernels.Gemm;
import dev.ember.kernels.Parallel;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

/**
 * The gradients of a 2-d convolution ({@link Conv2d}) as GEMMs over the same im2col column
 * matrices, one GEMM per group over a whole chunk of images: with the images' columns side by
 * side ({@code [taps, images*pixels]}) and the output gradient laid out channel-major
 * ({@code [Og, images*pixels]}),
 * {@code gradWeight[Og x taps] += gradOut @ columnsᵀ} (the images summed by the GEMM's inner
 * dimension) and {@code gradColumns[taps x images*pixels] = weightᵀ @ gradOut}, folded back onto
 * each image (col2im); {@code gradBias[o]} is the sum of output channel o's gradient.
 * Floating dtypes; strides, padding, dilation and groups as the forward.
 *
 * <p>Why one GEMM over the chunk: per image the products are small (64 x 576 x 784 for a 28x28
 * image of 64 channels), and running them one image per core while OpenBLAS threads each one
 * oversubscribes the cores; one product of {@code images*pixels} columns keeps OpenBLAS's
 * kernels at full width and its threads busy.
 */
public final class Conv2dBackward {
    private Conv2dBackward() {}

    /**
     * Fills the requested gradients, each a fresh zeroed contiguous tensor (or null when not
     * wanted; {@code gradInput} may be uninitialized where {@link #overwritesGradInput} says so,
     * {@code gradWeight} where {@link #overwritesGradWeight} does): {@code gradInput} {@code [N, C, H, W]}, {@code gradWeight} {@code [O, C/groups, kH, kW]},
     * {@code gradBias} {@code [O]}. {@code input} may have any strides.
     */
    public static void backward(Tensor gradOutput, Tensor input, Tensor weight, Conv2dGeometry g,
                                Tensor gradInput, Tensor gradWeight, Tensor gradBias) {
        backward(gradOutput, input, weight, g, gradInput, gradWeight, gradBias, Conv2d.COLUMN_BUDGET);
    }

    /** {@link #backward}, taking as many images at once as fit {@code budget} bytes of columns (at least one). */
    static void backward(Tensor gradOutput, Tensor input, Tensor weight, Conv2dGeometry g,
                         Tensor gradInput, Tensor gradWeight, Tensor gradBias, long budget) {
        Tensor go = contiguous(gradOutput);
        if (gradBias != null) bias(go, gradBias, g);
        if (gradInput != null) {
            Conv2dGeometry transposed = directGradInput(g);
            if (transposed != null && Conv2d.columnFree(go.dtype(), transposed)) {
                Conv2d.columnFree(go, flippedWeight(weight, g), null, gradInput, transposed);
                gradInput = null;
            }
        }
        if (gradWeight != null && ConvWinogradWeight.applies(go.dtype(), g)) {
            // Winograd once compiled; while cold (a fresh JVM) the column path below, and a warm-up slice
            if (ConvWinogradWeight.TIER.cold()) {
                ConvWinogradWeight.TIER.exercise();
            } else {
                ConvWinogradWeight.gradWeight(go, input, g, gradWeight);
                gradWeight = null;
            }
        }
        int pixels = g.outPixels(), og = g.groupOutChannels(), taps = g.groupTaps(), channels = g.outChannels();
        if (pixels == 0 || g.batch() == 0 || taps == 0 || (gradInput == null && gradWeight == null)) return;
        int kk = g.kernelH() * g.kernelW(), rows = g.channels() * kk;
        Object gd = go.storage().data();
        int goBase = go.storageOffset();
        long perImage = (long) Math.max(rows, channels) * pixels * go.dtype().itemSize();
        int chunk = (int) Math.max(1, Math.min(g.batch(), budget / Math.max(1, perImage)));
        int ld = chunk * pixels;
        Object cols = ConvWorkspace.array(ConvWorkspace.Slot.COLUMNS, gd, Math.multiplyExact(rows, ld));
        // one image's output gradient is already [channels, pixels]; several are gathered channel-major
        Object grads = chunk == 1 ? gd : ConvWorkspace.array(ConvWorkspace.Slot.PRODUCT, gd, Math.multiplyExact(channels, ld));
        Tensor w = gradInput == null ? null : contiguous(weight);
        int[] xs = input.strides();
        for (int n0 = 0; n0 < g.batch(); n0 += chunk) {
            int first = n0, images = Math.min(chunk, g.batch() - n0), width = images * pixels;
            int gradsBase = chunk == 1 ? goBase + n0 * channels * pixels : 0;
            if (chunk > 1) {
                Parallel.forRange(images * channels, pixels, (lo, hi) -> {
                    for (int i = lo; i < hi; i++) {
                        int image = i / channels, o = i % channels;
                        System.arraycopy(gd, goBase + ((first + image) * channels + o) * pixels, grads, o * ld + image * pixels, pixels);
                    }
                });
            }
            if (gradWeight != null) {
                ConvIm2col.unfoldImages(g, input.storage().data(), input.storageOffset(), xs[0], xs[1], xs[2], xs[3], first, images, cols, ld);
                for (int group = 0; group < g.groups(); group++) {
                    Gemm.Operand a = new Gemm.Operand(grads, gradsBase + group * og * ld, ld, false);
                    Gemm.Operand b = new Gemm.Operand(cols, group * taps * ld, ld, true);
                    Gemm.multiplyOnAllCores(og, taps, width, 1, a, b, n0 == 0 ? 0 : 1,
                            gradWeight.storage().data(), gradWeight.storageOffset() + group * og * taps, taps);
                }
            }
            if (gradInput != null) {
                for (int group = 0; group < g.groups(); group++) {
                    Gemm.Operand a = new Gemm.Operand(w.storage().data(), w.storageOffset() + group * og * taps, taps, true);
                    Gemm.Operand b = new Gemm.Operand(grads, gradsBase + group * og * ld, ld, false);
                    Gemm.multiplyOnAllCores(taps, width, og, 1, a, b, 0, cols, group * taps * ld, ld);
                }
                Object gi = gradInput.storage().data();
                int image = g.channels() * g.height() * g.width(), giBase = gradInput.storageOffset();
                // each (image, channel) folds onto its own plane: spread across cores without sharing
                Parallel.forRange(images * g.channels(), (long) kk * pixels, (lo, hi) -> {
                    for (int i = lo; i < hi; i++) {
                        int n = i / g.channels(), c = i % g.channels();
                        ConvIm2col.fold(g, cols, n * pixels, ld, gi, giBase + (first + n) * image, c, c + 1);
                    }
                });
            }
        }
    }

    /**
     * Whether {@link #backward} will write every element of {@code gradInput} itself (the input
     * gradient runs as a convolution on a kernel without columns, {@link #directGradInput}), so that
     * it need not be zeroed first: the column path folds its columns back by adding into it.
     */
    public static boolean overwritesGradInput(DType dtype, Conv2dGeometry g) {
        Conv2dGeometry transposed = directGradInput(g);
        return transposed != null && Conv2d.overwritesOutput(dtype, transposed);
    }

    /**
     * Whether {@link #backward} will write every element of {@code gradWeight} itself: the weight
     * gradient runs on {@link ConvWinogradWeight}, which applies and is hot, so it need not be
     * zeroed first (on the column path a batch with no pixels leaves it as it is). Asks without
     * counting a cold call: {@link #backward} does that.
     */
    public static boolean overwritesGradWeight(DType dtype, Conv2dGeometry g) {
        return ConvWinogradWeight.applies(dtype, g) && !ConvWinogradWeight.TIER.cold();
    }

    /**
     * The input gradient of a stride-1 convolution as a convolution itself: the output gradient
     * convolved with the weight flipped in both spatial dimensions and transposed in its channels,
     * padded by {@code dilation*(kernel-1) - padding}, gives back the input's size. As such it runs
     * on the forward's kernels without columns ({@link ConvWinograd}, {@link ConvDirect}), with no
     * column matrix to fold back (col2im), which was a third of a Conv-BN-ReLU training step's convolution backward. Null when the forward's
     * stride is not 1 or its padding exceeds {@code dilation*(kernel-1)} (the transposed
     * convolution would need negative padding).
     */
    static Conv2dGeometry directGradInput(Conv2dGeometry g) {
        if (g.strideH() != 1 || g.strideW() != 1) return null;
        int padH = g.dilationH() * (g.kernelH() - 1) - g.padH(), padW = g.dilationW() * (g.kernelW() - 1) - g.padW();
        if (padH < 0 || padW < 0) return null;
        return new Conv2dGeometry(g.batch(), g.outChannels(), g.outH(), g.outW(), g.channels(), g.kernelH(), g.kernelW(),
                1, 1, padH, padW, g.dilationH(), g.dilationW(), g.groups(), g.height(), g.width());
    }

    /** {@code w'[c, o, i, j] = w[o, c, kH-1-i, kW-1-j]} within each group: the weight of {@link #directGradInput}'s convolution, contiguous. */
    static Tensor flippedWeight(Tensor weight, Conv2dGeometry g) {
        int og = g.groupOutChannels(), cg = g.groupChannels(), kh = g.kernelH(), kw = g.kernelW();
        Tensor out = Tensor.allocate(TensorMeta.contiguous(weight.dtype(), g.channels(), og, kh, kw));
        int[] s = weight.strides();
        int base = weight.storageOffset();
        // float32 straight through the arrays: the generic accessors took 0.085 ms per 64x64x3x3
        // weight (session 26), on the calling thread alone, twice per step of a 3-layer stack
        Object src = weight.storage().data();
        float[] dst32 = out.storage().data() instanceof float[] f ? f : null;
        for (int group = 0; group < g.groups(); group++) {
            for (int o = 0; o < og; o++) {
                for (int c = 0; c < cg; c++) {
                    for (int i = 0; i < kh; i++) {
                        for (int j = 0; j < kw; j++) {
                            int from = base + (group * og + o) * s[0] + c * s[1] + (kh - 1 - i) * s[2] + (kw - 1 - j) * s[3];
                            int to = (((group * cg + c) * og + o) * kh + i) * kw + j;
                            if (src instanceof float[] f) dst32[to] = f[from];
                            else out.storage().writeDouble(to, weight.storage().readDouble(from));
                        }
                    }
                }
            }
        }
        return out;
    }

    /** gradBias[o] = Σ over images and pixels of gradOut[n, o], summed in double, channels across cores. */
    private static void bias(Tensor go, Tensor gradBias, Conv2dGeometry g) {
        int pixels = g.outPixels(), channels = g.outChannels(), base = go.storageOffset();
        Object data = go.storage().data();
        Parallel.forRange(channels, (long) g.batch() * pixels, (lo, hi) -> {
            for (int o = lo; o < hi; o++) {
                double s = 0;
                for (int n = 0; n < g.batch(); n++) {
                    int from = base + (n * channels + o) * pixels;
                    switch (data) {
                        case float[] f -> { for (int p = from; p < from + pixels; p++) s += f[p]; }
                        case double[] d -> { for (int p = from; p < from + pixels; p++) s += d[p]; }
                        default -> throw new IllegalArgumentException("convolution_backward: unsupported storage " + data.getClass().getSimpleName());
                    }
                }
                gradBias.storage().writeDouble(gradBias.storageOffset() + o, s);
            }
        });
    }

    private static Tensor contiguous(Tensor t) {
        if (t.isContiguous()) return t;
        Tensor c = Tensor.allocate(TensorMeta.contiguous(t.dtype(), t.shape()));
        Copy.copy(t, c);
        return c;
    }
}
