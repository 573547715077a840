package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Layer normalization over the last dimensions ({@code normalizedShape}), as PyTorch's
 * {@code nn.LayerNorm}: weight ones and bias zeros of that shape when {@code elementwiseAffine}.
 */
public class LayerNorm extends Module {
    private final int[] normalizedShape;
    public final double eps;
    public final boolean elementwiseAffine;
    /** Null without {@code elementwiseAffine}; {@code bias} also null when built with {@code bias = false}. */
    public Parameter weight;
    public Parameter bias;

    public LayerNorm(int normalizedShape) { this(new int[] {normalizedShape}, 1e-5, true, true); }

    public LayerNorm(int normalizedShape, double eps) { this(new int[] {normalizedShape}, eps, true, true); }

    public LayerNorm(int[] normalizedShape, double eps, boolean elementwiseAffine, boolean bias) {
        this.normalizedShape = normalizedShape.clone();
        this.eps = eps;
        this.elementwiseAffine = elementwiseAffine;
        if (elementwiseAffine) {
            this.weight = new Parameter(Tensor.ones(normalizedShape));
            this.bias = bias ? new Parameter(Tensor.zeros(normalizedShape)) : null;
        }
    }

    public int[] normalizedShape() { return normalizedShape.clone(); }

    @Override
    public Tensor forward(Tensor input) { return F.layerNorm(input, normalizedShape, read("weight", weight), read("bias", bias), eps); }

    @Override
    protected String extraRepr() {
        return Repr.tuple(normalizedShape) + ", eps=" + Repr.number(eps) + ", elementwise_affine=" + Repr.bool(elementwiseAffine);
    }
}
