package dev.ember.kernels;

import dev.ember.tuning.Machine;

/**
 * Fused scaled-dot-product attention, flash-attention style, on the CPU: for each block of query
 * rows the key/value sequence is swept once in blocks, with an online softmax (a running row
 * maximum and sum, the partial output rescaled when the maximum grows), so the {@code [L, S]}
 * score matrix never exists: memory stays {@code O(L·Ev + S·(E + Ev))} whatever the sequence
 * length. Semantics are ATen's math attention (scaled_dot_product_attention's decomposition): a
 * bool mask keeps the positions where it is true, a float mask is added to the scores, is_causal
 * keeps key j for query i when j ≤ i, and a row with no live score (all masked) gives zeros, as
 * ATen's {@code _safe_softmax} does. NaN and +inf scores give NaN rows, as softmax does.
 *
 * <p>Layout: {@code batches} attention problems (the output's flattened batch dims); each operand
 * is read through per-problem offsets and row/column strides, so broadcast batch dims (stride 0),
 * transposed heads ({@code [B, L, H, E]} viewed as {@code [B, H, L, E]}) and any other view cost no
 * copy. Keys are packed once per call as transposed column tiles ({@code [E][2 vectors]}, so a score row
 * is vectorized along keys) and values as column tiles of padded rows ({@code [S][2 vectors]}); the
 * output is contiguous {@code [batches, L, Ev]}.
 *
 * <p>Blocks: {@link #KEY_BLOCK} keys per step of the online softmax (at E = Ev = 64 a float32
 * block is 128 KB of transposed keys and 128 KB of values, which stay in a core's L2 while every
 * 8-row register tile of the task passes over them; the long block spreads the per-row work of
 * each step, the row maximum, sum and rescale of the output rows, over many keys) and
 * {@link #QUERY_BLOCK} query rows per task (its packed queries and output accumulators, 16 KB
 * each, stay in L1/L2); the cores split problems × query blocks. Causal tiles stop at their last
 * row's diagonal instead of at the block's end.
 */
public final class Attention {
    private Attention() {}

    /**
     * Keys per block of the online softmax, from the L2: the block's keys and values at E = Ev = 64
     * in float32 are an eighth of it, a power of two from 64 to 1024. 512 on the 2 MB L2 of the
     * AVX-512 host, where a sweep of 64, 128, 256, 512 and 1024 keys got faster up to 512 (session
     * 18); 128 on the 512 KB L2 of session 14's AVX2 host, the block chosen there.
     */
    static final int KEY_BLOCK = Integer.highestOneBit((int) Math.clamp(Machine.current().l2Bytes() / 8 / (2L * 64 * Float.BYTES), 64, 1024));
    /** Query rows per parallel task. */
    static final int QUERY_BLOCK = 64;

    /** What a bool or additive mask adds to the scores, or none. */
    public enum MaskKind { NONE, BOOL, ADDITIVE }

    /**
     * Where everything is: {@code batches} problems of {@code queries} (L) query rows, {@code keys} (S)
     * keys, {@code headDim} (E) and {@code valueDim} (Ev). Offsets are per problem; strides are in
     * elements. The mask's offsets are null when there is none; a bool mask is read from a byte
     * array (non-zero: attend), an additive one from an array of the query's type.
     */
    public record Layout(int batches, int queries, int keys, int headDim, int valueDim,
                         int[] queryOffsets, int queryRowStride, int queryColStride,
                         int[] keyOffsets, int keyRowStride, int keyColStride,
                         int[] valueOffsets, int valueRowStride, int valueColStride,
                         MaskKind maskKind, int[] maskOffsets, int maskRowStride, int maskColStride,
                         boolean causal, double scale) {
        /** Multiply-adds of the whole call (scores and weighted values), for the parallel split. */
        long work() { return (long) batches * queries * keys * (headDim + valueDim); }
    }

    /** Float32 attention into {@code out} ({@code [batches, L, Ev]}, contiguous). */
    public static void forward(Layout layout, float[] query, float[] key, float[] value, Object mask, float[] out) {
        AttentionFloat.forward(layout, query, key, value, mask, out);
    }

    /** Float64 attention into {@code out} ({@code [batches, L, Ev]}, contiguous). */
    public static void forward(Layout layout, double[] query, double[] key, double[] value, Object mask, double[] out) {
        AttentionDouble.forward(layout, query, key, value, mask, out);
    }

    static int roundUp(int x, int step) { return (x + step - 1) / step * step; }

    /**
     * Whether query row {@code i} may attend key {@code j}, and for an additive mask what it adds;
     * returns NaN-free {@code -inf} for "masked". Shared by both element types.
     */
    static double maskBias(Layout g, Object mask, int maskRowBase, int i, int j) {
        if (g.causal() && j > i) return Double.NEGATIVE_INFINITY;
        return switch (g.maskKind()) {
            case NONE -> 0;
            case BOOL -> ((byte[]) mask)[maskRowBase + j * g.maskColStride()] != 0 ? 0 : Double.NEGATIVE_INFINITY;
            case ADDITIVE -> mask instanceof float[] f ? f[maskRowBase + j * g.maskColStride()] : ((double[]) mask)[maskRowBase + j * g.maskColStride()];
        };
    }
}
