package dev.ember.kernels;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import static dev.ember.kernels.Attention.KEY_BLOCK;
import static dev.ember.kernels.Attention.QUERY_BLOCK;
import static dev.ember.kernels.Attention.roundUp;

/**
 * {@link Attention}'s float32 kernel. Register tiles of 4 query rows × 2 vectors: a score tile
 * sums {@code q[r]·kᵀ} over E from the packed key block (2 loads feed 8 FMAs), a value tile
 * sums {@code p[r][j]·v[j]} over the block's keys (again 2 loads for 8 FMAs); 8 accumulators
 * fit the 16 registers of AVX2 and leave room for the loads. {@link AttentionDouble} is the same
 * kernel over double lanes.
 */
final class AttentionFloat {
    private AttentionFloat() {}

    private static final VectorSpecies<Float> SP = FloatVector.SPECIES_PREFERRED;
    private static final int VL = SP.length();
    /** Columns per register tile: two vectors. Packed widths are multiples of it. */
    private static final int STEP = 2 * VL;
    private static final int ROWS = 4;

    /** Per thread: the packed query rows, output accumulators, score tile and row statistics of one task. */
    private static final class Scratch {
        float[] queries = new float[0], acc = new float[0], scores = new float[ROWS * KEY_BLOCK];
        float[] max = new float[QUERY_BLOCK], sum = new float[QUERY_BLOCK], rescale = new float[ROWS];
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);
    /** Per calling thread, the packed keys and values, kept between calls up to this many elements (fresh pages are slow here). */
    private static final ThreadLocal<float[]> PACKED = ThreadLocal.withInitial(() -> new float[0]);
    private static final int PACKED_KEPT = 4 << 20;

    static void forward(Attention.Layout g, float[] q, float[] k, float[] v, Object mask, float[] out) {
        int n = g.batches(), l = g.queries(), s = g.keys(), e = g.headDim(), ev = g.valueDim();
        if (n == 0 || l == 0 || ev == 0) return;
        int kBlocks = (s + KEY_BLOCK - 1) / KEY_BLOCK;
        int evPad = roundUp(ev, STEP);
        int keysPer = kBlocks * e * KEY_BLOCK, valuesPer = s * evPad;
        long packedSize = (long) n * (keysPer + valuesPer);
        if (packedSize > Integer.MAX_VALUE - 8) throw new IllegalArgumentException("scaled_dot_product_attention: keys and values too large to pack (" + packedSize + " elements)");
        float[] packed = packedBuffer((int) packedSize);
        int valuesStart = n * keysPer;
        Parallel.forRange(n, (long) s * (e + ev), (lo, hi) -> {
            for (int b = lo; b < hi; b++) {
                packKeys(g, k, b, packed, b * keysPer);
                packValues(g, v, b, packed, valuesStart + b * valuesPer, evPad);
            }
        });
        int qBlocks = (l + QUERY_BLOCK - 1) / QUERY_BLOCK;
        Parallel.forRange(n * qBlocks, (long) QUERY_BLOCK * s * (e + ev), (lo, hi) -> {
            Scratch scratch = SCRATCH.get();
            for (int t = lo; t < hi; t++) {
                int b = t / qBlocks, i0 = t % qBlocks * QUERY_BLOCK;
                queryBlock(g, q, mask, out, packed, b * keysPer, valuesStart + b * valuesPer, evPad, b, i0, Math.min(QUERY_BLOCK, l - i0), scratch);
            }
        });
    }

    private static float[] packedBuffer(int size) {
        if (size > PACKED_KEPT) return new float[size];
        float[] kept = PACKED.get();
        if (kept.length < size) PACKED.set(kept = new float[size]);
        return kept;
    }

    /** Key block kb as its transpose {@code [E][w]}, w the block's keys rounded up to {@link #STEP} (zero columns past the keys). */
    private static void packKeys(Attention.Layout g, float[] k, int b, float[] packed, int base) {
        int s = g.keys(), e = g.headDim(), rs = g.keyRowStride(), cs = g.keyColStride();
        for (int j0 = 0; j0 < s; j0 += KEY_BLOCK) {
            int nk = Math.min(KEY_BLOCK, s - j0), w = roundUp(nk, STEP), block = base + j0 / KEY_BLOCK * e * KEY_BLOCK;
            for (int jj = 0; jj < w; jj++) {
                if (jj >= nk) {
                    for (int x = 0; x < e; x++) packed[block + x * w + jj] = 0f;
                    continue;
                }
                int row = g.keyOffsets()[b] + (j0 + jj) * rs;
                for (int x = 0; x < e; x++) packed[block + x * w + jj] = k[row + x * cs];
            }
        }
    }

    /** Values as rows of {@code evPad} (zeros past Ev). */
    private static void packValues(Attention.Layout g, float[] v, int b, float[] packed, int base, int evPad) {
        int s = g.keys(), ev = g.valueDim(), rs = g.valueRowStride(), cs = g.valueColStride();
        for (int j = 0; j < s; j++) {
            int row = g.valueOffsets()[b] + j * rs, to = base + j * evPad;
            for (int x = 0; x < ev; x++) packed[to + x] = v[row + x * cs];
            for (int x = ev; x < evPad; x++) packed[to + x] = 0f;
        }
    }

