package dev.ember.ops.eager;

import dev.ember.kernels.ColdStart;
import dev.ember.kernels.Conv2dGeometry;
import dev.ember.kernels.ConvWorkspace;
import dev.ember.kernels.Parallel;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

import java.util.Arrays;

/**
 * Direct float32 convolution for stride 1 (any kernel size, padding, dilation and groups), with no
 * column matrix. Each image is first copied into zero-bordered planes of {@code Hp x Wp}
 * ({@code Hp = H + 2*padH}, {@code Wp = W + 2*padW}). Output pixel {@code (oh, ow)}, taken at the
 * flat index {@code p = oh*Wp + ow}, then reads tap {@code (i, j)} of a channel at
 * {@code p + i*dilationH*Wp + j*dilationW} of that channel's plane: for a fixed tap, consecutive
 * flat pixels read consecutive inputs, even across rows. So a tile of {@value #OB} output channels
 * by {@value #PB} vectors of consecutive flat pixels is accumulated in registers over every
 * channel and tap (the im2col GEMM's inner dimension) and stored once. The flat columns
 * {@code ow >= outW} are computed from neighbouring pixels and dropped; they cost
 * {@code (Wp - outW) / Wp} of the work.
 *
 * <p>Why not im2col + OpenBLAS: for a 3x3 kernel the column matrix is nine times the image, and
 * writing it, then packing it again inside the GEMM, is memory traffic that costs about as much as
 * the multiply-adds. Here an image's planes (a few hundred KB) stay in L2 while every output tile
 * reads them.
 */
final class ConvDirect {
    private ConvDirect() {}

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    /** Output channels per register tile. */
    static final int OB = 8;
    /** Vectors of flat pixels per register tile: {@code OB * PB} accumulators plus {@code PB} inputs fit the 32 AVX-512 registers. */
    static final int PB = 3;
    /** Whether the preferred species has 512 bits, so that the register tile fits (see {@link #applies}). */
    private static final boolean WIDE_VECTORS = S.vectorBitSize() >= 512;
    /** Flat pixels per tile. */
    private static final int T = PB * L;

    /**
     * Whether the direct kernel computes this convolution: 512-bit vectors, float32, stride 1, a kernel larger than
     * 1x1 (a 1x1 kernel's GEMM reads the image in place), more than one input channel per group
     * (depthwise has its own loop), and images of at least four tiles, most of them real output.
     * Every tile streams all of its group's weights, so on small images (7x7 with 512 channels)
     * the weights cost more than the pixels and im2col + GEMM, which reuses them, is faster.
     *
     * <p>On 256-bit vectors (AVX2: 16 registers) the 8 x 3 tile spills, and even a 4 x 3 tile
     * that fits ran at half of OpenBLAS's speed: on a Zen 3 core, 64→64 channels 3x3 at 28x28 and
     * 56x56 took 12.0 / 21.9 ms of CPU on one thread against 6.6 / 11.4 for im2col + OpenBLAS
     * (19–21 against 35–40 GFLOP/s), so there the GEMM path runs.
     */
    /** The warm-up slice: 16 channels (two blocks of {@value #OB}), a 16x16 image, six tiles. */
    private static final Conv2d.Slice SLICE = Conv2d.Slice.of(16, 16);

    /** This kernel's tier: while it is cold, {@link Conv2d#columnFree(DType, Conv2dGeometry)} sends its convolutions to im2col and OpenBLAS. */
    static final ColdStart.Tier TIER = ColdStart.tier("ConvDirect", SLICE.flops(),
            () -> forward(SLICE.input(), SLICE.weight(), null, SLICE.out(), SLICE.geometry()));

