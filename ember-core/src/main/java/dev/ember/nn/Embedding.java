package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * A lookup table of {@code numEmbeddings} rows of size {@code embeddingDim}, as PyTorch's
 * {@code nn.Embedding}: weight standard normal, the {@code paddingIdx} row (if any) zero.
 */
public class Embedding extends Module {
    public final int numEmbeddings;
    public final int embeddingDim;
    /** The padding row, in [0, numEmbeddings); -1 when there is none. */
    public final int paddingIdx;
    public Parameter weight;

    public Embedding(int numEmbeddings, int embeddingDim) { this(numEmbeddings, embeddingDim, null); }

    /** {@code paddingIdx} may be negative (counted from the end) or null. */
    public Embedding(int numEmbeddings, int embeddingDim, Integer paddingIdx) {
        this.numEmbeddings = numEmbeddings;
        this.embeddingDim = embeddingDim;
        this.paddingIdx = paddingIdx == null ? -1 : normalize(paddingIdx, numEmbeddings);
        this.weight = new Parameter(Init.normalWithZeroRow(numEmbeddings, embeddingDim, this.paddingIdx));
    }

    private static int normalize(int idx, int n) {
        if (idx >= n || idx < -n) throw new IllegalArgumentException("Embedding: padding_idx (" + idx + ") must be within num_embeddings (" + n + ")");
        return idx < 0 ? idx + n : idx;
    }

    /** Rows of the weight at {@code indices} (int32 or int64): shape {@code indices.shape + [embeddingDim]}. */
    @Override
    public Tensor forward(Tensor indices) { return F.embedding(indices, read("weight", weight), paddingIdx); }

    @Override
    protected String extraRepr() {
        return numEmbeddings + ", " + embeddingDim + (paddingIdx >= 0 ? ", padding_idx=" + paddingIdx : "");
    }
}
