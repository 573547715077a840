package dev.ember.ops.eager;

import dev.ember.kernels.ColdStart;
import dev.ember.kernels.Conv2dGeometry;
import dev.ember.kernels.ConvWorkspace;
import dev.ember.kernels.Parallel;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.util.Arrays;

/**
 * Winograd F(2x2, 3x3) float32 convolution: 3x3 kernel, stride 1, dilation 1, any padding,
 * groups, batch, input strides, with or without bias. Each 2x2 block of outputs (a tile) is
 * computed from the 4x4 input patch {@code d} under it as {@code Y = Aᵀ [Σ_c U ⊙ V] A} with
 * {@code U = G g Gᵀ} (the 3x3 weight, transformed once per call, in double) and
 * {@code V = Bᵀ d B}: 16 multiply-adds per tile, channel and output channel instead of 36. The sum
 * over channels is, for each of the 16 transformed positions ξ, a GEMM
 * {@code M[ξ][K][tiles] = U[ξ][K][C] · V[ξ][C][tiles]}.
 *
 * <p>Blocking. An image's tiles, numbered row by row, are cut into blocks of {@code 3 * lanes}
 * (48 on AVX-512); a work item is a run of blocks of one image and group (the whole image unless
 * the cores need more items or its padded rows pass about 1 MB). The item first copies all of
 * its rows, channel by channel, into zero-bordered rows split into even and odd columns. From
 * session 37 to 40 it copied before each block only the rows that block's tiles reached first, for
 * every channel, so that the transform would read them from L1/L2; but that reads 64 channels' input
 * a few hundred bytes at a time, 12.5 KB apart, which no hardware prefetcher follows: each short
 * run waited on memory, and the split took 3.5-3.7 ms of one thread's 11.7 per 8x64→64 56x56
 * call, against 1.4-1.6 ms for the whole image in one pass (phase probe, session 41,
 * docs/benchmarks.md; the input transform reads the split rows as fast either way). Reading each
 * block's rows straight from the input with masked loads and
 * permutes, no copy, measured slower (14.0 ms against 13.4); an earlier version that gathered
 * them spent a third of its time waiting on memory. With the columns split, the
 * four input columns {@code 2t .. 2t+3} of {@code lanes} consecutive tiles are four contiguous
 * vector loads. Per block it then
 * transforms the inputs of every channel into {@code V} ({@code 16 x C x 64} floats, 256 KB for
 * 64 channels, in L2), runs the 16 GEMMs with the register tile of {@link ConvDirect} (8 output
 * channels broadcast x 3 vectors of tiles = 24 FMA accumulators; 2 or 1 vectors for an image's
 * last, partial block) into {@code M}, and transforms {@code M} straight into {@code out}: tile
 * rows are interleaved back into even and odd output columns by two-vector permutes
 * ({@code selectFrom}), and the partial tiles at an odd output edge are written by masked stores.
 * The rows of V's (and M's) positions are a cache line more than a multiple of 4 KB apart: at
 * exactly 16 KB the sixteen stores of one transform all fell in one L1 set. {@code U}, {@code V},
 * {@code M} and the split rows live in per-thread workspaces ({@link ConvWorkspace}), not fresh
 * arrays each call. The loop ({@link #run}) serves F(4x4, 3x3) ({@link ConvWinograd4}) too: a
 * {@link Tiling} gives the tile's side and the kernels that differ.
 *
 * <p>Selection ({@link #applies}). Measured against {@link ConvDirect} on this host (Xeon,
 * AVX-512, 2 vCPUs shared with other builds: load average 5 to 9 during the runs, so CPU time of
 * one thread, fastest of 20 after 3 s of warm-up; Winograd speed-up = direct time / Winograd
 * time, N x C→K, output HxW): 8x64→64 56x56 1.69-1.86; 8x64→64 28x28 1.46; 4x64→64 28x28
 * 1.35-1.43; 1x64→64 56x56 1.36-1.60; 8x128→128 28x28 1.53-1.78; 8x128→128 56x56 2.06;
 * 4x256→256 28x28 1.73; 2x256→256 56x56 1.91; 8x32→32 56x56 1.19-1.35; 8x32→32 28x28 0.99-1.16;
 * 4x32→32 28x28 1.02-1.08; 8x64→64 20x20 1.06-1.28; 8x32→32 20x20 0.79-0.92 (one run
 * 0.23); 8x64→64 14x14 0.92-1.03; 8x16→16 56x56 0.69-0.88 (one run 0.43); 8x16→16 112x112
 * 0.80-0.87; 8x32→16 56x56 0.95-1.00; 8x64→16 56x56 1.06; 8x16→32 56x56 1.02-1.14; 8x256→256 14x14 0.94-1.49; 8x512→512 7x7 0.71-0.94;
 * 2x512→512 28x28 1.06. Hence: at least 32 channels per group in and out, at least 196 tiles per
 * image (a 28x28 output), at most 256x256 channels per group (past that {@code U} is 16 MB and
 * every block streams it), and 64 or more channels in and out unless the output has 784 tiles
 * (56x56) or more. Small channel counts lose to the transforms, small images to partial blocks
 * and the weights' transform.
 *
 * <p>Accuracy. The transforms add and subtract inputs and outputs, but each GEMM sums only C
 * products instead of 9C, and the weight transform is rounded once from double. Against a
 * float64 reference on randn inputs with weights randn / sqrt(9C) (outputs of rms 1):
 * 8x64→64 56x56 padding 1: max abs error 1.8e-6 (direct kernel 4.8e-6), 4x64→64 28x28: 1.7e-6
 * (direct 4.2e-6), 2x256→256 28x28: 3.3e-6 (direct 9.5e-6); the largest error relative to
 * {@code max(|expected|, 1e-3 rms)} is 1.1e-3 (direct 1.4e-3), on outputs near zero. The
 * existing libtorch conv tests (atol 1e-4, rtol 1e-5 against float64 for float32) pass with it.
 * F(4x4, 3x3) ({@link ConvWinograd4}, on the points 0, ±3/2, ±2/3: the direct kernel's error) takes
 * the 56x56 and larger outputs with 64-256 channels since session 42.
 */