    static boolean applies(DType dtype, Conv2dGeometry g) {
        if (!WIDE_VECTORS || dtype != DType.FLOAT32 || g.strideH() != 1 || g.strideW() != 1) return false;
        if (g.kernelH() * g.kernelW() == 1 || g.groupChannels() == 1) return false;
        long flat = (long) g.outH() * (g.width() + 2L * g.padW());
        long tiles = (flat + T - 1) / T;
        return g.outPixels() >= 4 * T && 2L * g.outPixels() >= tiles * T;
    }

    /** Writes every element of {@code out} ({@code [N, O, outH, outW]}, contiguous): the convolution plus {@code bias} (or none). */
    static void forward(Tensor input, Tensor weight, Tensor bias, Tensor out, Conv2dGeometry g) {
        forward(input, weight, bias, out, g, Conv2d.COLUMN_BUDGET);
    }

    /** {@link #forward}, padding as many images at once as fit {@code budget} bytes (at least one). */
    static void forward(Tensor input, Tensor weight, Tensor bias, Tensor out, Conv2dGeometry g, long budget) {
        int wp = g.width() + 2 * g.padW(), hp = g.height() + 2 * g.padH(), plane = hp * wp;
        int flat = g.outH() * wp, tiles = (flat + T - 1) / T;
        int kk = g.kernelH() * g.kernelW(), cg = g.groupChannels(), og = g.groupOutChannels();
        int blocks = (og + OB - 1) / OB;
        float[] packed = packWeights(weight, g, blocks);
        float[] biases = biases(bias, g, blocks);
        int[] taps = new int[kk];
        for (int k = 0; k < kk; k++) taps[k] = k / g.kernelW() * g.dilationH() * wp + k % g.kernelW() * g.dilationW();
        float[] o = out.storage().floats();
        // as many images as fit the budget are padded at once; the last tile reads up to T
        // pixels and (kernelW-1)*dilationW columns past the last plane: slack, read only for dropped pixels
        long imageFloats = (long) g.channels() * plane;
        int chunk = (int) Math.max(1, Math.min(g.batch(), budget / Float.BYTES / Math.max(1, imageFloats)));
        int slack = T + (g.kernelW() - 1) * g.dilationW();
        float[] padded = (float[]) ConvWorkspace.array(ConvWorkspace.Slot.COLUMNS, o,
                Math.toIntExact(Math.addExact(Math.multiplyExact(chunk, imageFloats), slack)));
        for (int n0 = 0; n0 < g.batch(); n0 += chunk) {
            int first = n0, images = Math.min(chunk, g.batch() - n0);
            pad(input, padded, g, first, images, wp, plane);
            Parallel.forRange(images * g.groups() * tiles, (long) og * T * cg * kk, (lo, hi) -> {
                float[] tile = new float[OB * T];
                for (int item = lo; item < hi; item++) {
                    int n = item / (g.groups() * tiles), group = item / tiles % g.groups(), t = item % tiles;
                    int in = (n * g.channels() + group * cg) * plane + t * T;
                    for (int b = 0; b < blocks; b++) {
                        int block = group * blocks + b;
                        accumulate(padded, in, plane, cg, taps, packed, block * cg * kk * OB, biases, block * OB, tile);
                        int firstChannel = group * og + b * OB;
                        for (int c = 0; c < Math.min(OB, og - b * OB); c++) {
                            store(tile, c * T, t * T, flat, wp, g, o, ((first + n) * g.outChannels() + firstChannel + c) * g.outPixels());
                        }
                    }
                }
            });
        }
    }

