package dev.ember.ops.eager;

import dev.ember.kernels.ColdStart;
import dev.ember.kernels.Conv2dGeometry;
import dev.ember.kernels.ConvWorkspace;
import dev.ember.kernels.Parallel;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.util.Arrays;

/**
 * Winograd F(4x4, 3x3) float32 convolution: the same convolutions as {@link ConvWinograd}
 * (3x3 kernel, stride 1, dilation 1, any padding, groups, batch, input strides, bias or none) with
 * 4x4 output tiles computed from the 6x6 input patch under each, on the interpolation points
 * 0, ±3/2, ±2/3 and ∞: {@code Y = Aᵀ [Σ_c U ⊙ V] A}, {@code U = G g Gᵀ} (in double,
 * once per call), {@code V = Bᵀ d B}. 36 multiply-adds per tile, channel and output channel make 16
 * outputs, 2.25 per output against F(2x2, 3x3)'s 4 and the direct kernel's 9; the transforms
 * move fewer floats per output too (36 per 16 outputs against 16 per 4), though each takes more
 * arithmetic. Where the time of F(2x2, 3x3) went (perf, 8x64→64 56x56 on the AMD Zen 5 host, session
 * 35): the channel GEMMs 39%, the output transform 19%, splitting the input rows 11%, the input
 * transform 9%; so F(4x4) cuts the largest part nearly in half.
 *
 * <p>Layout and blocking are {@link ConvWinograd}'s, in its one block loop ({@link ConvWinograd#run}
 * with {@link ConvWinograd.Tiling#F4}): blocks of {@code 3 * lanes} tiles numbered row by row, work
 * items of whole blocks of one image and group, the GEMMs' register tile
 * ({@link ConvWinograd#accumulate}) over the 36 positions' rows of {@code V} and {@code M}. Padded
 * input rows are split into four phases (columns {@code 4t}, {@code 4t+1}, {@code 4t+2},
 * {@code 4t+3}), so the six input columns {@code 4t .. 4t+5} of {@code lanes} consecutive tiles are
 * six contiguous vector loads; output rows are put back together from the four phases by two
 * rounds of two-vector interleaves.
 *
 * <p>Accuracy, and the choice of points. A Winograd algorithm is exact in real arithmetic for any
 * distinct points; in float32 its error grows with the transforms' coefficients. Lavin and Gray's
 * points 0, ±1, ±2 (coefficients up to 8 in {@code A}, 5 in {@code B}) gave a largest error of
 * 4.8e-5 against float64 (2 x 64→64 56x56, randn inputs, weights randn / sqrt(9C): outputs of rms
 * about 1), 26 times F(2x2)'s 1.85e-6 and ten times the direct kernel's 4.8e-6, so until session 42
 * this kernel was a switch. A simulation of every set of 0 and four more points from ±1/4, ±1/3,
 * ±1/2, ±2/3, ±1, ±3/2, ±2, ±3, ±4 (float32 transforms, GEMM and rounding as here:
 * {@code ember-bench/peer/winograd_points.py}, docs/tuning.md) put 0, ±3/2, ±2/3 first: largest
 * error 7e-6 and rms 7.6e-7 where Lavin's had 3.2e-5 and 1.6e-6 and the direct sum 4.5e-6 and
 * 4.2e-7, in the same ratios on ReLU outputs. Here (ConvWinograd4Test, with a bias) it measured
 * 7.9e-6 where the direct kernel has 7.7e-6: within float32's default tolerance of
 * libtorch's float64 result, and of the direct kernel's order. {@code Bᵀ}'s and {@code A}'s
 * coefficients are no longer powers of two (97/36, 4/9, 9/4, 3/2, 2/3, 27/8, 8/27), which costs a
 * few multiplies per transform and is rounded to float once. So it is the default where it
 * applies ({@link #applies}), off with {@code EMBER_CONV_WINOGRAD4=0}.
 */
final class ConvWinograd4 {
    private ConvWinograd4() {}

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    private static final int OB = ConvWinograd.OB;
    /** Transformed positions per tile: 6x6. */
    private static final int XI = 36;

