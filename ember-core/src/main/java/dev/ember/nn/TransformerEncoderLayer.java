package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * One transformer encoder layer, as PyTorch's {@code nn.TransformerEncoderLayer} batch first
 * ({@code [batch, seq, d_model]}; {@link #batchFirst batchFirst(false)} for PyTorch's default
 * {@code [seq, batch, d_model]}): a self-attention block and a
 * feed-forward block ({@code linear2(dropout(activation(linear1(x))))}), each with a residual
 * connection and a LayerNorm, applied after the residual (post-norm, the default) or before the
 * block ({@code normFirst}).
 */
public class TransformerEncoderLayer extends Module {
    public MultiheadAttention selfAttn;
    public Linear linear1;
    public Dropout dropout;
    public Linear linear2;
    public final boolean normFirst;
    public LayerNorm norm1;
    public LayerNorm norm2;
    public Dropout dropout1;
    public Dropout dropout2;
    /** The activation: GELU when true, ReLU otherwise (unless {@link #activation} is given). */
    private final boolean gelu;
    /** A caller's activation (PyTorch's callable {@code activation}), or null for relu/gelu by name. */
    private final Activation activation;

    /** PyTorch's defaults: dim_feedforward=2048, dropout=0.1, relu, layer_norm_eps=1e-5, post-norm. */
    public TransformerEncoderLayer(int dModel, int nhead) { this(dModel, nhead, 2048, 0.1); }

    public TransformerEncoderLayer(int dModel, int nhead, int dimFeedforward, double dropout) {
        this(dModel, nhead, dimFeedforward, dropout, "relu", 1e-5, false, true);
    }

    /** {@code activation} is {@code "relu"} or {@code "gelu"}. */
    public TransformerEncoderLayer(int dModel, int nhead, int dimFeedforward, double dropout, String activation, double layerNormEps,
                                   boolean normFirst, boolean bias) {
        this(dModel, nhead, dimFeedforward, dropout, checkedActivation(activation), null, layerNormEps, normFirst, bias);
    }

    /**
     * With a caller's {@code activation} (PyTorch's callable form, e.g. {@code F::silu} or
     * {@code t -> t.tanh()}) applied to the feed-forward block's hidden layer.
     */
    public TransformerEncoderLayer(int dModel, int nhead, int dimFeedforward, double dropout, Activation activation, double layerNormEps,
                                   boolean normFirst, boolean bias) {
        this(dModel, nhead, dimFeedforward, dropout, "relu", java.util.Objects.requireNonNull(activation, "TransformerEncoderLayer: activation"), layerNormEps, normFirst, bias);
    }

    private static String checkedActivation(String activation) {
        if (!activation.equals("relu") && !activation.equals("gelu")) {
            throw new IllegalArgumentException("TransformerEncoderLayer: activation should be relu/gelu, not " + activation);
        }
        return activation;
    }

    private TransformerEncoderLayer(int dModel, int nhead, int dimFeedforward, double dropout, String activationName, Activation activation,
                                    double layerNormEps, boolean normFirst, boolean bias) {
        this.selfAttn = new MultiheadAttention(dModel, nhead, dropout, bias);
        this.linear1 = new Linear(dModel, dimFeedforward, bias);
        this.dropout = new Dropout(dropout);
        this.linear2 = new Linear(dimFeedforward, dModel, bias);
        this.normFirst = normFirst;
        this.norm1 = new LayerNorm(new int[] {dModel}, layerNormEps, true, bias);
        this.norm2 = new LayerNorm(new int[] {dModel}, layerNormEps, true, bias);
        this.dropout1 = new Dropout(dropout);
        this.dropout2 = new Dropout(dropout);
        this.gelu = activationName.equals("gelu");
        this.activation = activation;
    }

    /**
     * The layout of inputs and output: {@code [batch, seq, d_model]} when true (the default, kept
     * for Ember's existing callers), {@code [seq, batch, d_model]} when false (PyTorch's
     * {@code batch_first=False}, its default). Only the attention reads the layout; the rest works
     * position by position. Returns this layer.
     */
    public TransformerEncoderLayer batchFirst(boolean batchFirst) {
        selfAttn.batchFirst(batchFirst);
        return this;
    }

    /** Whether inputs and output are {@code [batch, seq, d_model]}. */
    public boolean isBatchFirst() { return selfAttn.isBatchFirst(); }

    @Override
    public Tensor forward(Tensor src) { return forward(src, null); }

    /** {@code srcMask} is an attention mask as {@link MultiheadAttention#forward(Tensor, Tensor, Tensor, Tensor)} takes; may be null. */
    public Tensor forward(Tensor src, Tensor srcMask) { return forward(src, srcMask, null); }

    /** With {@code srcKeyPaddingMask [B, S]} too (true: a padding position no query attends to); either may be null. */
    public Tensor forward(Tensor src, Tensor srcMask, Tensor srcKeyPaddingMask) { return forward(src, srcMask, srcKeyPaddingMask, false); }

    /** With PyTorch's {@code is_causal} hint: {@code srcMask} is the causal mask (see {@link MultiheadAttention}'s). */
    public Tensor forward(Tensor src, Tensor srcMask, Tensor srcKeyPaddingMask, boolean isCausal) {
        Tensor x = src;
        if (normFirst) {
            x = x.add(selfAttentionBlock(norm1.forward(x), srcMask, srcKeyPaddingMask, isCausal));
            x = x.add(feedForwardBlock(norm2.forward(x)));
        } else {
            x = norm1.forward(x.add(selfAttentionBlock(x, srcMask, srcKeyPaddingMask, isCausal)));
            x = norm2.forward(x.add(feedForwardBlock(x)));
        }
        return x;
    }

    private Tensor selfAttentionBlock(Tensor x, Tensor mask, Tensor keyPaddingMask, boolean isCausal) {
        return dropout1.forward(selfAttn.forward(x, x, x, keyPaddingMask, false, mask, true, isCausal).output());
    }

    private Tensor feedForwardBlock(Tensor x) {
        Tensor h = linear1.forward(x);
        h = activation != null ? activation.apply(h) : gelu ? F.gelu(h) : F.relu(h);
        return dropout2.forward(linear2.forward(dropout.forward(h)));
    }
}
