package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Group normalization of (N, C, …) input over {@code numGroups} groups of channels, as PyTorch's
 * {@code nn.GroupNorm}: weight ones and bias zeros of size C when {@code affine}.
 */
public class GroupNorm extends Module {
    public final int numGroups;
    public final int numChannels;
    public final double eps;
    public final boolean affine;
    /** Null without {@code affine}. */
    public Parameter weight;
    public Parameter bias;

    public GroupNorm(int numGroups, int numChannels) { this(numGroups, numChannels, 1e-5, true); }

    public GroupNorm(int numGroups, int numChannels, double eps, boolean affine) {
        if (numGroups <= 0 || numChannels % numGroups != 0) {
            throw new IllegalArgumentException("GroupNorm: num_channels must be divisible by num_groups (got num_channels=" + numChannels + ", num_groups=" + numGroups + ")");
        }
        this.numGroups = numGroups;
        this.numChannels = numChannels;
        this.eps = eps;
        this.affine = affine;
        if (affine) {
            this.weight = new Parameter(Tensor.ones(numChannels));
            this.bias = new Parameter(Tensor.zeros(numChannels));
        }
    }

    @Override
    public Tensor forward(Tensor input) { return F.groupNorm(input, numGroups, read("weight", weight), read("bias", bias), eps); }

    @Override
    protected String extraRepr() { return numGroups + ", " + numChannels + ", eps=" + Repr.number(eps) + ", affine=" + Repr.bool(affine); }
}