    private static void queryBlock(Attention.Layout g, float[] q, Object mask, float[] out, float[] packed, int keysBase, int valuesBase,
                                   int evPad, int b, int i0, int rows, Scratch sc) {
        int l = g.queries(), s = g.keys(), e = g.headDim(), ev = g.valueDim();
        int rowsPad = roundUp(rows, ROWS);
        if (sc.queries.length < rowsPad * e) sc.queries = new float[QUERY_BLOCK * e];
        if (sc.acc.length < rowsPad * evPad) sc.acc = new float[QUERY_BLOCK * evPad];
        float[] qp = sc.queries, acc = sc.acc, scores = sc.scores, max = sc.max, sum = sc.sum, rescale = sc.rescale;
        float scale = (float) g.scale();
        for (int r = 0; r < rowsPad; r++) {
            int row = g.queryOffsets()[b] + (i0 + r) * g.queryRowStride();
            for (int x = 0; x < e; x++) qp[r * e + x] = r < rows ? q[row + x * g.queryColStride()] * scale : 0f;
            max[r] = Float.NEGATIVE_INFINITY;
            sum[r] = 0f;
        }
        java.util.Arrays.fill(acc, 0, rowsPad * evPad, 0f);
        int lastRow = i0 + rows - 1;
        boolean masked = g.causal() || g.maskKind() != Attention.MaskKind.NONE;
        for (int j0 = 0; j0 < s; j0 += KEY_BLOCK) {
            if (g.causal() && j0 > lastRow) break;                       // every later key is above the diagonal
            int nk = Math.min(KEY_BLOCK, s - j0), w = roundUp(nk, STEP), block = keysBase + j0 / KEY_BLOCK * e * KEY_BLOCK;
            for (int r0 = 0; r0 < rowsPad; r0 += ROWS) {
                if (g.causal() && j0 > i0 + r0 + ROWS - 1) continue;     // the whole tile is above the diagonal: nothing to add
                scoreTile(qp, r0 * e, e, packed, block, w, scores);
                for (int r = 0; r < ROWS; r++) {
                    int i = i0 + r0 + r, so = r * KEY_BLOCK;
                    if (i > lastRow) {                                    // a padding row: weight nothing
                        java.util.Arrays.fill(scores, so, so + w, 0f);
                        rescale[r] = 1f;
                        continue;
                    }
                    if (masked) addMask(g, mask, b, i, j0, nk, scores, so);
                    for (int jj = nk; jj < w; jj++) scores[so + jj] = Float.NEGATIVE_INFINITY;
                    rescale[r] = softmaxStep(scores, so, w, max, sum, r0 + r);
                }
                valueTile(scores, packed, valuesBase + j0 * evPad, nk, evPad, acc, r0 * evPad, rescale);
            }
        }
        for (int r = 0; r < rows; r++) {
            float inv = sum[r] == 0f ? 0f : 1f / sum[r];            // no live key (all masked): zeros, as ATen's safe softmax
            int to = (b * l + i0 + r) * ev, from = r * evPad;
            for (int x = 0; x < ev; x++) out[to + x] = acc[from + x] * inv;
        }
    }

    private static void addMask(Attention.Layout g, Object mask, int b, int i, int j0, int nk, float[] scores, int so) {
        int maskRow = g.maskKind() == Attention.MaskKind.NONE ? 0 : g.maskOffsets()[b] + i * g.maskRowStride();
        for (int jj = 0; jj < nk; jj++) scores[so + jj] += (float) Attention.maskBias(g, mask, maskRow, i, j0 + jj);
    }

    /**
     * Folds one block's scores of row {@code r} into its running maximum and sum, leaving the
     * block's weights {@code e^(s − max)} in place; returns the factor that rescales what the row
     * has accumulated so far (0 before its first live key, 1 while nothing changes).
     */
    private static float softmaxStep(float[] scores, int so, int w, float[] max, float[] sum, int r) {
        FloatVector m = FloatVector.broadcast(SP, Float.NEGATIVE_INFINITY);
        for (int jj = 0; jj < w; jj += VL) m = m.max(FloatVector.fromArray(SP, scores, so + jj));
        float blockMax = m.reduceLanes(VectorOperators.MAX);
        float newMax = Math.max(max[r], blockMax);
        if (newMax == Float.NEGATIVE_INFINITY) {                          // nothing live yet: this block adds nothing
            java.util.Arrays.fill(scores, so, so + w, 0f);
            return 1f;
        }
        float rescale = (float) Math.exp(max[r] - newMax);
        FloatVector shift = FloatVector.broadcast(SP, newMax), total = FloatVector.zero(SP);
        for (int jj = 0; jj < w; jj += VL) {
            FloatVector p = VectorMath.exp(FloatVector.fromArray(SP, scores, so + jj).sub(shift));
            p.intoArray(scores, so + jj);
            total = total.add(p);
        }
        sum[r] = sum[r] * rescale + total.reduceLanes(VectorOperators.ADD);
        max[r] = newMax;
        return rescale;
    }

