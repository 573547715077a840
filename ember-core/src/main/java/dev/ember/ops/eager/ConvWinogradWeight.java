package dev.ember.ops.eager;

import dev.ember.kernels.ColdStart;
import dev.ember.kernels.Conv2dGeometry;
import dev.ember.kernels.ConvWorkspace;
import dev.ember.kernels.GemmDot;
import dev.ember.kernels.Parallel;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

import java.util.Arrays;

/**
 * The weight gradient of a 3x3, stride-1 float32 convolution by Winograd F(3x3, 2x2): the
 * gradient {@code dW[o][c][i][j] = Σ_n Σ_y,x dY[n][o][y][x] · Xpad[n][c][y+i][x+j]} is a
 * correlation of the padded input with the output gradient, which {@link ConvWinograd}'s tiles
 * cut into 2x2 blocks of the output gradient ({@code g}) over the 4x4 input patches under them
 * ({@code d}, the forward's patches). Each pair contributes the 3x3 correlation
 * {@code Aᵀ [(G g Gᵀ) ⊙ (Bᵀ d B)] A}: 16 multiply-adds instead of 36, and the sum over every tile
 * of every image is, for each of the 16 transformed positions ξ, a product
 * {@code M[ξ][o][c] = Σ_t W[ξ][o][t] · V[ξ][c][t]} of two row-major matrices whose rows are the
 * tiles — a dot-product GEMM ({@link GemmDot}) with the batch's tiles as its long reduction. The
 * 3x3 gradient of every (o, c) is then {@code Aᵀ M A}.
 *
 * <p>The transforms, with the points 0, 1, -1 and ∞ (Lavin and Gray, "Fast Algorithms for
 * Convolutional Neural Networks", 2016):
 * <pre>
 *   Bᵀ = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 -1 0 1]   G = [1 0; ½ ½; ½ -½; 0 1]   Aᵀ = [1 1 1 0; 0 1 -1 0; 0 1 1 1]
 * </pre>
 * This Bᵀ is the forward F(2x2, 3x3)'s but for the sign of its last row, so the input patches are
 * transformed by the forward's own code ({@link ConvWinograd#transformInputs}) and the sign goes
 * into the gradient's transform instead: {@code G' = diag(1, 1, 1, -1) G}, whose 2-d transform
 * differs from G's by the same {@code ±1} per position as the two V's. All of G's factors are
 * exact in float.
 *
 * <p>Work. Images are taken a chunk at a time (as many as keep both transformed operands within
 * {@link #CHUNK_BYTES}); one work item per input channel (its patches, every image of the chunk)
 * and per output channel (its gradient tiles) fills V and W, then one item per position runs its
 * GEMM (the chunks after the first add into M). Against the column path (im2col, then one GEMM of
 * {@code 9C x N·H·W} columns): 4 x 64 → 64 channels, 28x28, padding 1, the Conv-BN-ReLU training
 * step's shape, 0.9 ms instead of 1.8 on this project's 2-core host (docs/benchmarks.md, session 26).
 */
final class ConvWinogradWeight {
    private ConvWinogradWeight() {}

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    /** Bytes of transformed input patches and gradient tiles (V and W) one chunk of images may hold: half of a typical L3. */
    static final long CHUNK_BYTES = 16L << 20;

    /**
     * The warm-up slice (as {@link ConvWinograd}'s): 16 channels, a 15x15 output (partial tiles at
     * the odd edges), its own output as the gradient.
     */
    private static final Conv2d.Slice SLICE = Conv2d.Slice.of(16, 15);
    private static final Tensor SLICE_GRAD = Tensor.allocate(TensorMeta.contiguous(DType.FLOAT32, 16, 16, 3, 3));

    /** This kernel's tier: while it is cold, {@link Conv2dBackward} computes weight gradients on the column path. */
    static final ColdStart.Tier TIER = ColdStart.tier("ConvWinogradWeight", SLICE.flops(),
            () -> gradWeight(SLICE.out(), SLICE.input(), SLICE.geometry(), SLICE_GRAD));