final class ConvWinograd {
    private ConvWinograd() {}

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    /** Output channels per register tile. */
    static final int OB = 8;
    /** Vectors of tiles per register tile and per block. */
    static final int NV = 3;
    /** Tiles per block. */
    static final int TB = NV * L;
    /** Row stride of the V and M buffers: a block plus one vector of slack that segment tails may write into. */
    static final int TBS = TB + L;
    /** Bytes of padded input rows a work item aims to keep in L2. */
    private static final long PART_BYTES = 1L << 20;
    private static final boolean WIDE_VECTORS = S.vectorBitSize() >= 512;
    /** Two-vector permutes: even and odd lanes of a pair of vectors, and a pair of vectors interleaved. */
    static final FloatVector EVEN, ODD, ZIP_LO, ZIP_HI;

    static {
        float[] even = new float[L], odd = new float[L], lo = new float[L], hi = new float[L];
        for (int i = 0; i < L; i++) {
            even[i] = 2 * i;
            odd[i] = 2 * i + 1;
            lo[i] = (i & 1) == 0 ? i / 2 : L + i / 2;
            hi[i] = (i & 1) == 0 ? L / 2 + i / 2 : L + L / 2 + i / 2;
        }
        EVEN = FloatVector.fromArray(S, even, 0);
        ODD = FloatVector.fromArray(S, odd, 0);
        ZIP_LO = FloatVector.fromArray(S, lo, 0);
        ZIP_HI = FloatVector.fromArray(S, hi, 0);
    }

    /** Whether this kernel can compute the convolution (the shape conditions only, not whether it is faster). */
    static boolean supports(DType dtype, Conv2dGeometry g) {
        return WIDE_VECTORS && dtype == DType.FLOAT32 && g.kernelH() == 3 && g.kernelW() == 3 && g.strideH() == 1 && g.strideW() == 1
                && g.dilationH() == 1 && g.dilationW() == 1 && g.outH() > 0 && g.outW() > 0;
    }

    /**
     * The warm-up slice: 16 channels, a 15x15 output (64 tiles: a whole block, a one-vector block,
     * and the partial tiles of an odd edge), so every path the kernel has is compiled.
     */
    private static final Conv2d.Slice SLICE = Conv2d.Slice.of(16, 15);

    /** This kernel's tier: while it is cold, {@link Conv2d#columnFree(DType, Conv2dGeometry)} sends its convolutions to im2col and OpenBLAS. */
    static final ColdStart.Tier TIER = ColdStart.tier("ConvWinograd", SLICE.flops(),
            () -> forward(SLICE.input(), SLICE.weight(), null, SLICE.out(), SLICE.geometry()));

    /** Whether {@link Conv2d} runs this kernel: supported, and where it measured faster than {@link ConvDirect} (see the class comment). */
    static boolean applies(DType dtype, Conv2dGeometry g) {
        if (!supports(dtype, g)) return false;
        long tiles = (long) ((g.outH() + 1) / 2) * ((g.outW() + 1) / 2);
        int cg = g.groupChannels(), og = g.groupOutChannels();
        return cg >= 32 && og >= 32 && (long) cg * og <= 256 * 256 && tiles >= 196 && (cg >= 64 && og >= 64 || tiles >= 784);
    }

    /** Writes every element of {@code out} ({@code [N, O, outH, outW]}, contiguous): the convolution plus {@code bias} (or none). */
    static void forward(Tensor input, Tensor weight, Tensor bias, Tensor out, Conv2dGeometry g) {
        if (!supports(out.dtype(), g)) throw new IllegalArgumentException("ConvWinograd: unsupported convolution " + g);
        run(Tiling.F2, input, weight, bias, out, g);
    }

    /**
     * What F(2x2, 3x3) and F(4x4, 3x3) ({@link ConvWinograd4}) do differently inside the one block
     * loop ({@link #run}): the output tile's side {@code m} (the input patch's is {@code m + 2}), and
     * the kernels that split padded rows into {@code m} column phases and transform weights, inputs
     * and outputs.
     */
    enum Tiling {
        F2(2) {
            float[] transformWeights(Tensor weight, Conv2dGeometry g, int kBlocks) { return ConvWinograd.transformWeights(weight, g, kBlocks); }
            void padChannel(Tensor input, Conv2dGeometry g, int n, int channel, int firstRow, int rows, float[] patch, int to, float[] line, int lw) {
                ConvWinograd.padChannel(input, g, n, channel, firstRow, rows, patch, to, line, lw);
            }
            void transformInputs(float[] x, int base, int row, int lw, int len, float[] v, int off, int xiStride, float[] scratch) {
                ConvWinograd.transformInputs(x, base, row, lw, len, v, off, xiStride);
            }
            void transformOutputs(float[] m, int off, int stride, int len, float bias, float[] out, int dst, int outH, int outW, int oh, int ow, float[] scratch) {
                ConvWinograd.transformOutputs(m, off, stride, len, bias, out, dst, outH, outW, oh, ow, scratch);
            }
        },
        F4(4) {
            float[] transformWeights(Tensor weight, Conv2dGeometry g, int kBlocks) { return ConvWinograd4.transformWeights(weight, g, kBlocks); }
            void padChannel(Tensor input, Conv2dGeometry g, int n, int channel, int firstRow, int rows, float[] patch, int to, float[] line, int lw) {
                ConvWinograd4.padChannel(input, g, n, channel, firstRow, rows, patch, to, line, lw);
            }
            void transformInputs(float[] x, int base, int row, int lw, int len, float[] v, int off, int xiStride, float[] scratch) {
                ConvWinograd4.transformInputs(x, base, row, lw, len, v, off, xiStride, scratch);
            }
            void transformOutputs(float[] m, int off, int stride, int len, float bias, float[] out, int dst, int outH, int outW, int oh, int ow, float[] scratch) {
                ConvWinograd4.transformOutputs(m, off, stride, len, bias, out, dst, outH, outW, oh, ow, scratch);
            }
        };

