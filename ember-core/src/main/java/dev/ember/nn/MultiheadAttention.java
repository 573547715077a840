package dev.ember.nn;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

import java.util.List;

/**
 * Multi-head attention, as PyTorch's {@code nn.MultiheadAttention}: inputs and output are
 * {@code [batch, seq, embed_dim]} (Ember's default, PyTorch's {@code batch_first=True}), or
 * {@code [seq, batch, embed_dim]} after {@link #batchFirst batchFirst(false)} (PyTorch's default
 * layout); masks and weights are the same in both. The attention weights come back when asked
 * for ({@code needWeights}). The
 * query/key/value projections are packed in {@code in_proj_weight [3E, E]} and
 * {@code in_proj_bias [3E]}, followed by {@code out_proj}, so PyTorch state dicts load.
 */
public class MultiheadAttention extends Module {
    public final int embedDim;
    public final int numHeads;
    public final int headDim;
    /** Dropout probability on the attention weights, in training only. */
    public final double dropout;
    /** The key's and the value's feature sizes (PyTorch's {@code kdim}, {@code vdim}): embedDim unless given. */
    public final int kdim;
    public final int vdim;
    /** PyTorch's {@code add_zero_attn}: a zero key and value appended to every sequence, after the heads are split. */
    public final boolean addZeroAttn;
    /** The packed query/key/value projection {@code [3E, E]}; null when kdim or vdim differs from embedDim (then the three below). */
    public Parameter inProjWeight;
    /** The separate projections {@code [E, E]}, {@code [E, kdim]}, {@code [E, vdim]} when kdim or vdim differs from embedDim; null otherwise. */
    public Parameter qProjWeight;
    public Parameter kProjWeight;
    public Parameter vProjWeight;
    /** Null when built with {@code bias = false}. */
    public Parameter inProjBias;
    /** PyTorch's {@code add_bias_kv}: a learned key and value {@code [1, 1, E]} appended to every sequence; null otherwise. */
    public Parameter biasK;
    public Parameter biasV;
    public Linear outProj;
    private boolean batchFirst = true;

    public MultiheadAttention(int embedDim, int numHeads) { this(embedDim, numHeads, 0.0, true); }

    public MultiheadAttention(int embedDim, int numHeads, double dropout, boolean bias) { this(embedDim, numHeads, dropout, bias, false, false, null, null); }

    /**
     * PyTorch's full constructor: {@code addBiasKv} appends a learned key and value to every
     * sequence, {@code addZeroAttn} a zero one (each one more position the masks let through), and
     * {@code kdim}/{@code vdim} (null: embedDim) are the key's and value's feature sizes, projected by
     * separate {@code q_proj_weight}, {@code k_proj_weight}, {@code v_proj_weight} when either differs.
     */
    public MultiheadAttention(int embedDim, int numHeads, double dropout, boolean bias, boolean addBiasKv, boolean addZeroAttn, Integer kdim, Integer vdim) {
        if (embedDim <= 0 || numHeads <= 0) {
            throw new IllegalArgumentException("MultiheadAttention: embed_dim and num_heads must be greater than 0, got embed_dim=" + embedDim + " and num_heads=" + numHeads);
        }
        if (embedDim % numHeads != 0) throw new IllegalArgumentException("MultiheadAttention: embed_dim (" + embedDim + ") must be divisible by num_heads (" + numHeads + ")");
        if (!(dropout >= 0 && dropout <= 1)) throw new IllegalArgumentException("dropout probability has to be between 0 and 1, but got " + dropout);
        this.embedDim = embedDim;
        this.numHeads = numHeads;
        this.headDim = embedDim / numHeads;
        this.dropout = dropout;
        this.kdim = kdim == null ? embedDim : kdim;
        this.vdim = vdim == null ? embedDim : vdim;
        if (this.kdim <= 0 || this.vdim <= 0) throw new IllegalArgumentException("MultiheadAttention: kdim and vdim must be greater than 0, got kdim=" + this.kdim + " and vdim=" + this.vdim);
        this.addZeroAttn = addZeroAttn;
        if (this.kdim == embedDim && this.vdim == embedDim) {
            this.inProjWeight = new Parameter(Init.xavierUniform(3 * embedDim, embedDim));
        } else {
            this.qProjWeight = new Parameter(Init.xavierUniform(embedDim, embedDim));
            this.kProjWeight = new Parameter(Init.xavierUniform(embedDim, this.kdim));
            this.vProjWeight = new Parameter(Init.xavierUniform(embedDim, this.vdim));
        }
        this.inProjBias = bias ? new Parameter(Tensor.zeros(3 * embedDim)) : null;
        if (addBiasKv) {
            this.biasK = new Parameter(Init.xavierNormal_(Tensor.zeros(1, 1, embedDim)));
            this.biasV = new Parameter(Init.xavierNormal_(Tensor.zeros(1, 1, embedDim)));
        }
        this.outProj = new Linear(embedDim, embedDim, bias);
        if (bias) outProj.bias = new Parameter(Tensor.zeros(embedDim));
    }

