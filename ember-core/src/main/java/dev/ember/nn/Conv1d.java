package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * 1-d convolution over {@code [N, C, L]} (or unbatched {@code [C, L]}) input, as PyTorch's
 * {@code nn.Conv1d} with zero padding: weight {@code [out, in/groups, k]} and bias {@code [out]}
 * initialised uniform on ±1/sqrt(in/groups · k). Computed by {@link F#conv1d}.
 */
public class Conv1d extends Module {
    public final int inChannels;
    public final int outChannels;
    public final int kernelSize;
    public final int stride;
    public final int padding;
    public final int dilation;
    public final int groups;
    public Parameter weight;
    /** Null when built with {@code bias = false}. */
    public Parameter bias;

    public Conv1d(int inChannels, int outChannels, int kernelSize) { this(inChannels, outChannels, kernelSize, 1, 0, 1, 1, true); }

    public Conv1d(int inChannels, int outChannels, int kernelSize, int stride, int padding) {
        this(inChannels, outChannels, kernelSize, stride, padding, 1, 1, true);
    }

    public Conv1d(int inChannels, int outChannels, int kernelSize, int stride, int padding, int dilation, int groups, boolean bias) {
        if (groups <= 0) throw new IllegalArgumentException("Conv1d: groups must be a positive integer, got " + groups);
        if (inChannels % groups != 0) throw new IllegalArgumentException("Conv1d: in_channels (" + inChannels + ") must be divisible by groups (" + groups + ")");
        if (outChannels % groups != 0) throw new IllegalArgumentException("Conv1d: out_channels (" + outChannels + ") must be divisible by groups (" + groups + ")");
        if (kernelSize <= 0) throw new IllegalArgumentException("Conv1d: kernel_size must be positive, got " + kernelSize);
        this.inChannels = inChannels;
        this.outChannels = outChannels;
        this.kernelSize = kernelSize;
        this.stride = stride;
        this.padding = padding;
        this.dilation = dilation;
        this.groups = groups;
        int fanIn = inChannels / groups * kernelSize;
        this.weight = new Parameter(Init.fanInUniform(fanIn, outChannels, inChannels / groups, kernelSize));
        this.bias = bias ? new Parameter(Init.fanInUniform(fanIn, outChannels)) : null;
    }

    @Override
    public Tensor forward(Tensor input) { return F.conv1d(input, weight, bias, stride, padding, dilation, groups); }

    @Override
    protected String extraRepr() {
        StringBuilder sb = new StringBuilder().append(inChannels).append(", ").append(outChannels)
                .append(", kernel_size=(").append(kernelSize).append(",), stride=(").append(stride).append(",)");
        if (padding != 0) sb.append(", padding=(").append(padding).append(",)");
        if (dilation != 1) sb.append(", dilation=(").append(dilation).append(",)");
        if (groups != 1) sb.append(", groups=").append(groups);
        if (bias == null) sb.append(", bias=False");
        return sb.toString();
    }
}