    // The transforms' coefficients (the interpolation points ±3/2 and ±2/3: see the class comment), each rounded to float once.
    private static final FloatVector MINUS_97_36 = constant(-97.0 / 36), MINUS_4_9 = constant(-4.0 / 9), MINUS_9_4 = constant(-9.0 / 4);
    private static final FloatVector PLUS_3_2 = constant(3.0 / 2), MINUS_3_2 = constant(-3.0 / 2), PLUS_2_3 = constant(2.0 / 3), MINUS_2_3 = constant(-2.0 / 3);
    private static final FloatVector PLUS_9_4 = constant(9.0 / 4), PLUS_4_9 = constant(4.0 / 9), PLUS_27_8 = constant(27.0 / 8), PLUS_8_27 = constant(8.0 / 27);

    private static FloatVector constant(double value) { return FloatVector.broadcast(S, (float) value); }

    /** The warm-up slice: 16 channels, a 30x30 output (64 tiles, partial tiles at both edges). */
    private static final Conv2d.Slice SLICE = Conv2d.Slice.of(16, 30);

    /** This kernel's tier ({@link ColdStart}). */
    static final ColdStart.Tier TIER = ColdStart.tier("ConvWinograd4", SLICE.flops(),
            () -> forward(SLICE.input(), SLICE.weight(), null, SLICE.out(), SLICE.geometry()));

    /** Whether this kernel can compute the convolution: {@link ConvWinograd}'s shape conditions. */
    static boolean supports(DType dtype, Conv2dGeometry g) { return ConvWinograd.supports(dtype, g); }

    /**
     * Whether conv2d may use this kernel: on unless switched off ({@code -Dember.conv.winograd4=false}
     * or {@code EMBER_CONV_WINOGRAD4=0}), which gives F(2x2, 3x3)'s results on every shape.
     */
    static volatile boolean enabled = switchedOn(System.getProperty("ember.conv.winograd4", System.getenv("EMBER_CONV_WINOGRAD4")));

    /**
     * The switch's value: unset, empty, {@code 1}/{@code true} on, {@code 0}/{@code false} off;
     * anything else is reported on stderr, naming the values, and leaves it on (a switch changes
     * speed and rounding, never stops a program: as {@code EMBER_BLAS} does).
     */
    static boolean switchedOn(String value) {
        if (value == null) return true;
        return switch (value.strip().toLowerCase(java.util.Locale.ROOT)) {
            case "", "1", "true" -> true;
            case "0", "false" -> false;
            default -> {
                System.err.println("ember: EMBER_CONV_WINOGRAD4 (or -Dember.conv.winograd4) = '" + value
                        + "': expected 1, true, 0 or false; Winograd F(4x4) stays on");
                yield true;
            }
        };
    }

    /**
     * Whether {@link Conv2d} runs this kernel rather than F(2x2, 3x3): not switched off ({@link #enabled}),
     * supported, at least 64 channels per group in and out (at most 256 each, where {@code U} stays
     * within L2), and at least 196 tiles per image (a 56x56 output): fewer tiles leave partial blocks.
     */
    static boolean applies(DType dtype, Conv2dGeometry g) {
        if (!enabled || !supports(dtype, g)) return false;
        long tiles = (long) ((g.outH() + 3) / 4) * ((g.outW() + 3) / 4);
        int cg = g.groupChannels(), og = g.groupOutChannels();
        return cg >= 64 && og >= 64 && (long) cg * og <= 256 * 256 && tiles >= 196;
    }

    /** Writes every element of {@code out} ({@code [N, O, outH, outW]}, contiguous): the convolution plus {@code bias} (or none). */
    static void forward(Tensor input, Tensor weight, Tensor bias, Tensor out, Conv2dGeometry g) {
        if (!supports(out.dtype(), g)) throw new IllegalArgumentException("ConvWinograd4: unsupported convolution " + g);
        ConvWinograd.run(ConvWinograd.Tiling.F4, input, weight, bias, out, g);
    }

