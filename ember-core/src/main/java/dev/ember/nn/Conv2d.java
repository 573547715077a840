package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * 2-d convolution over {@code [N, C, H, W]} input, as PyTorch's {@code nn.Conv2d} with zero
 * padding: weight {@code [out, in/groups, kH, kW]} and bias {@code [out]} initialised uniform
 * on ±1/sqrt(in/groups · kH · kW).
 */
public class Conv2d extends Module {
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

    public Conv2d(int inChannels, int outChannels, int kernelSize) { this(inChannels, outChannels, kernelSize, 1, 0); }

    public Conv2d(int inChannels, int outChannels, int kernelSize, int stride, int padding) {
        this(inChannels, outChannels, kernelSize, stride, padding, 1, 1, true);
    }

    public Conv2d(int inChannels, int outChannels, int kernelSize, int stride, int padding, int dilation, int groups, boolean bias) {
        this(inChannels, outChannels, pair(kernelSize), pair(stride), pair(padding), pair(dilation), groups, bias);
    }

    /** Per-dimension sizes are {height, width}. */
    public Conv2d(int inChannels, int outChannels, int[] kernelSize, int[] stride, int[] padding, int[] dilation, int groups, boolean bias) {
        if (groups <= 0) throw new IllegalArgumentException("Conv2d: groups must be a positive integer, got " + groups);
        if (inChannels % groups != 0) throw new IllegalArgumentException("Conv2d: in_channels (" + inChannels + ") must be divisible by groups (" + groups + ")");
        if (outChannels % groups != 0) throw new IllegalArgumentException("Conv2d: out_channels (" + outChannels + ") must be divisible by groups (" + groups + ")");
        this.inChannels = inChannels;
        this.outChannels = outChannels;
        this.kernelSize = checkPair("kernel_size", kernelSize);
        this.stride = checkPair("stride", stride);
        this.padding = checkPair("padding", padding);
        this.dilation = checkPair("dilation", dilation);
        this.groups = groups;
        int fanIn = inChannels / groups * this.kernelSize[0] * this.kernelSize[1];
        this.weight = new Parameter(Init.fanInUniform(fanIn, outChannels, inChannels / groups, this.kernelSize[0], this.kernelSize[1]));
        this.bias = bias ? new Parameter(Init.fanInUniform(fanIn, outChannels)) : null;
    }

    static int[] pair(int v) { return new int[] {v, v}; }

    private static int[] checkPair(String what, int[] v) {
        if (v.length != 2) throw new IllegalArgumentException("Conv2d: " + what + " must have 2 entries {height, width}, got " + v.length);
        return v.clone();
    }

    public int[] kernelSize() { return kernelSize.clone(); }

    public int[] stride() { return stride.clone(); }

    public int[] padding() { return padding.clone(); }

    public int[] dilation() { return dilation.clone(); }

    @Override
    public Tensor forward(Tensor input) { return F.conv2d(input, weight, bias, stride, padding, dilation, groups); }

    @Override
    protected String extraRepr() {
        StringBuilder s = new StringBuilder().append(inChannels).append(", ").append(outChannels)
                .append(", kernel_size=").append(Repr.tuple(kernelSize)).append(", stride=").append(Repr.tuple(stride));
        if (padding[0] != 0 || padding[1] != 0) s.append(", padding=").append(Repr.tuple(padding));
        if (dilation[0] != 1 || dilation[1] != 1) s.append(", dilation=").append(Repr.tuple(dilation));
        if (groups != 1) s.append(", groups=").append(groups);
        if (bias == null) s.append(", bias=False");
        return s.toString();
    }
}