    /**
     * The layout of inputs and output: {@code [batch, seq, embed_dim]} when true (the default, kept
     * for Ember's existing callers), {@code [seq, batch, embed_dim]} when false (PyTorch's default,
     * {@code batch_first=False}). Returns this module.
     */
    public MultiheadAttention batchFirst(boolean batchFirst) {
        this.batchFirst = batchFirst;
        return this;
    }

    /** Whether inputs and output are {@code [batch, seq, embed_dim]} (PyTorch's {@code batch_first}). */
    public boolean isBatchFirst() { return batchFirst; }

    /** Self- or cross-attention without a mask. */
    public Tensor forward(Tensor query, Tensor key, Tensor value) { return forward(query, key, value, null, null); }

    /**
     * Attention of {@code query [B, L, E]} over {@code key}/{@code value [B, S, E]}. {@code attnMask}
     * is {@code [L, S]} or {@code [B * numHeads, L, S]}: a bool mask where <b>true means "may not
     * attend"</b> (PyTorch's convention here, the opposite of scaled_dot_product_attention's), or a
     * float mask added to the scores; it may be null.
     */
    public Tensor forward(Tensor query, Tensor key, Tensor value, Tensor attnMask) { return forward(query, key, value, attnMask, null); }

    /**
     * As {@link #forward(Tensor, Tensor, Tensor, Tensor)}, and {@code keyPaddingMask [B, S]} (may be
     * null) marks keys to ignore: true (bool) for padding, or a float added to every query's score
     * for that key.
     */
    public Tensor forward(Tensor query, Tensor key, Tensor value, Tensor attnMask, Tensor keyPaddingMask) {
        return forward(query, key, value, keyPaddingMask, false, attnMask, true).output();
    }

    /** The attention output {@code [B, L, E]} and, when asked for, its weights (null otherwise). */
    public record Output(Tensor output, Tensor weights) {}

    /**
     * PyTorch's full {@code forward(query, key, value, key_padding_mask, need_weights, attn_mask,
     * average_attn_weights)}: with {@code needWeights} the softmaxed attention weights come back as
     * well, averaged over the heads ({@code [B, L, S]}) or per head ({@code [B, numHeads, L, S]}).
     * Note PyTorch's default is {@code need_weights=True}; here the caller asks, since computing the
     * weights rules out the fused attention kernel.
     */
    public Output forward(Tensor query, Tensor key, Tensor value, Tensor keyPaddingMask, boolean needWeights, Tensor attnMask,
                          boolean averageAttnWeights) {
        return forward(query, key, value, keyPaddingMask, needWeights, attnMask, averageAttnWeights, false);
    }

