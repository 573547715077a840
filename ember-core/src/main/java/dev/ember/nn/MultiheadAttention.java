package dev.ember.nn;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

import java.util.List;

/**
 * Multi-head attention, as PyTorch's {@code nn.MultiheadAttention} with {@code batch_first=True}
 * and {@code need_weights=False}: inputs and output are {@code [batch, seq, embed_dim]}. The
 * query/key/value projections are packed in {@code in_proj_weight [3E, E]} and
 * {@code in_proj_bias [3E]}, followed by {@code out_proj}, so PyTorch state dicts load.
 */
public class MultiheadAttention extends Module {
    public final int embedDim;
    public final int numHeads;
    public final int headDim;
    /** Dropout probability on the attention weights, in training only. */
    public final double dropout;
    public Parameter inProjWeight;
    /** Null when built with {@code bias = false}. */
    public Parameter inProjBias;
    public Linear outProj;

    public MultiheadAttention(int embedDim, int numHeads) { this(embedDim, numHeads, 0.0, true); }

    public MultiheadAttention(int embedDim, int numHeads, double dropout, boolean bias) {
        if (embedDim <= 0 || numHeads <= 0) {
            throw new IllegalArgumentException("MultiheadAttention: embed_dim and num_heads must be greater than 0, got embed_dim=" + embedDim + " and num_heads=" + numHeads);
        }
        if (embedDim % numHeads != 0) throw new IllegalArgumentException("MultiheadAttention: embed_dim (" + embedDim + ") must be divisible by num_heads (" + numHeads + ")");
        if (!(dropout >= 0 && dropout <= 1)) throw new IllegalArgumentException("dropout probability has to be between 0 and 1, but got " + dropout);
        this.embedDim = embedDim;
        this.numHeads = numHeads;
        this.headDim = embedDim / numHeads;
        this.dropout = dropout;
        this.inProjWeight = new Parameter(Init.xavierUniform(3 * embedDim, embedDim));
        this.inProjBias = bias ? new Parameter(Tensor.zeros(3 * embedDim)) : null;
        this.outProj = new Linear(embedDim, embedDim, bias);
        if (bias) outProj.bias = new Parameter(Tensor.zeros(embedDim));
    }

    /** Self- or cross-attention without a mask. */
    public Tensor forward(Tensor query, Tensor key, Tensor value) { return forward(query, key, value, null); }

    /**
     * Attention of {@code query [B, L, E]} over {@code key}/{@code value [B, S, E]}. {@code attnMask}
     * is {@code [L, S]} or {@code [B * numHeads, L, S]}: a bool mask where <b>true means "may not
     * attend"</b> (PyTorch's convention here, the opposite of scaled_dot_product_attention's), or a
     * float mask added to the scores; it may be null.
     */
    public Tensor forward(Tensor query, Tensor key, Tensor value, Tensor attnMask) {
        checkInputs(query, key, value);
        int batch = query.size(0), targetLen = query.size(1), sourceLen = key.size(1);
        Tensor q, k, v;
        if (query == key && key == value) {
            List<Tensor> qkv = F.linear(query, inProjWeight, inProjBias).chunk(3, -1);
            q = qkv.get(0);
            k = qkv.get(1);
            v = qkv.get(2);
        } else {
            List<Tensor> w = inProjWeight.chunk(3, 0);
            List<Tensor> b = inProjBias == null ? null : inProjBias.chunk(3, 0);
            q = F.linear(query, w.get(0), b == null ? null : b.get(0));
            k = F.linear(key, w.get(1), b == null ? null : b.get(1));
            v = F.linear(value, w.get(2), b == null ? null : b.get(2));
        }
        q = q.reshape(batch, targetLen, numHeads, headDim).transpose(1, 2);
        k = k.reshape(batch, sourceLen, numHeads, headDim).transpose(1, 2);
        v = v.reshape(batch, sourceLen, numHeads, headDim).transpose(1, 2);
        Tensor mask = attnMask == null ? null : sdpaMask(attnMask, batch, targetLen, sourceLen);
        Tensor out = F.scaledDotProductAttention(q, k, v, mask, isTraining() ? dropout : 0.0, false);
        return outProj.forward(out.transpose(1, 2).reshape(batch, targetLen, embedDim));
    }

    private void checkInputs(Tensor query, Tensor key, Tensor value) {
        if (query.dim() != 3 || key.dim() != 3 || value.dim() != 3) {
            throw new IllegalArgumentException("MultiheadAttention: expected 3-D query, key and value [batch, seq, embed_dim], got query "
                    + Shapes.format(query.shape()) + ", key " + Shapes.format(key.shape()) + ", value " + Shapes.format(value.shape()));
        }
        if (query.size(2) != embedDim) {
            throw new IllegalArgumentException("MultiheadAttention: was expecting embedding dimension of " + embedDim + ", but got " + query.size(2));
        }
        if (!Shapes.same(key.shape(), value.shape())) {
            throw new IllegalArgumentException("MultiheadAttention: key shape " + Shapes.format(key.shape()) + " does not match value shape " + Shapes.format(value.shape()));
        }
        if (key.size(0) != query.size(0) || key.size(2) != embedDim) {
            throw new IllegalArgumentException("MultiheadAttention: key " + Shapes.format(key.shape()) + " must be [" + query.size(0) + ", S, " + embedDim
                    + "] to match query " + Shapes.format(query.shape()));
        }
    }

    /** PyTorch's mask convention turned into scaled_dot_product_attention's, with heads split out. */
    private Tensor sdpaMask(Tensor attnMask, int batch, int targetLen, int sourceLen) {
        Tensor mask = attnMask.dtype() == DType.BOOL ? attnMask.logicalNot() : attnMask;
        if (attnMask.dim() == 2) {
            if (attnMask.size(0) != targetLen || attnMask.size(1) != sourceLen) {
                throw new IllegalArgumentException("MultiheadAttention: The shape of the 2D attn_mask is " + Shapes.format(attnMask.shape())
                        + ", but should be " + Shapes.format(new int[] {targetLen, sourceLen}) + ".");
            }
            return mask;
        }
        if (attnMask.dim() == 3) {
            int[] expected = {batch * numHeads, targetLen, sourceLen};
            if (!Shapes.same(attnMask.shape(), expected)) {
                throw new IllegalArgumentException("MultiheadAttention: The shape of the 3D attn_mask is " + Shapes.format(attnMask.shape())
                        + ", but should be " + Shapes.format(expected) + ".");
            }
            return mask.reshape(batch, numHeads, targetLen, sourceLen);
        }
        throw new IllegalArgumentException("MultiheadAttention: attn_mask's dimension " + attnMask.dim() + " is not supported (use [L, S] or [B * num_heads, L, S])");
    }
}
