package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Root-mean-square normalization over the last dimensions ({@code normalizedShape}), as PyTorch's
 * {@code nn.RMSNorm}: {@code x · rsqrt(mean(x²) + eps) · weight}, weight ones of that shape when
 * {@code elementwiseAffine}; eps null is the input dtype's machine epsilon, as PyTorch's default.
 */
public class RMSNorm extends Module {
    private final int[] normalizedShape;
    /** Null: the input dtype's machine epsilon. */
    public final Double eps;
    public final boolean elementwiseAffine;
    /** Null without {@code elementwiseAffine}. */
    public Parameter weight;

    public RMSNorm(int normalizedShape) { this(new int[] {normalizedShape}, null, true); }

    public RMSNorm(int normalizedShape, double eps) { this(new int[] {normalizedShape}, eps, true); }

    public RMSNorm(int[] normalizedShape, Double eps, boolean elementwiseAffine) {
        this.normalizedShape = normalizedShape.clone();
        this.eps = eps;
        this.elementwiseAffine = elementwiseAffine;
        if (elementwiseAffine) this.weight = new Parameter(Tensor.ones(normalizedShape));
    }

    public int[] normalizedShape() { return normalizedShape.clone(); }

    @Override
    public Tensor forward(Tensor input) { return F.rmsNorm(input, normalizedShape, read("weight", weight), eps); }

    @Override
    protected String extraRepr() {
        return Repr.tuple(normalizedShape) + ", eps=" + (eps == null ? "None" : Repr.number(eps)) + ", elementwise_affine=" + Repr.bool(elementwiseAffine);
    }
}