    /**
     * With PyTorch's {@code is_causal} hint: {@code attnMask} must be given and be the causal mask;
     * when there is no key padding mask and no weights are wanted, the attention is computed as
     * causal and the mask itself is not read (as PyTorch's, which passes {@code is_causal} to
     * scaled_dot_product_attention), otherwise the mask is applied.
     */
    public Output forward(Tensor query, Tensor key, Tensor value, Tensor keyPaddingMask, boolean needWeights, Tensor attnMask,
                          boolean averageAttnWeights, boolean isCausal) {
        if (isCausal && attnMask == null) {
            throw new IllegalArgumentException("MultiheadAttention: Need attn_mask if specifying the is_causal hint. "
                    + "You may use the Transformer module method `generate_square_subsequent_mask` to create this mask.");
        }
        if (query.dim() == 2 && key.dim() == 2 && value.dim() == 2) {
            // unbatched, as PyTorch's: query [L, E], key and value [S, E], key_padding_mask [S]; run as a batch of one
            Tensor q = query.unsqueeze(0), k = key == query ? q : key.unsqueeze(0), v = value == key ? k : value.unsqueeze(0);
            Output out = batchFirstForward(q, k, v, keyPaddingMask == null ? null : keyPaddingMask.unsqueeze(0), needWeights, attnMask, averageAttnWeights, isCausal);
            return new Output(out.output().squeeze(0), out.weights() == null ? null : out.weights().squeeze(0));
        }
        if (!batchFirst && query.dim() == 3 && key.dim() == 3 && value.dim() == 3) {
            // sequence first: computed batch first, the output transposed back (the weights are [B, L, S] either way, as PyTorch's)
            Tensor q = query.transpose(0, 1), k = key == query ? q : key.transpose(0, 1), v = value == key ? k : value.transpose(0, 1);
            Output out = batchFirstForward(q, k, v, keyPaddingMask, needWeights, attnMask, averageAttnWeights, isCausal);
            return new Output(out.output().transpose(0, 1), out.weights());
        }
        return batchFirstForward(query, key, value, keyPaddingMask, needWeights, attnMask, averageAttnWeights, isCausal);
    }

    private Output batchFirstForward(Tensor query, Tensor key, Tensor value, Tensor keyPaddingMask, boolean needWeights, Tensor attnMask,
                                     boolean averageAttnWeights, boolean isCausal) {
        checkInputs(query, key, value);
        int batch = query.size(0), targetLen = query.size(1), sourceLen = key.size(1);
        Tensor q, k, v;
        Tensor inProjWeight = read("in_proj_weight", this.inProjWeight), inProjBias = read("in_proj_bias", this.inProjBias);
        Tensor biasK = read("bias_k", this.biasK), biasV = read("bias_v", this.biasV);
        if (query == key && key == value && inProjWeight != null) {
            List<Tensor> qkv = F.linear(query, inProjWeight, inProjBias).chunk(3, -1);
            q = qkv.get(0);
            k = qkv.get(1);
            v = qkv.get(2);
        } else {
            List<Tensor> w = inProjWeight == null ? List.of(read("q_proj_weight", qProjWeight), read("k_proj_weight", kProjWeight), read("v_proj_weight", vProjWeight)) : inProjWeight.chunk(3, 0);
            List<Tensor> b = inProjBias == null ? null : inProjBias.chunk(3, 0);
            q = F.linear(query, w.get(0), b == null ? null : b.get(0));
            k = F.linear(key, w.get(1), b == null ? null : b.get(1));
            v = F.linear(value, w.get(2), b == null ? null : b.get(2));
        }
        Tensor blocked = attnMask == null ? null : headMask(attnMask, batch, targetLen, sourceLen);
        Tensor padding = keyPaddingMask == null ? null : paddingMask(keyPaddingMask, batch, sourceLen);
        // PyTorch's use of the is_causal hint: only when the mask stays causal (no key padding merged in) and sdpa computes;
        // then the mask is dropped before any key is appended
        boolean causal = isCausal && padding == null && !needWeights;
        if (causal) blocked = null;
        int keys = sourceLen;
        if (biasK != null) {
            // add_bias_kv: the learned key and value appended to every sequence, which every mask lets through
            k = Tensor.cat(List.of(k, biasK.expand(batch, 1, embedDim)), 1);
            v = Tensor.cat(List.of(v, biasV.expand(batch, 1, embedDim)), 1);
            keys++;
        }
        q = q.reshape(batch, targetLen, numHeads, headDim).transpose(1, 2);
        k = k.reshape(batch, keys, numHeads, headDim).transpose(1, 2);
        v = v.reshape(batch, keys, numHeads, headDim).transpose(1, 2);
        if (addZeroAttn) {
            // add_zero_attn: a zero key and value per head, after the split, as PyTorch appends them
            Tensor zero = Tensor.zeros(k.dtype(), batch, numHeads, 1, headDim);
            k = Tensor.cat(List.of(k, zero), 2);
            v = Tensor.cat(List.of(v, zero), 2);
            keys++;
        }
        if (keys > sourceLen) {
            blocked = blocked == null ? null : appendKeys(blocked, keys - sourceLen);
            padding = padding == null ? null : appendKeys(padding, keys - sourceLen);
        }
        double p = isTraining() ? dropout : 0.0;
        if (!needWeights) {
            Tensor out = F.scaledDotProductAttention(q, k, v, sdpaMask(blocked, padding, query.dtype()), p, causal);
            return new Output(outProj.forward(out.transpose(1, 2).reshape(batch, targetLen, embedDim)), null);
        }
        // the weights are wanted, so the scores are formed explicitly: q scaled by 1/sqrt(head_dim) first, as PyTorch's
        Tensor scores = q.mul(1.0 / Math.sqrt(headDim)).matmul(k.transpose(-2, -1));
        Tensor bias = additive(blocked, padding, query.dtype());
        if (bias != null) scores = scores.add(bias);
        Tensor weights = scores.softmax(-1);
        Tensor out = F.dropout(weights, p, p > 0).matmul(v);
        Tensor output = outProj.forward(out.transpose(1, 2).reshape(batch, targetLen, embedDim));
        return new Output(output, averageAttnWeights ? weights.mean(new int[] {1}, false) : weights);
    }