    /**
     * Padded rows {@code [firstRow, firstRow+rows)} of one channel (counted over all groups) of image
     * {@code n} into {@code patch[to…]}, each row as its four column phases of {@code lw} floats;
     * zeros where rows or columns fall in the padding or past the input. {@code line} holds a
     * padded row ({@code 4lw + 4L} floats).
     */
    static void padChannel(Tensor input, Conv2dGeometry g, int n, int channel, int firstRow, int rows, float[] patch, int to, float[] line, int lw) {
        int[] st = input.strides();
        float[] x = input.storage().floats();
        int ph = g.padH(), pw = g.padW(), h = g.height(), w = g.width(), row = 4 * lw;
        // padded column k holds input column k - pw
        int lo = Math.min(row, Math.max(0, pw)), hi = Math.max(lo, Math.min(row, w + pw));
        int channelBase = input.storageOffset() + n * st[0] + channel * st[1];
        for (int r = 0; r < rows; r++, to += row) {
            int y = firstRow + r - ph;
            if (y < 0 || y >= h || lo >= hi) {
                Arrays.fill(patch, to, to + row, 0f);
                continue;
            }
            int src = channelBase + y * st[2] + (lo - pw) * st[3];
            Arrays.fill(line, 0, lo, 0f);
            if (st[3] == 1) System.arraycopy(x, src, line, lo, hi - lo);
            else for (int k = lo; k < hi; k++, src += st[3]) line[k] = x[src];
            Arrays.fill(line, hi, row, 0f);
            splitPhases(line, patch, to, lw);
        }
    }

    /** Splits the padded row {@code line[0, 4lw)} into its four column phases at {@code patch[to + p*lw]}. */
    private static void splitPhases(float[] line, float[] patch, int to, int lw) {
        FloatVector even = ConvWinograd.EVEN, odd = ConvWinograd.ODD;
        for (int j = 0; j < lw; j += L) {
            int k = 4 * j;
            FloatVector a = FloatVector.fromArray(S, line, k), b = FloatVector.fromArray(S, line, k + L);
            FloatVector c = FloatVector.fromArray(S, line, k + 2 * L), d = FloatVector.fromArray(S, line, k + 3 * L);
            // columns 0,2,4,… and 1,3,5,… of each half, then every other one of those
            FloatVector e1 = even.selectFrom(a, b), o1 = odd.selectFrom(a, b), e2 = even.selectFrom(c, d), o2 = odd.selectFrom(c, d);
            even.selectFrom(e1, e2).intoArray(patch, to + j);
            even.selectFrom(o1, o2).intoArray(patch, to + lw + j);
            odd.selectFrom(e1, e2).intoArray(patch, to + 2 * lw + j);
            odd.selectFrom(o1, o2).intoArray(patch, to + 3 * lw + j);
        }
    }

    /**
     * {@code V = Bᵀ d B} for {@code len} consecutive tiles of one channel whose 6x6 patches start at
     * {@code base} of the phase-split rows ({@code row} apart, phases {@code lw} apart), into
     * {@code v[off + xi*xiStride + t]}, {@code xi = 6i + j}. Writes up to a vector past the last tile
     * (the buffer's slack). {@code tmp} holds the 36 vectors of {@code d B} between the two passes.
     */
    static void transformInputs(float[] x, int base, int row, int lw, int len, float[] v, int off, int xiStride, float[] tmp) {
        for (int j = 0; j < len; j += L) {
            // d B along each of the six rows: columns 4t .. 4t+5 are phases 0-3 at t, phases 0-1 at t+1
            for (int i = 0, p = base + j; i < 6; i++, p += row) {
                FloatVector d0 = FloatVector.fromArray(S, x, p), d1 = FloatVector.fromArray(S, x, p + lw);
                FloatVector d2 = FloatVector.fromArray(S, x, p + 2 * lw), d3 = FloatVector.fromArray(S, x, p + 3 * lw);
                FloatVector d4 = FloatVector.fromArray(S, x, p + 1), d5 = FloatVector.fromArray(S, x, p + lw + 1);
                rowTimesB(d0, d1, d2, d3, d4, d5, tmp, 6 * i * L, L);
            }
            // Bᵀ (d B) down each of the six columns
            int q = off + j;
            for (int c = 0; c < 6; c++) {
                int at = c * L;
                FloatVector d0 = FloatVector.fromArray(S, tmp, at), d1 = FloatVector.fromArray(S, tmp, at + 6 * L);
                FloatVector d2 = FloatVector.fromArray(S, tmp, at + 12 * L), d3 = FloatVector.fromArray(S, tmp, at + 18 * L);
                FloatVector d4 = FloatVector.fromArray(S, tmp, at + 24 * L), d5 = FloatVector.fromArray(S, tmp, at + 30 * L);
                rowTimesB(d0, d1, d2, d3, d4, d5, v, q + c * xiStride, 6 * xiStride);
            }
        }
    }