    /** Copies images {@code [first, first+images)} into zero-bordered planes, one plane per (image, channel), across cores. */
    private static void pad(Tensor input, float[] padded, Conv2dGeometry g, int first, int images, int wp, int plane) {
        int[] s = input.strides();
        float[] x = input.storage().floats();
        int ph = g.padH(), pw = g.padW(), h = g.height(), w = g.width();
        Parallel.forRange(images * g.channels(), plane, (lo, hi) -> {
            for (int p = lo; p < hi; p++) {
                int n = first + p / g.channels(), c = p % g.channels();
                int src = input.storageOffset() + n * s[0] + c * s[1], dst = p * plane;
                Arrays.fill(padded, dst, dst + ph * wp, 0f);
                for (int r = 0; r < h; r++) {
                    int row = dst + (ph + r) * wp, from = src + r * s[2];
                    Arrays.fill(padded, row, row + pw, 0f);
                    if (s[3] == 1) System.arraycopy(x, from, padded, row + pw, w);
                    else for (int k = 0; k < w; k++) padded[row + pw + k] = x[from + k * s[3]];
                    Arrays.fill(padded, row + pw + w, row + wp, 0f);
                }
                Arrays.fill(padded, dst + (ph + h) * wp, dst + plane, 0f);
            }
        });
    }

    /**
     * The weights of each group's block of {@value #OB} output channels as
     * {@code [channel][tap][OB]}, so that one tap's weights for the tile are adjacent; channels
     * past the group's last are zero.
     */
    private static float[] packWeights(Tensor weight, Conv2dGeometry g, int blocks) {
        int kk = g.kernelH() * g.kernelW(), cg = g.groupChannels(), og = g.groupOutChannels();
        int[] s = weight.strides();
        float[] w = weight.storage().floats();
        float[] packed = new float[g.groups() * blocks * cg * kk * OB];
        for (int group = 0; group < g.groups(); group++) {
            for (int o = 0; o < og; o++) {
                int block = group * blocks + o / OB, lane = o % OB;
                int src = weight.storageOffset() + (group * og + o) * s[0];
                for (int c = 0; c < cg; c++) {
                    for (int k = 0; k < kk; k++) {
                        packed[((block * cg + c) * kk + k) * OB + lane] = w[src + c * s[1] + k / g.kernelW() * s[2] + k % g.kernelW() * s[3]];
                    }
                }
            }
        }
        return packed;
    }

    /** The bias of every output channel laid out by block like the packed weights (zeros without a bias). */
    private static float[] biases(Tensor bias, Conv2dGeometry g, int blocks) {
        float[] b = new float[g.groups() * blocks * OB];
        if (bias == null) return b;
        float[] data = bias.storage().floats();
        int og = g.groupOutChannels();
        for (int o = 0; o < g.outChannels(); o++) {
            int inGroup = o % og;
            b[(o / og * blocks + inGroup / OB) * OB + inGroup % OB] = data[bias.storageOffset() + o * bias.stride(0)];
        }
        return b;
    }