        /** The output tile's side; also the number of column phases a padded row is split into. */
        final int m;
        /** Transformed positions per tile: {@code (m + 2)²}. */
        final int positions;

        Tiling(int m) {
            this.m = m;
            this.positions = (m + 2) * (m + 2);
        }

        /**
         * Floats per column phase of a padded row for {@code tilesW} tiles: whole vectors (so one
         * phase's stores stay clear of the next), with room for the loads one tile on (a patch
         * reaches {@code m + 2} columns, into the next tile's first two) from a row's last vector.
         */
        int phaseFloats(int tilesW) {
            return this == F2 ? (tilesW + 2 + L - 1) / L * L : (tilesW + 1 + L - 1) / L * L + L;
        }

        /** {@code U = G g Gᵀ} of every weight, as {@code [group][block of OB output channels][xi][channel][OB]}. */
        abstract float[] transformWeights(Tensor weight, Conv2dGeometry g, int kBlocks);

        /** Padded rows {@code [firstRow, firstRow+rows)} of one channel of image {@code n}, split into column phases, at {@code patch[to…]}. */
        abstract void padChannel(Tensor input, Conv2dGeometry g, int n, int channel, int firstRow, int rows, float[] patch, int to, float[] line, int lw);

        /** {@code V = Bᵀ d B} of {@code len} consecutive tiles of one channel into {@code v[off + xi*xiStride + t]}. */
        abstract void transformInputs(float[] x, int base, int row, int lw, int len, float[] v, int off, int xiStride, float[] scratch);

        /** {@code Y = Aᵀ M A + bias} of {@code len} consecutive tiles of one output channel into its plane from row {@code oh}, column {@code ow}. */
        abstract void transformOutputs(float[] m, int off, int stride, int len, float bias, float[] out, int dst, int outH, int outW, int oh, int ow, float[] scratch);
    }

    /** The block loop of both tilings (see the class comment): writes every element of {@code out}. */
    static void run(Tiling tiling, Tensor input, Tensor weight, Tensor bias, Tensor out, Conv2dGeometry g) {
        int side = tiling.m, xis = tiling.positions;
        int tilesH = (g.outH() + side - 1) / side, tilesW = (g.outW() + side - 1) / side, tilesPerImage = tilesH * tilesW;
        int cg = g.groupChannels(), og = g.groupOutChannels(), kBlocks = (og + OB - 1) / OB;
        float[] u = tiling.transformWeights(weight, g, kBlocks);
        float[] biases = biases(bias, g);
        float[] o = out.storage().floats();
        // a padded row: its m column phases of lw floats each
        int lw = tiling.phaseFloats(tilesW), row = side * lw;
        int blocksPerImage = (tilesPerImage + TB - 1) / TB;
        // each image's blocks split into parts: enough work items for every core, and a part's
        // padded rows (all of its group's channels) small enough to stay in L2 (about 1 MB)
        long imageBytes = (long) cg * (side * tilesH + 2) * row * Float.BYTES;
        long byCores = (2L * Runtime.getRuntime().availableProcessors() + (long) g.batch() * g.groups() - 1) / ((long) g.batch() * g.groups());
        long byCache = (imageBytes + PART_BYTES - 1) / PART_BYTES;
        int split = (int) Math.min(blocksPerImage, Math.max(byCores, byCache));
        int perPart = (blocksPerImage + split - 1) / split;
        int parts = (blocksPerImage + perPart - 1) / perPart;
        // the positions' rows of V are a cache line more than a multiple of 4 KB apart (else
        // their stores in one transform all fall in one L1 set, and alias loads 4 KB away)
        int vXi = cg * TBS + L, mXi = kBlocks * OB * TBS + L;
        // position by position, every output channel: V[xi] stays in L1 across the channel blocks,
        // M for all channels (xis x og x TBS floats) in L2; past 128 channels M would crowd out V
        // and the block is done 8 output channels at a time (V read from L2 for each)
        boolean xiOuter = og <= 128;
        Parallel.forRange(g.batch() * g.groups() * parts, (long) perPart * TB * og * cg * xis, (lo, hi) -> {
            float[] v = (float[]) ConvWorkspace.array(ConvWorkspace.Slot.PRODUCT, o, xis * vXi);
            float[] m = (float[]) ConvWorkspace.array(ConvWorkspace.Slot.TRANSFORMED_OUTPUTS, o, xis * mXi);
            float[] line = new float[row + side * L], scratch = new float[xis * L];
            int[] seg = new int[4 * TB];
            for (int item = lo; item < hi; item++) {
                int n = item / (g.groups() * parts), group = item / parts % g.groups(), part = item % parts;
                int b0 = part * perPart, b1 = Math.min(blocksPerImage, b0 + perPart);
                int firstRow = b0 * TB / tilesW, lastRow = (Math.min(tilesPerImage, b1 * TB) - 1) / tilesW;
                int rows = side * (lastRow - firstRow) + side + 2;
                float[] patch = (float[]) ConvWorkspace.array(ConvWorkspace.Slot.COLUMNS, o, cg * rows * row + side * L);
                // every padded row of the part, channel by channel, before its first block: each
                // channel's rows are one long sequential read the hardware prefetcher streams (see
                // the class comment for why not a few rows of every channel per block)
                for (int c = 0; c < cg; c++) {
                    tiling.padChannel(input, g, n, group * cg + c, side * firstRow, rows, patch, c * rows * row, line, lw);
                }
                for (int b = b0; b < b1; b++) {
                    int t0 = b * TB, count = Math.min(TB, tilesPerImage - t0);
                    int runs = segments(t0, count, tilesW, seg);
                    for (int c = 0; c < cg; c++) {
                        for (int s = 0; s < runs; s++) {
                            int th = seg[3 * s], tw = seg[3 * s + 1], pos = seg[3 * s + 2];
                            int len = (s + 1 < runs ? seg[3 * (s + 1) + 2] : count) - pos;
                            int base = (c * rows + side * (th - firstRow)) * row + tw;
                            tiling.transformInputs(patch, base, row, lw, len, v, c * TBS + pos, vXi, scratch);
                        }
                    }
                    if (xiOuter) {
                        multiplyPositions(count, v, vXi, cg, u, group * kBlocks, kBlocks, xis, m, mXi);
                        for (int k = 0; k < og; k++) writeOutputs(tiling, g, seg, runs, count, m, k, mXi, biases, o, n, group, scratch);
                        continue;
                    }
                    for (int kb = 0; kb < kBlocks; kb++) {
                        for (int xi = 0; xi < xis; xi++) {
                            accumulate(count, v, xi * vXi, cg, u, ((group * kBlocks + kb) * xis + xi) * cg * OB, m, xi * mXi + kb * OB * TBS);
                        }
                        for (int k = kb * OB; k < Math.min(og, kb * OB + OB); k++) writeOutputs(tiling, g, seg, runs, count, m, k, mXi, biases, o, n, group, scratch);
                    }
                }
            }
        });
    }