    /**
     * The six values {@code z = d B} ({@code Bᵀ}'s rows: 1,0,-97/36,0,1,0 / 0,-2/3,-4/9,3/2,1,0 /
     * 0,2/3,-4/9,-3/2,1,0 / 0,-3/2,-9/4,2/3,1,0 / 0,3/2,-9/4,-2/3,1,0 / 0,1,0,-97/36,0,1) into
     * {@code out[at + r*step]}.
     */
    private static void rowTimesB(FloatVector d0, FloatVector d1, FloatVector d2, FloatVector d3, FloatVector d4, FloatVector d5,
                                  float[] out, int at, int step) {
        FloatVector s = d2.fma(MINUS_4_9, d4), t = d3.fma(PLUS_3_2, d1.mul(MINUS_2_3));
        FloatVector p = d2.fma(MINUS_9_4, d4), q = d3.fma(PLUS_2_3, d1.mul(MINUS_3_2));
        d2.fma(MINUS_97_36, d0.add(d4)).intoArray(out, at);
        s.add(t).intoArray(out, at + step);
        s.sub(t).intoArray(out, at + 2 * step);
        p.add(q).intoArray(out, at + 3 * step);
        p.sub(q).intoArray(out, at + 4 * step);
        d3.fma(MINUS_97_36, d1.add(d5)).intoArray(out, at + 5 * step);
    }

    /**
     * {@code Y = Aᵀ M A + bias} for {@code len} consecutive tiles of one output channel, M's 36
     * positions at {@code m[off + xi*stride + t]}, written to the output plane at {@code dst} from row
     * {@code oh}, column {@code ow} on; rows and columns past the plane are not written.
     */
    static void transformOutputs(float[] m, int off, int stride, int len, float bias, float[] out, int dst, int outH, int outW,
                                         int oh, int ow, float[] tmp) {
        FloatVector b = FloatVector.broadcast(S, bias);
        int outRows = Math.min(4, outH - oh);
        for (int j = 0; j < len; j += L) {
            int q = off + j;
            // Aᵀ M down each of the six columns: four rows of six vectors into tmp[(r*6 + c) * L]
            for (int c = 0; c < 6; c++) {
                FloatVector m0 = FloatVector.fromArray(S, m, q + c * stride), m1 = FloatVector.fromArray(S, m, q + (6 + c) * stride);
                FloatVector m2 = FloatVector.fromArray(S, m, q + (12 + c) * stride), m3 = FloatVector.fromArray(S, m, q + (18 + c) * stride);
                FloatVector m4 = FloatVector.fromArray(S, m, q + (24 + c) * stride), m5 = FloatVector.fromArray(S, m, q + (30 + c) * stride);
                columnTimesA(m0, m1, m2, m3, m4, m5, tmp, c * L, 6 * L);
            }
            int col = ow + 4 * j, cols = Math.min(4 * Math.min(L, len - j), outW - col);
            for (int r = 0; r < outRows; r++) {
                int at = r * 6 * L;
                FloatVector t0 = FloatVector.fromArray(S, tmp, at), t1 = FloatVector.fromArray(S, tmp, at + L);
                FloatVector t2 = FloatVector.fromArray(S, tmp, at + 2 * L), t3 = FloatVector.fromArray(S, tmp, at + 3 * L);
                FloatVector t4 = FloatVector.fromArray(S, tmp, at + 4 * L), t5 = FloatVector.fromArray(S, tmp, at + 5 * L);
                // (Aᵀ M) A along the row: y0..y3 per tile, then interleaved into the row's 4L columns
                FloatVector a = t1.add(t2), d = t1.sub(t2), c3 = t3.add(t4), e = t3.sub(t4);
                FloatVector y0 = t0.add(a).add(c3).add(b), y1 = d.fma(PLUS_3_2, e.mul(PLUS_2_3)).add(b);
                FloatVector y2 = a.fma(PLUS_9_4, c3.mul(PLUS_4_9)).add(b), y3 = d.fma(PLUS_27_8, e.fma(PLUS_8_27, t5)).add(b);
                FloatVector p = ConvWinograd.ZIP_LO.selectFrom(y0, y2), pq = ConvWinograd.ZIP_HI.selectFrom(y0, y2);
                FloatVector rr = ConvWinograd.ZIP_LO.selectFrom(y1, y3), rs = ConvWinograd.ZIP_HI.selectFrom(y1, y3);
                FloatVector w0 = ConvWinograd.ZIP_LO.selectFrom(p, rr), w1 = ConvWinograd.ZIP_HI.selectFrom(p, rr);
                FloatVector w2 = ConvWinograd.ZIP_LO.selectFrom(pq, rs), w3 = ConvWinograd.ZIP_HI.selectFrom(pq, rs);
                int to = dst + (oh + r) * outW + col;
                if (cols >= 4 * L) {
                    w0.intoArray(out, to);
                    w1.intoArray(out, to + L);
                    w2.intoArray(out, to + 2 * L);
                    w3.intoArray(out, to + 3 * L);
                } else if (to + 4 * L <= out.length) {
                    // a partial run (a 56-wide row: three and a half vectors): masked stores right here,
                    // not through a method taking the vector, which C2 may leave out of line and then
                    // box every vector it is passed (ConvWinograd#transformOutputs, session 39)
                    w0.intoArray(out, to, ConvWinograd.IOTA.compare(VectorOperators.LT, (float) cols));
                    w1.intoArray(out, to + L, ConvWinograd.IOTA.compare(VectorOperators.LT, (float) (cols - L)));
                    w2.intoArray(out, to + 2 * L, ConvWinograd.IOTA.compare(VectorOperators.LT, (float) (cols - 2 * L)));
                    w3.intoArray(out, to + 3 * L, ConvWinograd.IOTA.compare(VectorOperators.LT, (float) (cols - 3 * L)));
                } else {
                    // at the array's end (where masked stores check lanes one by one): through tmp's
                    // free rows past the four of Aᵀ M, then a copy
                    w0.intoArray(tmp, 24 * L);
                    w1.intoArray(tmp, 25 * L);
                    w2.intoArray(tmp, 26 * L);
                    w3.intoArray(tmp, 27 * L);
                    System.arraycopy(tmp, 24 * L, out, to, cols);
                }
            }
        }
    }

