package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** The cosine similarity of two inputs along {@code dim}, as PyTorch's {@code nn.CosineSimilarity} (dim 1, eps 1e-8); see {@link F#cosineSimilarity}. */
public class CosineSimilarity extends Module {
    public final int dim;
    public final double eps;

    public CosineSimilarity() { this(1, 1e-8); }

    public CosineSimilarity(int dim, double eps) {
        this.dim = dim;
        this.eps = eps;
    }

    public Tensor forward(Tensor x1, Tensor x2) { return F.cosineSimilarity(x1, x2, dim, eps); }
}