    /**
     * {@code tile[c*T + p] = bias[c] + sum over channels and taps} for the {@value #OB} channels of
     * one block and the {@code T} flat pixels from {@code in}; the accumulators live in registers.
     */
    private static void accumulate(float[] x, int in, int plane, int channels, int[] taps, float[] w, int wOff, float[] bias, int bOff, float[] tile) {
        FloatVector a00 = FloatVector.broadcast(S, bias[bOff]), a01 = a00, a02 = a00;
        FloatVector a10 = FloatVector.broadcast(S, bias[bOff + 1]), a11 = a10, a12 = a10;
        FloatVector a20 = FloatVector.broadcast(S, bias[bOff + 2]), a21 = a20, a22 = a20;
        FloatVector a30 = FloatVector.broadcast(S, bias[bOff + 3]), a31 = a30, a32 = a30;
        FloatVector a40 = FloatVector.broadcast(S, bias[bOff + 4]), a41 = a40, a42 = a40;
        FloatVector a50 = FloatVector.broadcast(S, bias[bOff + 5]), a51 = a50, a52 = a50;
        FloatVector a60 = FloatVector.broadcast(S, bias[bOff + 6]), a61 = a60, a62 = a60;
        FloatVector a70 = FloatVector.broadcast(S, bias[bOff + 7]), a71 = a70, a72 = a70;
        int wi = wOff;
        for (int c = 0; c < channels; c++) {
            int base = in + c * plane;
            for (int tap : taps) {
                int p = base + tap;
                FloatVector x0 = FloatVector.fromArray(S, x, p), x1 = FloatVector.fromArray(S, x, p + L), x2 = FloatVector.fromArray(S, x, p + 2 * L);
                FloatVector w0 = FloatVector.broadcast(S, w[wi]);
                a00 = x0.fma(w0, a00); a01 = x1.fma(w0, a01); a02 = x2.fma(w0, a02);
                FloatVector w1 = FloatVector.broadcast(S, w[wi + 1]);
                a10 = x0.fma(w1, a10); a11 = x1.fma(w1, a11); a12 = x2.fma(w1, a12);
                FloatVector w2 = FloatVector.broadcast(S, w[wi + 2]);
                a20 = x0.fma(w2, a20); a21 = x1.fma(w2, a21); a22 = x2.fma(w2, a22);
                FloatVector w3 = FloatVector.broadcast(S, w[wi + 3]);
                a30 = x0.fma(w3, a30); a31 = x1.fma(w3, a31); a32 = x2.fma(w3, a32);
                FloatVector w4 = FloatVector.broadcast(S, w[wi + 4]);
                a40 = x0.fma(w4, a40); a41 = x1.fma(w4, a41); a42 = x2.fma(w4, a42);
                FloatVector w5 = FloatVector.broadcast(S, w[wi + 5]);
                a50 = x0.fma(w5, a50); a51 = x1.fma(w5, a51); a52 = x2.fma(w5, a52);
                FloatVector w6 = FloatVector.broadcast(S, w[wi + 6]);
                a60 = x0.fma(w6, a60); a61 = x1.fma(w6, a61); a62 = x2.fma(w6, a62);
                FloatVector w7 = FloatVector.broadcast(S, w[wi + 7]);
                a70 = x0.fma(w7, a70); a71 = x1.fma(w7, a71); a72 = x2.fma(w7, a72);
                wi += OB;
            }
        }
        a00.intoArray(tile, 0); a01.intoArray(tile, L); a02.intoArray(tile, 2 * L);
        a10.intoArray(tile, T); a11.intoArray(tile, T + L); a12.intoArray(tile, T + 2 * L);
        a20.intoArray(tile, 2 * T); a21.intoArray(tile, 2 * T + L); a22.intoArray(tile, 2 * T + 2 * L);
        a30.intoArray(tile, 3 * T); a31.intoArray(tile, 3 * T + L); a32.intoArray(tile, 3 * T + 2 * L);
        a40.intoArray(tile, 4 * T); a41.intoArray(tile, 4 * T + L); a42.intoArray(tile, 4 * T + 2 * L);
        a50.intoArray(tile, 5 * T); a51.intoArray(tile, 5 * T + L); a52.intoArray(tile, 5 * T + 2 * L);
        a60.intoArray(tile, 6 * T); a61.intoArray(tile, 6 * T + L); a62.intoArray(tile, 6 * T + 2 * L);
        a70.intoArray(tile, 7 * T); a71.intoArray(tile, 7 * T + L); a72.intoArray(tile, 7 * T + 2 * L);
    }

    /** Copies the real output pixels among flat pixels {@code [first, first+T)} of one channel's tile row into its output plane. */
    private static void store(float[] tile, int tileOff, int first, int flat, int wp, Conv2dGeometry g, float[] out, int planeOff) {
        int end = Math.min(first + T, flat), outW = g.outW();
        int oh = first / wp, ow = first - oh * wp;
        for (int p = first; p < end; ) {
            if (ow < outW) {
                int run = Math.min(outW - ow, end - p);
                System.arraycopy(tile, tileOff + p - first, out, planeOff + oh * outW + ow, run);
                p += run;
                ow += run;
            } else {
                p += wp - ow;
                oh++;
                ow = 0;
            }
        }
    }
}