    /**
     * {@code Aᵀ m} of a column of six ({@code Aᵀ}'s rows: 1,1,1,1,1,0 / 0,3/2,-3/2,2/3,-2/3,0 /
     * 0,9/4,9/4,4/9,4/9,0 / 0,27/8,-27/8,8/27,-8/27,1) into {@code out[at + r*step]}.
     */
    private static void columnTimesA(FloatVector m0, FloatVector m1, FloatVector m2, FloatVector m3, FloatVector m4, FloatVector m5,
                                     float[] out, int at, int step) {
        FloatVector a = m1.add(m2), d = m1.sub(m2), c = m3.add(m4), e = m3.sub(m4);
        m0.add(a).add(c).intoArray(out, at);
        d.fma(PLUS_3_2, e.mul(PLUS_2_3)).intoArray(out, at + step);
        a.fma(PLUS_9_4, c.mul(PLUS_4_9)).intoArray(out, at + 2 * step);
        d.fma(PLUS_27_8, e.fma(PLUS_8_27, m5)).intoArray(out, at + 3 * step);
    }

    /**
     * {@code U = G g Gᵀ} of every (output channel, channel) 3x3 weight, in double, laid out as
     * {@code [group][block of OB output channels][xi][channel][OB]}, in this thread's workspace
     * (lanes past the group's last output channel stale: their sums are never read).
     */
    static float[] transformWeights(Tensor weight, Conv2dGeometry g, int kBlocks) {
        int cg = g.groupChannels(), og = g.groupOutChannels();
        int[] s = weight.strides();
        float[] w = weight.storage().floats();
        float[] u = (float[]) ConvWorkspace.array(ConvWorkspace.Slot.TRANSFORMED_WEIGHTS, w, g.groups() * kBlocks * XI * cg * OB);
        // blocks of OB output channels across the cores, as F(2x2)'s: on the calling thread alone
        // it took 0.7-0.9 ms of a 6.4 ms 8x64→64 56x56 call while the other core waited (phase
        // probe, session 42), three times per Conv-BN-ReLU x3 inference call
        Parallel.forRange(g.groups() * kBlocks, (long) OB * cg * 144, (lo, hi) -> {
            double[] taps = new double[9 * OB], gg = new double[18 * OB], uu = new double[XI * OB];
            for (int block = lo; block < hi; block++) {
                int group = block / kBlocks, first = block % kBlocks * OB, lanes = Math.min(OB, og - first);
                for (int c = 0; c < cg; c++) {
                    // the block's output channels side by side, tap by tap (lanes past the group's
                    // last output channel keep stale values: their sums are never read)
                    for (int lane = 0; lane < lanes; lane++) {
                        int src = weight.storageOffset() + (group * og + first + lane) * s[0] + c * s[1];
                        for (int tap = 0; tap < 9; tap++) taps[tap * OB + lane] = w[src + tap / 3 * s[2] + tap % 3 * s[3]];
                    }
                    transformWeights(taps, gg, uu, u, (block * XI * cg + c) * OB, cg * OB);
                }
            }
        });
        return u;
    }

