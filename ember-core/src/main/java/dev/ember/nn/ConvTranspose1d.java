package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * The transposed 1-d convolution (upsampling a sequence by a learned kernel), as PyTorch's
 * {@code nn.ConvTranspose1d}: weight {@code [in, out/groups, k]} and bias {@code [out]} initialised
 * uniform on ±1/sqrt(out/groups · k) (PyTorch's fan-in of the transposed weight). Computed by
 * {@link F#convTranspose1d}.
 */
public class ConvTranspose1d extends Module {
    public final int inChannels;
    public final int outChannels;
    public final int kernelSize;
    public final int stride;
    public final int padding;
    public final int outputPadding;
    public final int groups;
    public final int dilation;
    public Parameter weight;
    /** Null when built with {@code bias = false}. */
    public Parameter bias;

    public ConvTranspose1d(int inChannels, int outChannels, int kernelSize) { this(inChannels, outChannels, kernelSize, 1, 0, 0, 1, true, 1); }

    public ConvTranspose1d(int inChannels, int outChannels, int kernelSize, int stride, int padding) {
        this(inChannels, outChannels, kernelSize, stride, padding, 0, 1, true, 1);
    }

    public ConvTranspose1d(int inChannels, int outChannels, int kernelSize, int stride, int padding, int outputPadding, int groups, boolean bias, int dilation) {
        if (groups <= 0) throw new IllegalArgumentException("ConvTranspose1d: groups must be a positive integer, got " + groups);
        if (inChannels % groups != 0) throw new IllegalArgumentException("ConvTranspose1d: in_channels (" + inChannels + ") must be divisible by groups (" + groups + ")");
        if (outChannels % groups != 0) throw new IllegalArgumentException("ConvTranspose1d: out_channels (" + outChannels + ") must be divisible by groups (" + groups + ")");
        this.inChannels = inChannels;
        this.outChannels = outChannels;
        this.kernelSize = kernelSize;
        this.stride = stride;
        this.padding = padding;
        this.outputPadding = outputPadding;
        this.groups = groups;
        this.dilation = dilation;
        int fanIn = outChannels / groups * kernelSize;
        this.weight = new Parameter(Init.fanInUniform(fanIn, inChannels, outChannels / groups, kernelSize));
        this.bias = bias ? new Parameter(Init.fanInUniform(fanIn, outChannels)) : null;
    }

    @Override
    public Tensor forward(Tensor input) { return F.convTranspose1d(input, weight, bias, stride, padding, outputPadding, groups, dilation); }

    @Override
    protected String extraRepr() {
        StringBuilder sb = new StringBuilder().append(inChannels).append(", ").append(outChannels)
                .append(", kernel_size=(").append(kernelSize).append(",), stride=(").append(stride).append(",)");
        if (padding != 0) sb.append(", padding=(").append(padding).append(",)");
        if (outputPadding != 0) sb.append(", output_padding=(").append(outputPadding).append(",)");
        if (dilation != 1) sb.append(", dilation=(").append(dilation).append(",)");
        if (groups != 1) sb.append(", groups=").append(groups);
        if (bias == null) sb.append(", bias=False");
        return sb.toString();
    }
}