    /**
     * Whether {@link Conv2dBackward} computes this weight gradient here: a shape the forward's
     * Winograd kernel supports, at least 16 channels per group in and out, one image's transformed
     * operands within {@link #CHUNK_BYTES}, and where it measured faster than the column path.
     * Column path ÷ Winograd time on the project's 2-core AVX-512 host (session 26, best of 5
     * after warm-up, N x C→O channels, output HxW; the host's noise is up to ±30% per figure):
     * 4x64→64 28x28 1.88, 1x64→64 56x56 1.60, 8x64→64 56x56 2.49, 8x32→32 56x56 2.52,
     * 8x16→16 56x56 2.17, 4x16→16 28x28 1.57, 4x32→32 28x28 1.76, 4x128→128 28x28 1.87,
     * 8x128→128 28x28 1.24, 8x256→256 28x28 1.20, 16x64→64 14x14 1.25, 16x128→128 14x14 2.46,
     * 1x32→32 112x112 2.09; but 8x64→64 14x14 0.88–2.71, 2x128→128 28x28 0.88–1.56,
     * 2x64→64 28x28 1.34, 4x256→256 14x14 0.75–0.84, 8x512→512 7x7 0.47, 32x64→64 7x7 0.76.
     * Hence at least 784 tiles in the batch (its GEMMs' reduction: shorter ones spend their time
     * summing each 4x4 register tile's lanes) and rows of at least 7 tiles (an output 14 wide:
     * narrower rows leave most of a vector of tiles empty in the transforms).
     */
    static boolean applies(DType dtype, Conv2dGeometry g) {
        if (!ConvWinograd.supports(dtype, g) || g.groupChannels() < 16 || g.groupOutChannels() < 16 || g.outW() < 14) return false;
        long tiles = (long) ((g.outH() + 1) / 2) * ((g.outW() + 1) / 2);
        return g.batch() * tiles >= 784 && 16L * (g.groupChannels() + g.groupOutChannels()) * tiles * Float.BYTES <= CHUNK_BYTES;
    }

