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
    public Parameter weight;

    /** PyTorch's default mode, {@code "mean"}. */
    public EmbeddingBag(int numEmbeddings, int embeddingDim) { this(numEmbeddings, embeddingDim, "mean", false); }

    public EmbeddingBag(int numEmbeddings, int embeddingDim, String mode) { this(numEmbeddings, embeddingDim, mode, false); }

    public EmbeddingBag(int numEmbeddings, int embeddingDim, String mode, boolean includeLastOffset) {
        if (!mode.equals("sum") && !mode.equals("mean") && !mode.equals("max")) throw new IllegalArgumentException("mode has to be one of sum, mean or max, but got " + mode);
        this.numEmbeddings = numEmbeddings;
        this.embeddingDim = embeddingDim;
        this.mode = mode;
        this.includeLastOffset = includeLastOffset;
        this.weight = new Parameter(Init.normalWithZeroRow(numEmbeddings, embeddingDim, -1));
    }

    /** Fixed-length bags: {@code input [B, N]}, one bag per row. */
    @Override
    public Tensor forward(Tensor input) { return forward(input, null, null); }

    /** Bags of {@code input} (1-d) starting at {@code offsets}. */
    public Tensor forward(Tensor input, Tensor offsets) { return forward(input, offsets, null); }

    /** With {@code perSampleWeights} (input's shape; mode "sum" only) scaling each embedding; may be null. */
    public Tensor forward(Tensor input, Tensor offsets, Tensor perSampleWeights) {
        return F.embeddingBag(input, weight, offsets, mode, perSampleWeights, includeLastOffset, null);
    }

    @Override
    protected String extraRepr() { return numEmbeddings + ", " + embeddingDim + ", mode='" + mode + "'"; }
}
