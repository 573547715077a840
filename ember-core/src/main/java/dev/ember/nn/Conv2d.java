package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * 2-d convolution over {@code [N, C, H, W]} (or unbatched {@code [C, H, W]}) input, as PyTorch's
 * {@code nn.Conv2d}: weight {@code [out, in/groups, kH, kW]} and bias {@code [out]} initialised
 * uniform on ±1/sqrt(in/groups · kH · kW); padding numbers or {@code "same"}/{@code "valid"}, and
 * a {@code paddingMode} (see {@link ConvNd}). Computed by {@link F#conv2d}.
 */
public class Conv2d extends ConvNd {
    public Conv2d(int inChannels, int outChannels, int kernelSize) { this(inChannels, outChannels, kernelSize, 1, 0); }

    public Conv2d(int inChannels, int outChannels, int kernelSize, int stride, int padding) {
        this(inChannels, outChannels, kernelSize, stride, padding, 1, 1, true);
    }

    public Conv2d(int inChannels, int outChannels, int kernelSize, int stride, int padding, int dilation, int groups, boolean bias) {
        this(inChannels, outChannels, pair(kernelSize), pair(stride), pair(padding), pair(dilation), groups, bias);
    }

    /** Per-dimension sizes are {height, width}. */
    public Conv2d(int inChannels, int outChannels, int[] kernelSize, int[] stride, int[] padding, int[] dilation, int groups, boolean bias) {
        this(inChannels, outChannels, kernelSize, stride, padding, dilation, groups, bias, "zeros");
    }

    /** Per-dimension sizes are {height, width}; {@code paddingMode} "zeros", "reflect", "replicate" or "circular". */
    public Conv2d(int inChannels, int outChannels, int[] kernelSize, int[] stride, int[] padding, int[] dilation, int groups, boolean bias, String paddingMode) {
        super(2, inChannels, outChannels, kernelSize, stride, padding, null, dilation, groups, bias, paddingMode);
    }

    /**
     * torch's {@code nn.Conv2d(in, out, k, padding='same')} with one size for every dimension:
     * {@code padding} is "same" (stride 1 only) or "valid".
     */
    public Conv2d(int inChannels, int outChannels, int kernelSize, int stride, String padding, int dilation, int groups, boolean bias, String paddingMode) {
        this(inChannels, outChannels, pair(kernelSize), pair(stride), padding, pair(dilation), groups, bias, paddingMode);
    }

    /** {@code padding} is "same" (stride 1 only) or "valid"; per-dimension sizes are {height, width}. */
    public Conv2d(int inChannels, int outChannels, int[] kernelSize, int[] stride, String padding, int[] dilation, int groups, boolean bias, String paddingMode) {
        super(2, inChannels, outChannels, kernelSize, stride, null, padding, dilation, groups, bias, paddingMode);
    }

    static int[] pair(int v) { return new int[] {v, v}; }

    @Override
    Tensor conv(Tensor input, Tensor weight, Tensor bias, int[] stride, int[] padding, int[] dilation, int groups) {
        return F.conv2d(input, weight, bias, stride, padding, dilation, groups);
    }

    @Override
    Tensor conv(Tensor input, Tensor weight, Tensor bias, int[] stride, String padding, int[] dilation, int groups) {
        return F.conv2d(input, weight, bias, stride, padding, dilation, groups);
    }
}