    /**
     * A block's channel GEMMs, position by position, each over every block of {@value #OB} output
     * channels, with the register tile that fits the block's tiles chosen once for the block. Until
     * session 38 the block loop chose it per GEMM: C2 hoisted checks out of these loops on the
     * profile of full blocks, an image's last, short block failed them, and the whole block loop
     * (a 100-400 ms C2 compile on this host) was deoptimized and compiled again, ten times in ten
     * seconds of a Conv-BN-ReLU training loop 20 s after its start (JFR {@code jdk.Deoptimization},
     * reason {@code profile_predicate}, at these loops).
     */
    private static void multiplyPositions(int count, float[] v, int vXi, int cg, float[] u, int firstBlock, int kBlocks, int xis, float[] m, int mXi) {
        if (count > 2 * L) {
            for (int xi = 0; xi < xis; xi++) {
                for (int kb = 0; kb < kBlocks; kb++) accumulate(v, xi * vXi, cg, u, ((firstBlock + kb) * xis + xi) * cg * OB, m, xi * mXi + kb * OB * TBS);
            }
        } else if (count > L) {
            for (int xi = 0; xi < xis; xi++) {
                for (int kb = 0; kb < kBlocks; kb++) accumulate2(v, xi * vXi, cg, u, ((firstBlock + kb) * xis + xi) * cg * OB, m, xi * mXi + kb * OB * TBS);
            }
        } else {
            for (int xi = 0; xi < xis; xi++) {
                for (int kb = 0; kb < kBlocks; kb++) accumulate1(v, xi * vXi, cg, u, ((firstBlock + kb) * xis + xi) * cg * OB, m, xi * mXi + kb * OB * TBS);
            }
        }
    }

    /** The GEMM register tile that fits the block's tiles: three, two or one vector of them. */
    private static void accumulate(int count, float[] v, int vOff, int channels, float[] u, int uOff, float[] m, int mOff) {
        if (count > 2 * L) accumulate(v, vOff, channels, u, uOff, m, mOff);
        else if (count > L) accumulate2(v, vOff, channels, u, uOff, m, mOff);
        else accumulate1(v, vOff, channels, u, uOff, m, mOff);
    }

    /** Output channel {@code k} of the block (its runs of tiles) from {@code M} into the output plane. */
    private static void writeOutputs(Tiling tiling, Conv2dGeometry g, int[] seg, int runs, int count, float[] m, int k, int mXi, float[] biases,
                                     float[] o, int n, int group, float[] scratch) {
        int oc = group * g.groupOutChannels() + k, dst = (n * g.outChannels() + oc) * g.outPixels();
        for (int s = 0; s < runs; s++) {
            int th = seg[3 * s], tw = seg[3 * s + 1], pos = seg[3 * s + 2];
            int len = (s + 1 < runs ? seg[3 * (s + 1) + 2] : count) - pos;
            tiling.transformOutputs(m, k * TBS + pos, mXi, len, biases[oc], o, dst, g.outH(), g.outW(), tiling.m * th, tiling.m * tw, scratch);
        }
    }

    /** {@link #accumulate} for a block's last tiles when they fit two vectors. */
    static void accumulate2(float[] v, int vOff, int channels, float[] u, int uOff, float[] m, int mOff) {
        FloatVector zero = FloatVector.zero(S);
        FloatVector a00 = zero, a01 = zero, a10 = zero, a11 = zero, a20 = zero, a21 = zero, a30 = zero, a31 = zero;
        FloatVector a40 = zero, a41 = zero, a50 = zero, a51 = zero, a60 = zero, a61 = zero, a70 = zero, a71 = zero;
        int wi = uOff, p = vOff;
        for (int c = 0; c < channels; c++, p += TBS, wi += OB) {
            FloatVector x0 = FloatVector.fromArray(S, v, p), x1 = FloatVector.fromArray(S, v, p + L);
            FloatVector w0 = FloatVector.broadcast(S, u[wi]), w1 = FloatVector.broadcast(S, u[wi + 1]);
            a00 = x0.fma(w0, a00); a01 = x1.fma(w0, a01); a10 = x0.fma(w1, a10); a11 = x1.fma(w1, a11);
            FloatVector w2 = FloatVector.broadcast(S, u[wi + 2]), w3 = FloatVector.broadcast(S, u[wi + 3]);
            a20 = x0.fma(w2, a20); a21 = x1.fma(w2, a21); a30 = x0.fma(w3, a30); a31 = x1.fma(w3, a31);
            FloatVector w4 = FloatVector.broadcast(S, u[wi + 4]), w5 = FloatVector.broadcast(S, u[wi + 5]);
            a40 = x0.fma(w4, a40); a41 = x1.fma(w4, a41); a50 = x0.fma(w5, a50); a51 = x1.fma(w5, a51);
            FloatVector w6 = FloatVector.broadcast(S, u[wi + 6]), w7 = FloatVector.broadcast(S, u[wi + 7]);
            a60 = x0.fma(w6, a60); a61 = x1.fma(w6, a61); a70 = x0.fma(w7, a70); a71 = x1.fma(w7, a71);
        }
        int q = mOff;
        a00.intoArray(m, q); a01.intoArray(m, q + L); q += TBS;
        a10.intoArray(m, q); a11.intoArray(m, q + L); q += TBS;
        a20.intoArray(m, q); a21.intoArray(m, q + L); q += TBS;
        a30.intoArray(m, q); a31.intoArray(m, q + L); q += TBS;
        a40.intoArray(m, q); a41.intoArray(m, q + L); q += TBS;
        a50.intoArray(m, q); a51.intoArray(m, q + L); q += TBS;
        a60.intoArray(m, q); a61.intoArray(m, q + L); q += TBS;
        a70.intoArray(m, q); a71.intoArray(m, q + L);
    }