    /** {@code mask} with {@code extra} keys appended along its last dim that it lets through (false, or 0 added to the score). */
    private static Tensor appendKeys(Tensor mask, int extra) {
        int[] shape = mask.shape().clone();
        shape[shape.length - 1] = extra;
        return Tensor.cat(List.of(mask, Tensor.zeros(mask.dtype(), shape)), -1);
    }

    /**
     * Generates PyTorch's causal mask for a sequence of {@code size}: a float {@code [size, size]}
     * tensor, -inf above the diagonal (position i may not attend to j > i) and 0 elsewhere
     * ({@code nn.Transformer.generate_square_subsequent_mask}).
     */
    public static Tensor generateSquareSubsequentMask(int size) {
        if (size < 0) throw new IllegalArgumentException("generate_square_subsequent_mask: size must be non-negative, got " + size);
        return Tensor.full(Double.NEGATIVE_INFINITY, size, size).triu(1);
    }

    private void checkInputs(Tensor query, Tensor key, Tensor value) {
        if (query.dim() != 3 || key.dim() != 3 || value.dim() != 3) {
            throw new IllegalArgumentException("MultiheadAttention: expected 3-D query, key and value [batch, seq, embed_dim], got query "
                    + Shapes.format(query.shape()) + ", key " + Shapes.format(key.shape()) + ", value " + Shapes.format(value.shape()));
        }
        if (query.size(2) != embedDim) {
            throw new IllegalArgumentException("MultiheadAttention: was expecting embedding dimension of " + embedDim + ", but got " + query.size(2));
        }
        if (inProjWeight != null && !Shapes.same(key.shape(), value.shape())) {
            throw new IllegalArgumentException("MultiheadAttention: key shape " + Shapes.format(key.shape()) + " does not match value shape " + Shapes.format(value.shape()));
        }
        if (key.size(0) != query.size(0) || key.size(2) != kdim) {
            throw new IllegalArgumentException("MultiheadAttention: key " + Shapes.format(key.shape()) + " must be [" + query.size(0) + ", S, " + kdim
                    + "] to match query " + Shapes.format(query.shape()));
        }
        if (value.size(0) != key.size(0) || value.size(1) != key.size(1) || value.size(2) != vdim) {
            throw new IllegalArgumentException("MultiheadAttention: key's sequence length and batch dims " + key.size(1) + " and " + key.size(0)
                    + " do not match value's " + value.size(1) + " and " + value.size(0) + ", or value's features " + value.size(2) + " are not vdim (" + vdim + ")");
        }
    }

