package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * 1-d convolution over {@code [N, C, L]} (or unbatched {@code [C, L]}) input, as PyTorch's
 * {@code nn.Conv1d}: weight {@code [out, in/groups, k]} and bias {@code [out]} initialised uniform
 * on ±1/sqrt(in/groups · k); padding a number or {@code "same"}/{@code "valid"}, and a
 * {@code paddingMode} (see {@link ConvNd}). Computed by {@link F#conv1d}.
 */
public class Conv1d extends ConvNd {
    public final int kernelSize;
    public final int stride;
    /** With padding {@code "same"}, the left amount (see {@link ConvNd#padding()}). */
    public final int padding;
    public final int dilation;

    public Conv1d(int inChannels, int outChannels, int kernelSize) { this(inChannels, outChannels, kernelSize, 1, 0, 1, 1, true); }

    public Conv1d(int inChannels, int outChannels, int kernelSize, int stride, int padding) {
        this(inChannels, outChannels, kernelSize, stride, padding, 1, 1, true);
    }

    public Conv1d(int inChannels, int outChannels, int kernelSize, int stride, int padding, int dilation, int groups, boolean bias) {
        this(inChannels, outChannels, kernelSize, stride, padding, dilation, groups, bias, "zeros");
    }

    /** {@code paddingMode}: "zeros", "reflect", "replicate" or "circular". */
    public Conv1d(int inChannels, int outChannels, int kernelSize, int stride, int padding, int dilation, int groups, boolean bias, String paddingMode) {
        super(1, inChannels, outChannels, new int[] {kernelSize}, new int[] {stride}, new int[] {padding}, null, new int[] {dilation}, groups, bias, paddingMode);
        this.kernelSize = kernelSize;
        this.stride = stride;
        this.padding = padding;
        this.dilation = dilation;
    }

    /** {@code padding} is "same" (stride 1 only) or "valid"; {@code paddingMode} "zeros", "reflect", "replicate" or "circular". */
    public Conv1d(int inChannels, int outChannels, int kernelSize, int stride, String padding, int dilation, int groups, boolean bias, String paddingMode) {
        super(1, inChannels, outChannels, new int[] {kernelSize}, new int[] {stride}, null, padding, new int[] {dilation}, groups, bias, paddingMode);
        this.kernelSize = kernelSize;
        this.stride = stride;
        this.padding = padding()[0];
        this.dilation = dilation;
    }

    @Override
    Tensor conv(Tensor input, Tensor weight, Tensor bias, int[] stride, int[] padding, int[] dilation, int groups) {
        return F.conv1d(input, weight, bias, stride[0], padding[0], dilation[0], groups);
    }

    @Override
    Tensor conv(Tensor input, Tensor weight, Tensor bias, int[] stride, String padding, int[] dilation, int groups) {
        return F.conv1d(input, weight, bias, stride[0], padding, dilation[0], groups);
    }
}
