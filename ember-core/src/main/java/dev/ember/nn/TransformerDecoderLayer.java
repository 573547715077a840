package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * One transformer decoder layer, as PyTorch's {@code nn.TransformerDecoderLayer} batch first
 * ({@code [batch, seq, d_model]}; {@link #batchFirst batchFirst(false)} for PyTorch's default
 * {@code [seq, batch, d_model]}): self-attention over the target, then
 * attention over the encoder's output ({@code memory}), then the feed-forward block
 * ({@code linear2(dropout(activation(linear1(x))))}); each with a residual connection and a
 * LayerNorm, after the residual (post-norm, the default) or before the block ({@code normFirst}).
 * Field names give PyTorch's state-dict keys: {@code self_attn}, {@code multihead_attn},
 * {@code linear1}, {@code linear2}, {@code norm1..3}.
 */
public class TransformerDecoderLayer extends Module {
    public MultiheadAttention selfAttn;
    public MultiheadAttention multiheadAttn;
    public Linear linear1;
    public Dropout dropout;
    public Linear linear2;
    public final boolean normFirst;
    public LayerNorm norm1;
    public LayerNorm norm2;
    public LayerNorm norm3;
    public Dropout dropout1;
    public Dropout dropout2;
    public Dropout dropout3;
    /** The activation: GELU when true, ReLU otherwise (unless {@link #activation} is given). */
    private final boolean gelu;
    /** A caller's activation (PyTorch's callable {@code activation}), or null for relu/gelu by name. */
    private final Activation activation;

    /** PyTorch's defaults: dim_feedforward=2048, dropout=0.1, relu, layer_norm_eps=1e-5, post-norm. */
    public TransformerDecoderLayer(int dModel, int nhead) { this(dModel, nhead, 2048, 0.1); }

    public TransformerDecoderLayer(int dModel, int nhead, int dimFeedforward, double dropout) {
        this(dModel, nhead, dimFeedforward, dropout, "relu", 1e-5, false, true);
    }

    /** {@code activation} is {@code "relu"} or {@code "gelu"}. */
    public TransformerDecoderLayer(int dModel, int nhead, int dimFeedforward, double dropout, String activation, double layerNormEps,
                                   boolean normFirst, boolean bias) {
        this(dModel, nhead, dimFeedforward, dropout, checkedActivation(activation), null, layerNormEps, normFirst, bias);
    }

    /**
     * With a caller's {@code activation} (PyTorch's callable form, e.g. {@code F::silu} or
     * {@code t -> t.tanh()}) applied to the feed-forward block's hidden layer.
     */
    public TransformerDecoderLayer(int dModel, int nhead, int dimFeedforward, double dropout, Activation activation, double layerNormEps,
                                   boolean normFirst, boolean bias) {
        this(dModel, nhead, dimFeedforward, dropout, "relu", java.util.Objects.requireNonNull(activation, "TransformerDecoderLayer: activation"), layerNormEps, normFirst, bias);
    }

    private static String checkedActivation(String activation) {
        if (!activation.equals("relu") && !activation.equals("gelu")) {
            throw new IllegalArgumentException("TransformerDecoderLayer: activation should be relu/gelu, not " + activation);
        }
        return activation;
    }

    private TransformerDecoderLayer(int dModel, int nhead, int dimFeedforward, double dropout, String activationName, Activation activation,
                                    double layerNormEps, boolean normFirst, boolean bias) {
        this.selfAttn = new MultiheadAttention(dModel, nhead, dropout, bias);
        this.multiheadAttn = new MultiheadAttention(dModel, nhead, dropout, bias);
        this.linear1 = new Linear(dModel, dimFeedforward, bias);
        this.dropout = new Dropout(dropout);
        this.linear2 = new Linear(dimFeedforward, dModel, bias);
        this.normFirst = normFirst;
        this.norm1 = new LayerNorm(new int[] {dModel}, layerNormEps, true, bias);
        this.norm2 = new LayerNorm(new int[] {dModel}, layerNormEps, true, bias);
        this.norm3 = new LayerNorm(new int[] {dModel}, layerNormEps, true, bias);
        this.dropout1 = new Dropout(dropout);
        this.dropout2 = new Dropout(dropout);
        this.dropout3 = new Dropout(dropout);
        this.gelu = activationName.equals("gelu");
        this.activation = activation;
    }

    /**
     * The layout of inputs and output: {@code [batch, seq, d_model]} when true (the default, kept
     * for Ember's existing callers), {@code [seq, batch, d_model]} when false (PyTorch's
     * {@code batch_first=False}, its default). Only the attention reads the layout; the rest works
     * position by position. Returns this layer.
     */
    public TransformerDecoderLayer batchFirst(boolean batchFirst) {
        selfAttn.batchFirst(batchFirst);
        multiheadAttn.batchFirst(batchFirst);
        return this;
    }

    /** Whether inputs and output are {@code [batch, seq, d_model]}. */
    public boolean isBatchFirst() { return selfAttn.isBatchFirst(); }

    public Tensor forward(Tensor tgt, Tensor memory) { return forward(tgt, memory, null, null, null, null); }

    /**
     * {@code tgt [B, T, E]} attending to itself under {@code tgtMask} ({@code [T, T]}, e.g.
     * {@link Transformer#generateSquareSubsequentMask}) and {@code tgtKeyPaddingMask [B, T]}, and to
     * {@code memory [B, S, E]} under {@code memoryMask [T, S]} and {@code memoryKeyPaddingMask [B, S]};
     * masks as {@link MultiheadAttention} takes them, each may be null.
     */
    public Tensor forward(Tensor tgt, Tensor memory, Tensor tgtMask, Tensor memoryMask, Tensor tgtKeyPaddingMask, Tensor memoryKeyPaddingMask) {
        return forward(tgt, memory, tgtMask, memoryMask, tgtKeyPaddingMask, memoryKeyPaddingMask, false, false);
    }

    /** With PyTorch's {@code tgt_is_causal} and {@code memory_is_causal} hints: the mask each names is the causal mask. */
    public Tensor forward(Tensor tgt, Tensor memory, Tensor tgtMask, Tensor memoryMask, Tensor tgtKeyPaddingMask, Tensor memoryKeyPaddingMask,
                          boolean tgtIsCausal, boolean memoryIsCausal) {
        Tensor x = tgt;
        if (normFirst) {
            x = x.add(selfAttentionBlock(norm1.forward(x), tgtMask, tgtKeyPaddingMask, tgtIsCausal));
            x = x.add(crossAttentionBlock(norm2.forward(x), memory, memoryMask, memoryKeyPaddingMask, memoryIsCausal));
            x = x.add(feedForwardBlock(norm3.forward(x)));
        } else {
            x = norm1.forward(x.add(selfAttentionBlock(x, tgtMask, tgtKeyPaddingMask, tgtIsCausal)));
            x = norm2.forward(x.add(crossAttentionBlock(x, memory, memoryMask, memoryKeyPaddingMask, memoryIsCausal)));
            x = norm3.forward(x.add(feedForwardBlock(x)));
        }
        return x;
    }

    private Tensor selfAttentionBlock(Tensor x, Tensor mask, Tensor keyPaddingMask, boolean isCausal) {
        return dropout1.forward(selfAttn.forward(x, x, x, keyPaddingMask, false, mask, true, isCausal).output());
    }

    private Tensor crossAttentionBlock(Tensor x, Tensor memory, Tensor mask, Tensor keyPaddingMask, boolean isCausal) {
        return dropout2.forward(multiheadAttn.forward(x, memory, memory, keyPaddingMask, false, mask, true, isCausal).output());
    }

    private Tensor feedForwardBlock(Tensor x) {
        Tensor h = linear1.forward(x);
        h = activation != null ? activation.apply(h) : gelu ? F.gelu(h) : F.relu(h);
        return dropout3.forward(linear2.forward(dropout.forward(h)));
    }
}