    /** {@link #accumulate} for a block's last tiles when they fit one vector. */
    static void accumulate1(float[] v, int vOff, int channels, float[] u, int uOff, float[] m, int mOff) {
        FloatVector zero = FloatVector.zero(S);
        FloatVector a0 = zero, a1 = zero, a2 = zero, a3 = zero, a4 = zero, a5 = zero, a6 = zero, a7 = zero;
        int wi = uOff, p = vOff;
        for (int c = 0; c < channels; c++, p += TBS, wi += OB) {
            FloatVector x = FloatVector.fromArray(S, v, p);
            a0 = x.fma(FloatVector.broadcast(S, u[wi]), a0); a1 = x.fma(FloatVector.broadcast(S, u[wi + 1]), a1);
            a2 = x.fma(FloatVector.broadcast(S, u[wi + 2]), a2); a3 = x.fma(FloatVector.broadcast(S, u[wi + 3]), a3);
            a4 = x.fma(FloatVector.broadcast(S, u[wi + 4]), a4); a5 = x.fma(FloatVector.broadcast(S, u[wi + 5]), a5);
            a6 = x.fma(FloatVector.broadcast(S, u[wi + 6]), a6); a7 = x.fma(FloatVector.broadcast(S, u[wi + 7]), a7);
        }
        a0.intoArray(m, mOff); a1.intoArray(m, mOff + TBS); a2.intoArray(m, mOff + 2 * TBS); a3.intoArray(m, mOff + 3 * TBS);
        a4.intoArray(m, mOff + 4 * TBS); a5.intoArray(m, mOff + 5 * TBS); a6.intoArray(m, mOff + 6 * TBS); a7.intoArray(m, mOff + 7 * TBS);
    }

    /**
     * Copies padded rows {@code [firstRow, firstRow+rows)} of one channel ({@code channel} counted
     * over all groups) of image {@code n} into {@code patch[to…]}: each row as its even columns, then
     * (from {@code lw} on) its odd columns, {@code 2lw} floats; zeros where rows or columns fall in
     * the padding. {@code line} holds {@code 2lw + 2L} floats.
     */
    static void padChannel(Tensor input, Conv2dGeometry g, int n, int channel, int firstRow, int rows, float[] patch, int to, float[] line, int lw) {
        int[] st = input.strides();
        float[] x = input.storage().floats();
        int ph = g.padH(), pw = g.padW(), h = g.height(), w = g.width(), row = 2 * lw;
        // padded column k holds input column k - pw; the tiles read padded columns [0, width)
        int width = g.outW() + 3, from = -pw, lo = Math.max(0, pw), hi = Math.min(width, w + pw), pairs = (width + 1) / 2;
        int channelBase = input.storageOffset() + n * st[0] + channel * st[1];
        for (int r = 0; r < rows; r++, to += row) {
            int y = firstRow + r - ph;
            if (y < 0 || y >= h || lo >= hi) {
                Arrays.fill(patch, to, to + row, 0f);
                continue;
            }
            int src = channelBase + y * st[2];
            if (st[3] == 1) {
                split(x, src + from, lo, hi, pairs, patch, to, lw);
                continue;
            }
            Arrays.fill(line, 0, lo, 0f);
            for (int k = lo; k < hi; k++) line[k] = x[src + (from + k) * st[3]];
            Arrays.fill(line, hi, 2 * pairs, 0f);
            split(line, 0, 0, 2 * pairs, pairs, patch, to, lw);
        }
    }

    /**
     * Splits {@code 2*pairs} floats from {@code x[at]} into their even ones at {@code patch[to]} and
     * their odd ones at {@code patch[to + lw]}, reading only {@code [lo, hi)} of them (the rest
     * taken as zero). A method of its own, called for every row: vector code runs fast only once
     * C2 compiles it, and a method called a few times per convolution would stay in C1.
     */
    static void split(float[] x, int at, int lo, int hi, int pairs, float[] patch, int to, int lw) {
        for (int j = 0; j < pairs; j += L) {
            int k = 2 * j;
            FloatVector a, b;
            if (k >= lo && k + 2 * L <= hi) {
                a = FloatVector.fromArray(S, x, at + k);
                b = FloatVector.fromArray(S, x, at + k + L);
            } else {
                a = FloatVector.fromArray(S, x, at + k, lanes(lo - k, hi - k));
                b = FloatVector.fromArray(S, x, at + k + L, lanes(lo - k - L, hi - k - L));
            }
            EVEN.selectFrom(a, b).intoArray(patch, to + j);
            ODD.selectFrom(a, b).intoArray(patch, to + lw + j);
        }
    }

    /** Lane numbers 0, 1, …, L-1 as floats, for {@link #lanes} and the output transforms' masks. */
    static final FloatVector IOTA = FloatVector.zero(S).addIndex(1);

