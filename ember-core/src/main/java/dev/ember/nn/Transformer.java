package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * An encoder-decoder transformer, as PyTorch's {@code nn.Transformer}, batch first ({@code [batch,
 * seq, d_model]}, PyTorch's {@code batch_first=True}) unless {@link #batchFirst batchFirst(false)}
 * makes it sequence first (PyTorch's default layout, set on every layer):
 * a {@link TransformerEncoder} of {@code numEncoderLayers} layers and a {@link TransformerDecoder}
 * of {@code numDecoderLayers}, each ending in a LayerNorm; every weight matrix starts from
 * xavier_uniform_, as PyTorch resets them. State-dict names are PyTorch's
 * ({@code encoder.layers.0.self_attn.in_proj_weight}, {@code decoder.norm.bias}, …), so a PyTorch
 * checkpoint of a batch-first model loads.
 */
public class Transformer extends Module {
    public final TransformerEncoder encoder;
    public final TransformerDecoder decoder;
    public final int dModel;
    public final int nhead;

    /** PyTorch's defaults: d_model=512, nhead=8, 6 and 6 layers, dim_feedforward=2048, dropout=0.1. */
    public Transformer() { this(512, 8, 6, 6, 2048, 0.1); }

    public Transformer(int dModel, int nhead, int numEncoderLayers, int numDecoderLayers, int dimFeedforward, double dropout) {
        this(dModel, nhead, numEncoderLayers, numDecoderLayers, dimFeedforward, dropout, "relu", 1e-5, false, true);
    }

    public Transformer(int dModel, int nhead, int numEncoderLayers, int numDecoderLayers, int dimFeedforward, double dropout,
                       String activation, double layerNormEps, boolean normFirst, boolean bias) {
        this(dModel, nhead, numEncoderLayers, numDecoderLayers, layerNormEps, bias,
                () -> new TransformerEncoderLayer(dModel, nhead, dimFeedforward, dropout, activation, layerNormEps, normFirst, bias),
                () -> new TransformerDecoderLayer(dModel, nhead, dimFeedforward, dropout, activation, layerNormEps, normFirst, bias));
    }

    /** With a caller's {@code activation} in every layer's feed-forward block (PyTorch's callable form). */
    public Transformer(int dModel, int nhead, int numEncoderLayers, int numDecoderLayers, int dimFeedforward, double dropout,
                       Activation activation, double layerNormEps, boolean normFirst, boolean bias) {
        this(dModel, nhead, numEncoderLayers, numDecoderLayers, layerNormEps, bias,
                () -> new TransformerEncoderLayer(dModel, nhead, dimFeedforward, dropout, activation, layerNormEps, normFirst, bias),
                () -> new TransformerDecoderLayer(dModel, nhead, dimFeedforward, dropout, activation, layerNormEps, normFirst, bias));
    }

    private Transformer(int dModel, int nhead, int numEncoderLayers, int numDecoderLayers, double layerNormEps, boolean bias,
                        java.util.function.Supplier<TransformerEncoderLayer> encoderLayer, java.util.function.Supplier<TransformerDecoderLayer> decoderLayer) {
        this.encoder = new TransformerEncoder(encoderLayer, numEncoderLayers, new LayerNorm(new int[] {dModel}, layerNormEps, true, bias));
        this.decoder = new TransformerDecoder(decoderLayer, numDecoderLayers, new LayerNorm(new int[] {dModel}, layerNormEps, true, bias));
        this.dModel = dModel;
        this.nhead = nhead;
        // PyTorch's _reset_parameters: every parameter of more than one dim from xavier_uniform_ (biases and norms keep theirs)
        for (Parameter p : parameters()) if (p.dim() > 1) Init.xavierUniform_(p);
    }

    /**
     * The layout of src, tgt and the output, set on every encoder and decoder layer:
     * {@code [batch, seq, d_model]} when true (the default, kept for Ember's existing callers),
     * {@code [seq, batch, d_model]} when false (PyTorch's {@code batch_first=False}, its default).
     * Returns this model.
     */
    public Transformer batchFirst(boolean batchFirst) {
        for (TransformerEncoderLayer layer : encoder.layers) layer.batchFirst(batchFirst);
        for (TransformerDecoderLayer layer : decoder.layers) layer.batchFirst(batchFirst);
        return this;
    }

    /** Whether src, tgt and the output are {@code [batch, seq, d_model]}. */
    public boolean isBatchFirst() { return encoder.layers.get(0).isBatchFirst(); }

    public Tensor forward(Tensor src, Tensor tgt) { return forward(src, tgt, null, null, null, null, null, null); }

    /**
     * {@code src [B, S, E]} (batch first; {@code [S, B, E]} otherwise) through the encoder (under {@code srcMask [S, S]} and
     * {@code srcKeyPaddingMask [B, S]}), then {@code tgt [B, T, E]} through the decoder attending to
     * it (under {@code tgtMask [T, T]}, {@code memoryMask [T, S]}, {@code tgtKeyPaddingMask [B, T]},
     * {@code memoryKeyPaddingMask [B, S]}); any mask may be null. Returns {@code [B, T, E]}.
     */
    public Tensor forward(Tensor src, Tensor tgt, Tensor srcMask, Tensor tgtMask, Tensor memoryMask,
                          Tensor srcKeyPaddingMask, Tensor tgtKeyPaddingMask, Tensor memoryKeyPaddingMask) {
        return forward(src, tgt, srcMask, tgtMask, memoryMask, srcKeyPaddingMask, tgtKeyPaddingMask, memoryKeyPaddingMask, false, false, false);
    }

    /** With PyTorch's {@code src_is_causal}, {@code tgt_is_causal} and {@code memory_is_causal} hints: the mask each names is the causal mask. */
    public Tensor forward(Tensor src, Tensor tgt, Tensor srcMask, Tensor tgtMask, Tensor memoryMask,
                          Tensor srcKeyPaddingMask, Tensor tgtKeyPaddingMask, Tensor memoryKeyPaddingMask,
                          boolean srcIsCausal, boolean tgtIsCausal, boolean memoryIsCausal) {
        int batchDim = isBatchFirst() ? 0 : 1;
        if (src.dim() != tgt.dim() || src.dim() != 3 || src.size(batchDim) != tgt.size(batchDim)) {
            throw new IllegalArgumentException("Transformer: the batch number of src and tgt must be equal (src " + dev.ember.tensor.Shapes.format(src.shape())
                    + ", tgt " + dev.ember.tensor.Shapes.format(tgt.shape()) + (batchDim == 0 ? "; batch first)" : "; sequence first)"));
        }
        if (src.size(2) != dModel || tgt.size(2) != dModel) {
            throw new IllegalArgumentException("Transformer: the feature number of src and tgt must be equal to d_model (" + dModel + "), got "
                    + src.size(2) + " and " + tgt.size(2));
        }
        Tensor memory = encoder.forward(src, srcMask, srcKeyPaddingMask, srcIsCausal);
        return decoder.forward(tgt, memory, tgtMask, memoryMask, tgtKeyPaddingMask, memoryKeyPaddingMask, tgtIsCausal, memoryIsCausal);
    }

    /** PyTorch's {@code nn.Transformer.generate_square_subsequent_mask}: -inf above the diagonal, 0 elsewhere. */
    public static Tensor generateSquareSubsequentMask(int size) { return MultiheadAttention.generateSquareSubsequentMask(size); }
}