    /** {@code attnMask} ({@code [L, S]} or {@code [B * numHeads, L, S]}) checked and shaped to broadcast over {@code [B, numHeads, L, S]}; PyTorch's convention kept. */
    private Tensor headMask(Tensor attnMask, int batch, int targetLen, int sourceLen) {
        checkMaskDtype("attn_mask", attnMask);
        if (attnMask.dim() == 2) {
            if (attnMask.size(0) != targetLen || attnMask.size(1) != sourceLen) {
                throw new IllegalArgumentException("MultiheadAttention: The shape of the 2D attn_mask is " + Shapes.format(attnMask.shape())
                        + ", but should be " + Shapes.format(new int[] {targetLen, sourceLen}) + ".");
            }
            return attnMask;
        }
        if (attnMask.dim() == 3) {
            int[] expected = {batch * numHeads, targetLen, sourceLen};
            if (!Shapes.same(attnMask.shape(), expected)) {
                throw new IllegalArgumentException("MultiheadAttention: The shape of the 3D attn_mask is " + Shapes.format(attnMask.shape())
                        + ", but should be " + Shapes.format(expected) + ".");
            }
            return attnMask.reshape(batch, numHeads, targetLen, sourceLen);
        }
        throw new IllegalArgumentException("MultiheadAttention: attn_mask's dimension " + attnMask.dim() + " is not supported (use [L, S] or [B * num_heads, L, S])");
    }

    /** {@code keyPaddingMask [B, S]} checked and shaped {@code [B, 1, 1, S]}, to broadcast over heads and queries. */
    private static Tensor paddingMask(Tensor keyPaddingMask, int batch, int sourceLen) {
        checkMaskDtype("key_padding_mask", keyPaddingMask);
        if (!Shapes.same(keyPaddingMask.shape(), new int[] {batch, sourceLen})) {
            throw new IllegalArgumentException("MultiheadAttention: expecting key_padding_mask shape of " + Shapes.format(new int[] {batch, sourceLen})
                    + ", but got " + Shapes.format(keyPaddingMask.shape()));
        }
        return keyPaddingMask.reshape(batch, 1, 1, sourceLen);
    }

    private static void checkMaskDtype(String name, Tensor mask) {
        if (mask.dtype() != DType.BOOL && !mask.dtype().isFloatingPoint()) {
            throw new IllegalArgumentException("MultiheadAttention: only bool and floating types of " + name + " are supported, got " + mask.dtype());
        }
    }

    /**
     * The two masks as scaled_dot_product_attention takes one: when both are bool (or one is absent
     * and the other bool), "may attend" is the negation of either blocking; otherwise both become
     * additive float masks and are summed, as PyTorch merges them.
     */
    private static Tensor sdpaMask(Tensor blocked, Tensor padding, DType dtype) {
        if (blocked == null && padding == null) return null;
        boolean allBool = (blocked == null || blocked.dtype() == DType.BOOL) && (padding == null || padding.dtype() == DType.BOOL);
        if (!allBool) return additive(blocked, padding, dtype);
        Tensor any = blocked == null ? padding : padding == null ? blocked : blocked.logicalOr(padding);
        return any.logicalNot();
    }

    /** The masks as one float mask added to the scores (a bool true is -inf), or null when there is none. */
    private static Tensor additive(Tensor blocked, Tensor padding, DType dtype) {
        Tensor a = blocked == null ? null : asFloat(blocked, dtype), b = padding == null ? null : asFloat(padding, dtype);
        return a == null ? b : b == null ? a : a.add(b);
    }

    private static Tensor asFloat(Tensor mask, DType dtype) {
        return mask.dtype() == DType.BOOL ? Tensor.zeros(dtype, mask.shape()).maskedFill(mask, Double.NEGATIVE_INFINITY) : mask;
    }
}