    /**
     * The mask of lanes {@code i} with {@code from <= i < to} (either bound may lie outside
     * {@code [0, L]}): two compares with a constant. {@code S.indexInRange(offset, limit)} gives the
     * same mask, but with a negative offset (a row's first vector, which starts in the left padding)
     * it takes a slow path: every padded row paid it, and the row split took 0.15 ms of one thread
     * per 4x64x28x28 convolution instead of 0.06-0.07 (session 38, docs/benchmarks.md).
     */
    static VectorMask<Float> lanes(int from, int to) {
        return IOTA.compare(VectorOperators.GE, (float) from).and(IOTA.compare(VectorOperators.LT, (float) to));
    }

    /**
     * Cuts tiles {@code [t0, t0+count)} of an image (numbered row by row) into runs within one
     * tile row: {@code (tile row, first tile column, position in the block)} per run.
     */
    static int segments(int t0, int count, int tilesW, int[] seg) {
        int s = 0;
        for (int t = t0; t < t0 + count; s++) {
            int th = t / tilesW, tw = t % tilesW;
            seg[3 * s] = th;
            seg[3 * s + 1] = tw;
            seg[3 * s + 2] = t - t0;
            t += Math.min(tilesW - tw, t0 + count - t);
        }
        return s;
    }

    /**
     * {@code V = Bᵀ d B} for {@code len} consecutive tiles of one channel whose 4x4 patches start
     * at {@code base} of the split planes (even columns at {@code base}, odd at {@code base + we},
     * rows {@code row} apart), into {@code v[off + xi*xiStride + t]}. Writes up to a vector past
     * the last tile (the buffer's slack).
     */
    static void transformInputs(float[] x, int base, int row, int we, int len, float[] v, int off, int xiStride) {
        for (int j = 0; j < len; j += L) {
            int p0 = base + j, p1 = p0 + row, p2 = p1 + row, p3 = p2 + row;
            // d B along each row: x0 = even[t], x1 = odd[t], x2 = even[t+1], x3 = odd[t+1]
            FloatVector e, od, e1, od1;
            e = FloatVector.fromArray(S, x, p0); od = FloatVector.fromArray(S, x, p0 + we);
            e1 = FloatVector.fromArray(S, x, p0 + 1); od1 = FloatVector.fromArray(S, x, p0 + we + 1);
            FloatVector r00 = e.sub(e1), r01 = od.add(e1), r02 = e1.sub(od), r03 = od.sub(od1);
            e = FloatVector.fromArray(S, x, p1); od = FloatVector.fromArray(S, x, p1 + we);
            e1 = FloatVector.fromArray(S, x, p1 + 1); od1 = FloatVector.fromArray(S, x, p1 + we + 1);
            FloatVector r10 = e.sub(e1), r11 = od.add(e1), r12 = e1.sub(od), r13 = od.sub(od1);
            e = FloatVector.fromArray(S, x, p2); od = FloatVector.fromArray(S, x, p2 + we);
            e1 = FloatVector.fromArray(S, x, p2 + 1); od1 = FloatVector.fromArray(S, x, p2 + we + 1);
            FloatVector r20 = e.sub(e1), r21 = od.add(e1), r22 = e1.sub(od), r23 = od.sub(od1);
            e = FloatVector.fromArray(S, x, p3); od = FloatVector.fromArray(S, x, p3 + we);
            e1 = FloatVector.fromArray(S, x, p3 + 1); od1 = FloatVector.fromArray(S, x, p3 + we + 1);
            FloatVector r30 = e.sub(e1), r31 = od.add(e1), r32 = e1.sub(od), r33 = od.sub(od1);
            // Bᵀ (d B) down each column
            int q = off + j;
            r00.sub(r20).intoArray(v, q);
            r01.sub(r21).intoArray(v, q + xiStride);
            r02.sub(r22).intoArray(v, q + 2 * xiStride);
            r03.sub(r23).intoArray(v, q + 3 * xiStride);
            r10.add(r20).intoArray(v, q + 4 * xiStride);
            r11.add(r21).intoArray(v, q + 5 * xiStride);
            r12.add(r22).intoArray(v, q + 6 * xiStride);
            r13.add(r23).intoArray(v, q + 7 * xiStride);
            r20.sub(r10).intoArray(v, q + 8 * xiStride);
            r21.sub(r11).intoArray(v, q + 9 * xiStride);
            r22.sub(r12).intoArray(v, q + 10 * xiStride);
            r23.sub(r13).intoArray(v, q + 11 * xiStride);
            r10.sub(r30).intoArray(v, q + 12 * xiStride);
            r11.sub(r31).intoArray(v, q + 13 * xiStride);
            r12.sub(r32).intoArray(v, q + 14 * xiStride);
            r13.sub(r33).intoArray(v, q + 15 * xiStride);
        }
    }