    /**
     * Writes every element of {@code gradWeight} ({@code [O, C/groups, 3, 3]}, contiguous; it may be
     * uninitialized):
     * the weight gradient for {@code gradOutput} ({@code [N, O, outH, outW]}, contiguous) and
     * {@code input} ({@code [N, C, H, W]}, any strides).
     */
    static void gradWeight(Tensor gradOutput, Tensor input, Conv2dGeometry g, Tensor gradWeight) {
        if (!ConvWinograd.supports(gradWeight.dtype(), g)) throw new IllegalArgumentException("ConvWinogradWeight: unsupported convolution " + g);
        int tilesH = (g.outH() + 1) / 2, tilesW = (g.outW() + 1) / 2, perImage = tilesH * tilesW;
        int cg = g.groupChannels(), og = g.groupOutChannels();
        int lw = (tilesW + 2 + L - 1) / L * L, row = 2 * lw, patchRows = 2 * tilesH + 2;
        int chunk = (int) Math.max(1, Math.min(g.batch(), CHUNK_BYTES / (16L * (cg + og) * perImage * Float.BYTES)));
        // a row of V or W: the chunk's tiles, image after image, and a vector of slack for the last run's spill
        int tp = chunk * perImage + L;
        // the 16 positions a cache line more than a multiple of 4 KB apart (as the forward's V)
        int vXi = cg * tp + L, wXi = og * tp + L;
        float[] gy = gradOutput.storage().floats();
        float[] v = (float[]) ConvWorkspace.array(ConvWorkspace.Slot.COLUMNS, gy, 16 * vXi);
        float[] w = (float[]) ConvWorkspace.array(ConvWorkspace.Slot.PRODUCT, gy, 16 * wXi);
        // the positions' sums, in this thread's workspace: a fresh 256 KB array each call (64 -> 64
        // channels) was zeroed, and its pages faulted in, for GEMMs that overwrite it (beta 0 on the
        // first chunk; GemmDot does not read C then)
        float[] m = (float[]) ConvWorkspace.array(ConvWorkspace.Slot.TRANSFORMED_OUTPUTS, gy, 16 * og * cg);
        for (int group = 0; group < g.groups(); group++) {
            for (int n0 = 0; n0 < g.batch(); n0 += chunk) {
                int first = n0, images = Math.min(chunk, g.batch() - n0), k = images * perImage, grp = group;
                Parallel.forRange(cg + og, (long) images * perImage * 64, (lo, hi) -> {
                    float[] patch = new float[patchRows * row + 2 * L], line = new float[row + 2 * L];
                    for (int item = lo; item < hi; item++) {
                        for (int n = 0; n < images; n++) {
                            if (item < cg) {
                                ConvWinograd.padChannel(input, g, first + n, grp * cg + item, 0, patchRows, patch, 0, line, lw);
                                for (int th = 0; th < tilesH; th++) {
                                    ConvWinograd.transformInputs(patch, 2 * th * row, row, lw, tilesW, v, item * tp + n * perImage + th * tilesW, vXi);
                                }
                            } else {
                                int o = item - cg;
                                splitGradient(gradOutput, g, first + n, grp * og + o, 2 * tilesH, patch, row, lw);
                                for (int th = 0; th < tilesH; th++) {
                                    transformGradients(patch, 2 * th * row, row, lw, tilesW, w, o * tp + n * perImage + th * tilesW, wXi);
                                }
                            }
                        }
                    }
                });
                float beta = n0 == 0 ? 0f : 1f;
                Parallel.forRange(16, 2L * og * cg * k, (lo, hi) -> {
                    for (int xi = lo; xi < hi; xi++) GemmDot.multiplyHere(og, cg, k, 1f, w, xi * wXi, tp, v, xi * vXi, tp, beta, m, xi * og * cg, cg);
                });
            }
            transformOutputs(m, og, cg, gradWeight.storage().floats(), gradWeight.storageOffset() + group * og * cg * 9);
        }
    }

    /**
     * Rows {@code [0, rows)} of output channel {@code channel}'s gradient plane in image {@code n},
     * each split into its even columns at {@code patch[r*row]} and its odd ones at
     * {@code patch[r*row + lw]} (zeros past the plane's last row and column): a tile's 2x2 block is
     * then lane t of four contiguous vectors.
     */
    private static void splitGradient(Tensor gradOutput, Conv2dGeometry g, int n, int channel, int rows, float[] patch, int row, int lw) {
        float[] gy = gradOutput.storage().floats();
        int outW = g.outW(), pairs = (outW + 1) / 2;
        int plane = gradOutput.storageOffset() + (n * g.outChannels() + channel) * g.outPixels();
        for (int r = 0; r < rows; r++) {
            if (r < g.outH()) ConvWinograd.split(gy, plane + r * outW, 0, outW, pairs, patch, r * row, lw);
            else Arrays.fill(patch, r * row, (r + 1) * row, 0f);
        }
    }