    /**
     * {@code U = G g Gᵀ} of {@value ConvWinograd#OB} 3x3 weights at once (one per lane: {@code taps[tap * OB + lane]},
     * taps row by row), in double, rounded to float into {@code u[to + xi*stride + lane]}; {@code gg}
     * and {@code uu} hold {@code G g} and {@code U} in double between the passes. One output
     * channel at a time in scalar code took 190 ns per weight (session 42's phase probe).
     */
    private static void transformWeights(double[] taps, double[] gg, double[] uu, float[] u, int to, int stride) {
        for (int j = 0; j < 3; j++) timesG(taps, j * OB, 3 * OB, gg, j * OB, 3 * OB);
        for (int i = 0; i < 6; i++) timesG(gg, 3 * i * OB, OB, uu, 6 * i * OB, OB);
        for (int xi = 0; xi < XI; xi++) {
            ((FloatVector) DoubleVector.fromArray(LANES, uu, xi * OB).convertShape(VectorOperators.D2F, ROUNDED, 0)).intoArray(u, to + xi * stride);
        }
    }

    /** {@value ConvWinograd#OB} weights' lanes in double, and their float rounding. */
    private static final VectorSpecies<Double> LANES = DoubleVector.SPECIES_512;
    private static final VectorSpecies<Float> ROUNDED = FloatVector.SPECIES_256;

    /**
     * {@code G (g0, g1, g2)ᵀ} of {@value ConvWinograd#OB} lanes, {@code g_r} at {@code in[src + r*srcStep]}, into
     * {@code out[dst + r*dstStep]}: G's rows 1,0,0 / 8/65,12/65,18/65 / 8/65,-12/65,18/65 /
     * -81/130,-27/65,-18/65 / -81/130,27/65,-18/65 / 0,0,1.
     */
    private static void timesG(double[] in, int src, int srcStep, double[] out, int dst, int dstStep) {
        DoubleVector g0 = DoubleVector.fromArray(LANES, in, src), g1 = DoubleVector.fromArray(LANES, in, src + srcStep);
        DoubleVector g2 = DoubleVector.fromArray(LANES, in, src + 2 * srcStep);
        DoubleVector even = g0.mul(8).add(g2.mul(18)), odd = g1.mul(12), evenFar = g0.mul(40.5).add(g2.mul(18)), oddFar = g1.mul(27);
        g0.intoArray(out, dst);
        even.add(odd).mul(ONE_65TH).intoArray(out, dst + dstStep);
        even.sub(odd).mul(ONE_65TH).intoArray(out, dst + 2 * dstStep);
        evenFar.add(oddFar).mul(-ONE_65TH).intoArray(out, dst + 3 * dstStep);
        evenFar.sub(oddFar).mul(-ONE_65TH).intoArray(out, dst + 4 * dstStep);
        g2.intoArray(out, dst + 5 * dstStep);
    }

    /** G's common denominator as a factor: a multiply, not a division, 36 times per weight (U is rounded to float after). */
    private static final double ONE_65TH = 1.0 / 65;
}