    /**
     * {@code Y = Aᵀ M A + bias} for {@code len} consecutive tiles of one output channel, M's 16
     * positions at {@code m[off + xi*M_XI + t]}, written to the output plane at {@code dst} from
     * row {@code oh}, column {@code ow} on; rows and columns past the plane are not written.
     * {@code scratch} holds at least {@code 2 * L} floats.
     *
     * <p>A run that ends inside a vector pair (every run of a 28-wide output: 14 tiles) is stored
     * masked right here. Until session 39 it went through a method taking the vector
     * ({@code storeFirst}); C2 did not inline it into this large method ("already compiled into a
     * big method"), so every partial run boxed four vectors on the heap: this transform took 22.5%
     * of a 4x64x28x28 convolution's samples and the call 3.1%, as much as the channel GEMMs
     * (perf, one thread, docs/benchmarks.md, session 39).
     */
    static void transformOutputs(float[] m, int off, int stride, int len, float bias, float[] out, int dst, int outH, int outW, int oh, int ow, float[] scratch) {
        boolean secondRow = oh + 1 < outH;
        FloatVector b = FloatVector.broadcast(S, bias);
        for (int j = 0; j < len; j += L) {
            int q = off + j;
            FloatVector m0 = FloatVector.fromArray(S, m, q), m1 = FloatVector.fromArray(S, m, q + stride);
            FloatVector m2 = FloatVector.fromArray(S, m, q + 2 * stride), m3 = FloatVector.fromArray(S, m, q + 3 * stride);
            FloatVector m4 = FloatVector.fromArray(S, m, q + 4 * stride), m5 = FloatVector.fromArray(S, m, q + 5 * stride);
            FloatVector m6 = FloatVector.fromArray(S, m, q + 6 * stride), m7 = FloatVector.fromArray(S, m, q + 7 * stride);
            FloatVector m8 = FloatVector.fromArray(S, m, q + 8 * stride), m9 = FloatVector.fromArray(S, m, q + 9 * stride);
            FloatVector m10 = FloatVector.fromArray(S, m, q + 10 * stride), m11 = FloatVector.fromArray(S, m, q + 11 * stride);
            FloatVector m12 = FloatVector.fromArray(S, m, q + 12 * stride), m13 = FloatVector.fromArray(S, m, q + 13 * stride);
            FloatVector m14 = FloatVector.fromArray(S, m, q + 14 * stride), m15 = FloatVector.fromArray(S, m, q + 15 * stride);
            // Aᵀ M: rows 0+1+2 and 1-2-3 of each column
            FloatVector a0 = m0.add(m4).add(m8), a1 = m1.add(m5).add(m9), a2 = m2.add(m6).add(m10), a3 = m3.add(m7).add(m11);
            FloatVector c0 = m4.sub(m8).sub(m12), c1 = m5.sub(m9).sub(m13), c2 = m6.sub(m10).sub(m14), c3 = m7.sub(m11).sub(m15);
            // (Aᵀ M) A: columns 0+1+2 and 1-2-3
            FloatVector y00 = a0.add(a1).add(a2).add(b), y01 = a1.sub(a2).sub(a3).add(b);
            FloatVector y10 = c0.add(c1).add(c2).add(b), y11 = c1.sub(c2).sub(c3).add(b);
            int col = ow + 2 * j, cols = Math.min(2 * Math.min(L, len - j), outW - col);
            int at = dst + oh * outW + col;
            FloatVector lo0 = ZIP_LO.selectFrom(y00, y01), hi0 = ZIP_HI.selectFrom(y00, y01);
            FloatVector lo1 = ZIP_LO.selectFrom(y10, y11), hi1 = ZIP_HI.selectFrom(y10, y11);
            if (cols >= 2 * L) {
                lo0.intoArray(out, at);
                hi0.intoArray(out, at + L);
                if (secondRow) {
                    lo1.intoArray(out, at + outW);
                    hi1.intoArray(out, at + outW + L);
                }
            } else if (at + (secondRow ? outW : 0) + 2 * L <= out.length) {
                // a partial run (the row's last tiles, or an odd output width's half tile): masked
                // stores, both vectors wholly inside the array, so the Vector API's fast path
                VectorMask<Float> first = IOTA.compare(VectorOperators.LT, (float) cols);
                VectorMask<Float> second = IOTA.compare(VectorOperators.LT, (float) (cols - L));
                lo0.intoArray(out, at, first);
                hi0.intoArray(out, at + L, second);
                if (secondRow) {
                    lo1.intoArray(out, at + outW, first);
                    hi1.intoArray(out, at + outW + L, second);
                }
            } else {
                // a partial run at the array's end, where a masked store would check its lanes one
                // by one on a path C2 does not intrinsify: whole vectors into scratch, then a copy
                lo0.intoArray(scratch, 0);
                hi0.intoArray(scratch, L);
                System.arraycopy(scratch, 0, out, at, cols);
                if (secondRow) {
                    lo1.intoArray(scratch, 0);
                    hi1.intoArray(scratch, L);
                    System.arraycopy(scratch, 0, out, at + outW, cols);
                }
            }
        }
    }

    /**
     * {@code m[mOff + i*TBS + t] = Σ_c u[uOff + c*OB + i] * v[vOff + c*TBS + t]} for the {@value #OB}
     * output channels {@code i} and the {@code TB} tiles {@code t}: the register tile of {@link ConvDirect}.
     */
    static void accumulate(float[] v, int vOff, int channels, float[] u, int uOff, float[] m, int mOff) {
        FloatVector zero = FloatVector.zero(S);
        FloatVector a00 = zero, a01 = zero, a02 = zero, a10 = zero, a11 = zero, a12 = zero;
        FloatVector a20 = zero, a21 = zero, a22 = zero, a30 = zero, a31 = zero, a32 = zero;
        FloatVector a40 = zero, a41 = zero, a42 = zero, a50 = zero, a51 = zero, a52 = zero;
        FloatVector a60 = zero, a61 = zero, a62 = zero, a70 = zero, a71 = zero, a72 = zero;
        int wi = uOff, p = vOff;
        for (int c = 0; c < channels; c++, p += TBS, wi += OB) {
            FloatVector x0 = FloatVector.fromArray(S, v, p), x1 = FloatVector.fromArray(S, v, p + L), x2 = FloatVector.fromArray(S, v, p + 2 * L);
            FloatVector w0 = FloatVector.broadcast(S, u[wi]);
            a00 = x0.fma(w0, a00); a01 = x1.fma(w0, a01); a02 = x2.fma(w0, a02);
            FloatVector w1 = FloatVector.broadcast(S, u[wi + 1]);
            a10 = x0.fma(w1, a10); a11 = x1.fma(w1, a11); a12 = x2.fma(w1, a12);
            FloatVector w2 = FloatVector.broadcast(S, u[wi + 2]);
            a20 = x0.fma(w2, a20); a21 = x1.fma(w2, a21); a22 = x2.fma(w2, a22);
            FloatVector w3 = FloatVector.broadcast(S, u[wi + 3]);
            a30 = x0.fma(w3, a30); a31 = x1.fma(w3, a31); a32 = x2.fma(w3, a32);
            FloatVector w4 = FloatVector.broadcast(S, u[wi + 4]);
            a40 = x0.fma(w4, a40); a41 = x1.fma(w4, a41); a42 = x2.fma(w4, a42);
            FloatVector w5 = FloatVector.broadcast(S, u[wi + 5]);
            a50 = x0.fma(w5, a50); a51 = x1.fma(w5, a51); a52 = x2.fma(w5, a52);
            FloatVector w6 = FloatVector.broadcast(S, u[wi + 6]);
            a60 = x0.fma(w6, a60); a61 = x1.fma(w6, a61); a62 = x2.fma(w6, a62);
            FloatVector w7 = FloatVector.broadcast(S, u[wi + 7]);
            a70 = x0.fma(w7, a70); a71 = x1.fma(w7, a71); a72 = x2.fma(w7, a72);
        }
        int q = mOff;
        a00.intoArray(m, q); a01.intoArray(m, q + L); a02.intoArray(m, q + 2 * L); q += TBS;
        a10.intoArray(m, q); a11.intoArray(m, q + L); a12.intoArray(m, q + 2 * L); q += TBS;
        a20.intoArray(m, q); a21.intoArray(m, q + L); a22.intoArray(m, q + 2 * L); q += TBS;
        a30.intoArray(m, q); a31.intoArray(m, q + L); a32.intoArray(m, q + 2 * L); q += TBS;
        a40.intoArray(m, q); a41.intoArray(m, q + L); a42.intoArray(m, q + 2 * L); q += TBS;
        a50.intoArray(m, q); a51.intoArray(m, q + L); a52.intoArray(m, q + 2 * L); q += TBS;
        a60.intoArray(m, q); a61.intoArray(m, q + L); a62.intoArray(m, q + 2 * L); q += TBS;
        a70.intoArray(m, q); a71.intoArray(m, q + L); a72.intoArray(m, q + 2 * L);
    }

