package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Sums, means or maxima of bags of embeddings, as PyTorch's {@code nn.EmbeddingBag}
 * ({@link F#embeddingBag}): weight standard normal; mode {@code "mean"} unless given.
 * <pre>{@code
 * var bag = new EmbeddingBag(1000, 16, "sum");
 * Tensor out = bag.forward(Tensor.ofLongs(4, 7, 1, 9, 9), Tensor.ofLongs(0, 2));   // two bags: [4, 7] and [1, 9, 9]
 * }</pre>
 */
public class EmbeddingBag extends Module {
    public final int numEmbeddings;
    public final int embeddingDim;
    public final String mode;
    public final boolean includeLastOffset;
    /** The padding row in [0, numEmbeddings), or null when there is none. */
    public final Integer paddingIdx;
    public Parameter weight;

    /** PyTorch's default mode, {@code "mean"}. */
    public EmbeddingBag(int numEmbeddings, int embeddingDim) { this(numEmbeddings, embeddingDim, "mean", false); }

    public EmbeddingBag(int numEmbeddings, int embeddingDim, String mode) { this(numEmbeddings, embeddingDim, mode, false); }

    public EmbeddingBag(int numEmbeddings, int embeddingDim, String mode, boolean includeLastOffset) { this(numEmbeddings, embeddingDim, mode, includeLastOffset, null); }

    /**
     * With PyTorch's {@code padding_idx} (null for none; negative counts from the end): that row
     * starts at zero, and its indices are left out of every bag (not counted in a mean).
     */
    public EmbeddingBag(int numEmbeddings, int embeddingDim, String mode, boolean includeLastOffset, Integer paddingIdx) {
        if (!mode.equals("sum") && !mode.equals("mean") && !mode.equals("max")) throw new IllegalArgumentException("mode has to be one of sum, mean or max, but got " + mode);
        if (paddingIdx != null && (paddingIdx >= numEmbeddings || paddingIdx < -numEmbeddings)) {
            throw new IllegalArgumentException("EmbeddingBag: padding_idx must be within num_embeddings (padding_idx " + paddingIdx + ", num_embeddings " + numEmbeddings + ")");
        }
        this.numEmbeddings = numEmbeddings;
        this.embeddingDim = embeddingDim;
        this.mode = mode;
        this.includeLastOffset = includeLastOffset;
        this.paddingIdx = paddingIdx == null ? null : paddingIdx < 0 ? numEmbeddings + paddingIdx : paddingIdx;
        this.weight = new Parameter(Init.normalWithZeroRow(numEmbeddings, embeddingDim, this.paddingIdx == null ? -1 : this.paddingIdx));
    }

    /** Fixed-length bags: {@code input [B, N]}, one bag per row. */
    @Override
    public Tensor forward(Tensor input) { return forward(input, null, null); }

    /** Bags of {@code input} (1-d) starting at {@code offsets}. */
    public Tensor forward(Tensor input, Tensor offsets) { return forward(input, offsets, null); }

    /** With {@code perSampleWeights} (input's shape; mode "sum" only) scaling each embedding; may be null. */
    public Tensor forward(Tensor input, Tensor offsets, Tensor perSampleWeights) {
        return F.embeddingBag(input, read("weight", weight), offsets, mode, perSampleWeights, includeLastOffset, paddingIdx);
    }

    @Override
    protected String extraRepr() { return numEmbeddings + ", " + embeddingDim + ", mode='" + mode + "'" + (paddingIdx == null ? "" : ", padding_idx=" + paddingIdx); }
}
