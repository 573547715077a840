package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * 3-d convolution over {@code [N, C, D, H, W]} input, as PyTorch's {@code nn.Conv3d} with zero
 * padding: weight {@code [out, in/groups, kD, kH, kW]} and bias {@code [out]} initialised uniform
 * on ±1/sqrt(in/groups · kD · kH · kW).
 */
public class Conv3d extends Module {
    public final int inChannels;
    public final int outChannels;
    private final int[] kernelSize;
    private final int[] stride;
    private final int[] padding;
    private final int[] dilation;
    public final int groups;
    public Parameter weight;
    /** Null when built with {@code bias = false}. */
    public Parameter bias;

    public Conv3d(int inChannels, int outChannels, int kernelSize) { this(inChannels, outChannels, kernelSize, 1, 0); }

    public Conv3d(int inChannels, int outChannels, int kernelSize, int stride, int padding) {
        this(inChannels, outChannels, kernelSize, stride, padding, 1, 1, true);
    }

    public Conv3d(int inChannels, int outChannels, int kernelSize, int stride, int padding, int dilation, int groups, boolean bias) {
        this(inChannels, outChannels, triple(kernelSize), triple(stride), triple(padding), triple(dilation), groups, bias);
    }

    /** Per-dimension sizes are {depth, height, width}. */
    public Conv3d(int inChannels, int outChannels, int[] kernelSize, int[] stride, int[] padding, int[] dilation, int groups, boolean bias) {
        if (groups <= 0) throw new IllegalArgumentException("Conv3d: groups must be a positive integer, got " + groups);
        if (inChannels % groups != 0) throw new IllegalArgumentException("Conv3d: in_channels (" + inChannels + ") must be divisible by groups (" + groups + ")");
        if (outChannels % groups != 0) throw new IllegalArgumentException("Conv3d: out_channels (" + outChannels + ") must be divisible by groups (" + groups + ")");
        this.inChannels = inChannels;
        this.outChannels = outChannels;
        this.kernelSize = checkTriple("kernel_size", kernelSize);
        this.stride = checkTriple("stride", stride);
        this.padding = checkTriple("padding", padding);
        this.dilation = checkTriple("dilation", dilation);
        this.groups = groups;
        int[] k = this.kernelSize;
        int fanIn = inChannels / groups * k[0] * k[1] * k[2];
        this.weight = new Parameter(Init.fanInUniform(fanIn, outChannels, inChannels / groups, k[0], k[1], k[2]));
        this.bias = bias ? new Parameter(Init.fanInUniform(fanIn, outChannels)) : null;
    }

    static int[] triple(int v) { return new int[] {v, v, v}; }

    private static int[] checkTriple(String what, int[] v) {
        if (v.length != 3) throw new IllegalArgumentException("Conv3d: " + what + " must have 3 entries {depth, height, width}, got " + v.length);
        return v.clone();
    }

    public int[] kernelSize() { return kernelSize.clone(); }

    public int[] stride() { return stride.clone(); }

    public int[] padding() { return padding.clone(); }

    public int[] dilation() { return dilation.clone(); }

    @Override
    public Tensor forward(Tensor input) { return F.conv3d(input, weight, bias, stride, padding, dilation, groups); }

    @Override
    protected String extraRepr() {
        StringBuilder s = new StringBuilder().append(inChannels).append(", ").append(outChannels)
                .append(", kernel_size=").append(Repr.tuple(kernelSize)).append(", stride=").append(Repr.tuple(stride));
        if (padding[0] != 0 || padding[1] != 0 || padding[2] != 0) s.append(", padding=").append(Repr.tuple(padding));
        if (dilation[0] != 1 || dilation[1] != 1 || dilation[2] != 1) s.append(", dilation=").append(Repr.tuple(dilation));
        if (groups != 1) s.append(", groups=").append(groups);
        if (bias == null) s.append(", bias=False");
        return s.toString();
    }
}