    /**
     * {@code U = G g Gᵀ} of every (output channel, channel) 3x3 weight, computed in double, laid
     * out as {@code [group][block of OB output channels][xi][channel][OB]}, in this thread's
     * workspace (a fresh 256 KB array per call was a young-GC cost; lanes past the group's last
     * output channel are left stale: their sums are never read).
     */
    private static float[] transformWeights(Tensor weight, Conv2dGeometry g, int kBlocks) {
        int cg = g.groupChannels(), og = g.groupOutChannels();
        int[] s = weight.strides();
        float[] w = weight.storage().floats();
        float[] u = (float[]) ConvWorkspace.array(ConvWorkspace.Slot.TRANSFORMED_WEIGHTS, w, g.groups() * kBlocks * 16 * cg * OB);
        // blocks of OB output channels across the cores (each block's stretch of u is its own): on
        // the calling thread alone this was about 1% of a Conv-BN-ReLU training step with the other core idle
        Parallel.forRange(g.groups() * kBlocks, (long) OB * cg * 64, (lo, hi) -> {
            for (int block = lo; block < hi; block++) {
                int group = block / kBlocks;
                for (int oc = block % kBlocks * OB; oc < Math.min(og, block % kBlocks * OB + OB); oc++) {
                    int lane = oc % OB;
                    for (int c = 0; c < cg; c++) {
                        int src = weight.storageOffset() + (group * og + oc) * s[0] + c * s[1];
                        transformWeight(w, src, s[2], s[3], u, (block * 16 * cg + c) * OB + lane, cg * OB);
                    }
                }
            }
        });
        return u;
    }

    /**
     * {@code U = G g Gᵀ} of the 3x3 weight at {@code w[src]} (rows {@code rs}, columns {@code cs}
     * apart) into {@code u[to + xi*stride]}. A method of its own, called for every (output
     * channel, channel) pair: C2 compiles it after a call or two, while the loop around it runs
     * once per convolution and would stay in the interpreter or C1 for many calls.
     */
    private static void transformWeight(float[] w, int src, int rs, int cs, float[] u, int to, int stride) {
        // G g: rows g0, (g0+g1+g2)/2, (g0-g1+g2)/2, g2 of each column j, as r<row><j>
        double a0 = w[src], a1 = w[src + cs], a2 = w[src + 2 * cs];
        double b0 = w[src + rs], b1 = w[src + rs + cs], b2 = w[src + rs + 2 * cs];
        double c0 = w[src + 2 * rs], c1 = w[src + 2 * rs + cs], c2 = w[src + 2 * rs + 2 * cs];
        double r10 = (a0 + b0 + c0) / 2, r11 = (a1 + b1 + c1) / 2, r12 = (a2 + b2 + c2) / 2;
        double r20 = (a0 - b0 + c0) / 2, r21 = (a1 - b1 + c1) / 2, r22 = (a2 - b2 + c2) / 2;
        // (G g) Gᵀ: the same along each row i, giving u[4i + j]
        row(a0, a1, a2, u, to, stride);
        row(r10, r11, r12, u, to + 4 * stride, stride);
        row(r20, r21, r22, u, to + 8 * stride, stride);
        row(c0, c1, c2, u, to + 12 * stride, stride);
    }

    /** One row of {@code (G g) Gᵀ}: {@code g0, (g0+g1+g2)/2, (g0-g1+g2)/2, g2}, rounded to float. */
    private static void row(double g0, double g1, double g2, float[] u, int to, int stride) {
        u[to] = (float) g0;
        u[to + stride] = (float) ((g0 + g1 + g2) / 2);
        u[to + 2 * stride] = (float) ((g0 - g1 + g2) / 2);
        u[to + 3 * stride] = (float) g2;
    }

    /** The bias of every output channel (zeros without one). */
    static float[] biases(Tensor bias, Conv2dGeometry g) {
        float[] b = new float[g.outChannels()];
        if (bias == null) return b;
        float[] data = bias.storage().floats();
        for (int o = 0; o < g.outChannels(); o++) b[o] = data[bias.storageOffset() + o * bias.stride(0)];
        return b;
    }
}