    /**
     * {@code W = G' g G'ᵀ} for {@code len} consecutive tiles of one output channel's gradient, whose
     * 2x2 blocks start at {@code base} of the split rows (even columns at {@code base}, odd at
     * {@code base + lw}, the second row {@code row} further), into {@code w[off + xi*xiStride + t]}.
     * Writes up to a vector past the last tile (the row's slack, or tiles written again later).
     */
    private static void transformGradients(float[] p, int base, int row, int lw, int len, float[] w, int off, int xiStride) {
        for (int j = 0; j < len; j += L) {
            int p0 = base + j, p1 = p0 + row;
            // g G'ᵀ along each row: g0, (g0+g1)/2, (g0-g1)/2, -g1
            FloatVector g0 = FloatVector.fromArray(S, p, p0), g1 = FloatVector.fromArray(S, p, p0 + lw);
            FloatVector h0 = FloatVector.fromArray(S, p, p1), h1 = FloatVector.fromArray(S, p, p1 + lw);
            FloatVector a0 = g0, a1 = g0.add(g1).mul(0.5f), a2 = g0.sub(g1).mul(0.5f), a3 = g1.neg();
            FloatVector b0 = h0, b1 = h0.add(h1).mul(0.5f), b2 = h0.sub(h1).mul(0.5f), b3 = h1.neg();
            // G' (g G'ᵀ) down each column: a, (a+b)/2, (a-b)/2, -b
            int q = off + j;
            a0.intoArray(w, q);
            a1.intoArray(w, q + xiStride);
            a2.intoArray(w, q + 2 * xiStride);
            a3.intoArray(w, q + 3 * xiStride);
            a0.add(b0).mul(0.5f).intoArray(w, q + 4 * xiStride);
            a1.add(b1).mul(0.5f).intoArray(w, q + 5 * xiStride);
            a2.add(b2).mul(0.5f).intoArray(w, q + 6 * xiStride);
            a3.add(b3).mul(0.5f).intoArray(w, q + 7 * xiStride);
            a0.sub(b0).mul(0.5f).intoArray(w, q + 8 * xiStride);
            a1.sub(b1).mul(0.5f).intoArray(w, q + 9 * xiStride);
            a2.sub(b2).mul(0.5f).intoArray(w, q + 10 * xiStride);
            a3.sub(b3).mul(0.5f).intoArray(w, q + 11 * xiStride);
            b0.neg().intoArray(w, q + 12 * xiStride);
            b1.neg().intoArray(w, q + 13 * xiStride);
            b2.neg().intoArray(w, q + 14 * xiStride);
            b3.neg().intoArray(w, q + 15 * xiStride);
        }
    }

    /**
     * {@code dW[o][c] = Aᵀ M[o][c] A} for every (output channel, channel) of a group, M's positions
     * at {@code m[xi*og*cg + o*cg + c]}, into {@code out[at + (o*cg + c)*9 …]}; summed in double.
     */
    private static void transformOutputs(float[] m, int og, int cg, float[] out, int at) {
        int plane = og * cg;
        // output channels across the cores: on the calling thread alone this was about 1.3% of a
        // Conv-BN-ReLU training step's samples, with the other core idle (session 38)
        Parallel.forRange(og, (long) cg * 64, (lo, hi) -> {
            double[] t = new double[16];
            for (int o = lo; o < hi; o++) transformOutputs(m, plane, o, cg, out, at, t);
        });
    }

    /** {@link #transformOutputs} for output channel {@code o}, with {@code t} as scratch. */
    private static void transformOutputs(float[] m, int plane, int o, int cg, float[] out, int at, double[] t) {
        for (int c = 0; c < cg; c++) {
            int e = o * cg + c;
            for (int xi = 0; xi < 16; xi++) t[xi] = m[xi * plane + e];
            int dst = at + e * 9;
            for (int j = 0; j < 4; j++) {
                // Aᵀ down column j: rows 0+1+2, 1-2, 1+2+3 (kept in t[j], t[4+j], t[8+j])
                double r0 = t[j] + t[4 + j] + t[8 + j], r1 = t[4 + j] - t[8 + j], r2 = t[4 + j] + t[8 + j] + t[12 + j];
                t[j] = r0;
                t[4 + j] = r1;
                t[8 + j] = r2;
            }
            for (int i = 0; i < 3; i++) {
                double c0 = t[4 * i], c1 = t[4 * i + 1], c2 = t[4 * i + 2], c3 = t[4 * i + 3];
                out[dst + 3 * i] = (float) (c0 + c1 + c2);
                out[dst + 3 * i + 1] = (float) (c1 - c2);
                out[dst + 3 * i + 2] = (float) (c1 + c2 + c3);
            }
        }
    }
}