    /** Scores of 4 rows of packed queries against a packed key block of width w, into {@code scores} (row stride KEY_BLOCK). */
    private static void scoreTile(float[] qp, int qo, int e, float[] kt, int block, int w, float[] scores) {
        for (int c = 0; c < w; c += STEP) {
            FloatVector a00 = FloatVector.zero(SP), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00, a31 = a00;
            for (int x = 0, kp = block + c; x < e; x++, kp += w) {
                FloatVector k0 = FloatVector.fromArray(SP, kt, kp), k1 = FloatVector.fromArray(SP, kt, kp + VL);
                FloatVector q0 = FloatVector.broadcast(SP, qp[qo + x]);
                a00 = q0.fma(k0, a00);
                a01 = q0.fma(k1, a01);
                FloatVector q1 = FloatVector.broadcast(SP, qp[qo + e + x]);
                a10 = q1.fma(k0, a10);
                a11 = q1.fma(k1, a11);
                FloatVector q2 = FloatVector.broadcast(SP, qp[qo + 2 * e + x]);
                a20 = q2.fma(k0, a20);
                a21 = q2.fma(k1, a21);
                FloatVector q3 = FloatVector.broadcast(SP, qp[qo + 3 * e + x]);
                a30 = q3.fma(k0, a30);
                a31 = q3.fma(k1, a31);
            }
            a00.intoArray(scores, c);
            a01.intoArray(scores, c + VL);
            a10.intoArray(scores, KEY_BLOCK + c);
            a11.intoArray(scores, KEY_BLOCK + c + VL);
            a20.intoArray(scores, 2 * KEY_BLOCK + c);
            a21.intoArray(scores, 2 * KEY_BLOCK + c + VL);
            a30.intoArray(scores, 3 * KEY_BLOCK + c);
            a31.intoArray(scores, 3 * KEY_BLOCK + c + VL);
        }
    }

    /** {@code acc[r] = acc[r]·rescale[r] + Σ_j p[r][j]·v[j]} for 4 rows over the block's nk keys. */
    private static void valueTile(float[] p, float[] vp, int vBase, int nk, int evPad, float[] acc, int ao, float[] rescale) {
        FloatVector c0 = FloatVector.broadcast(SP, rescale[0]), c1 = FloatVector.broadcast(SP, rescale[1]);
        FloatVector c2 = FloatVector.broadcast(SP, rescale[2]), c3 = FloatVector.broadcast(SP, rescale[3]);
        for (int c = 0; c < evPad; c += STEP) {
            int o = ao + c;
            FloatVector a00 = FloatVector.fromArray(SP, acc, o).mul(c0), a01 = FloatVector.fromArray(SP, acc, o + VL).mul(c0);
            FloatVector a10 = FloatVector.fromArray(SP, acc, o + evPad).mul(c1), a11 = FloatVector.fromArray(SP, acc, o + evPad + VL).mul(c1);
            FloatVector a20 = FloatVector.fromArray(SP, acc, o + 2 * evPad).mul(c2), a21 = FloatVector.fromArray(SP, acc, o + 2 * evPad + VL).mul(c2);
            FloatVector a30 = FloatVector.fromArray(SP, acc, o + 3 * evPad).mul(c3), a31 = FloatVector.fromArray(SP, acc, o + 3 * evPad + VL).mul(c3);
            for (int jj = 0, vo = vBase + c; jj < nk; jj++, vo += evPad) {
                FloatVector v0 = FloatVector.fromArray(SP, vp, vo), v1 = FloatVector.fromArray(SP, vp, vo + VL);
                FloatVector p0 = FloatVector.broadcast(SP, p[jj]);
                a00 = p0.fma(v0, a00);
                a01 = p0.fma(v1, a01);
                FloatVector p1 = FloatVector.broadcast(SP, p[KEY_BLOCK + jj]);
                a10 = p1.fma(v0, a10);
                a11 = p1.fma(v1, a11);
                FloatVector p2 = FloatVector.broadcast(SP, p[2 * KEY_BLOCK + jj]);
                a20 = p2.fma(v0, a20);
                a21 = p2.fma(v1, a21);
                FloatVector p3 = FloatVector.broadcast(SP, p[3 * KEY_BLOCK + jj]);
                a30 = p3.fma(v0, a30);
                a31 = p3.fma(v1, a31);
            }
            a00.intoArray(acc, o);
            a01.intoArray(acc, o + VL);
            a10.intoArray(acc, o + evPad);
            a11.intoArray(acc, o + evPad + VL);
            a20.intoArray(acc, o + 2 * evPad);
            a21.intoArray(acc, o + 2 * evPad + VL);
            a30.intoArray(acc, o + 3 * evPad);
            a31.intoArray(acc, o + 3 * evPad + VL);
        }
    }
}
