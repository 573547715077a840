package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * 3-d convolution over {@code [N, C, D, H, W]} (or unbatched {@code [C, D, H, W]}) input, as
 * PyTorch's {@code nn.Conv3d}: weight {@code [out, in/groups, kD, kH, kW]} and bias {@code [out]}
 * initialised uniform on ±1/sqrt(in/groups · kD · kH · kW); padding numbers or
 * {@code "same"}/{@code "valid"}, and a {@code paddingMode} (see {@link ConvNd}). Computed by
 * {@link F#conv3d}.
 */
public class Conv3d extends ConvNd {
    public Conv3d(int inChannels, int outChannels, int kernelSize) { this(inChannels, outChannels, kernelSize, 1, 0); }

    public Conv3d(int inChannels, int outChannels, int kernelSize, int stride, int padding) {
        this(inChannels, outChannels, kernelSize, stride, padding, 1, 1, true);
    }

    public Conv3d(int inChannels, int outChannels, int kernelSize, int stride, int padding, int dilation, int groups, boolean bias) {
        this(inChannels, outChannels, triple(kernelSize), triple(stride), triple(padding), triple(dilation), groups, bias);
    }

    /** Per-dimension sizes are {depth, height, width}. */
    public Conv3d(int inChannels, int outChannels, int[] kernelSize, int[] stride, int[] padding, int[] dilation, int groups, boolean bias) {
        this(inChannels, outChannels, kernelSize, stride, padding, dilation, groups, bias, "zeros");
    }

    /** Per-dimension sizes are {depth, height, width}; {@code paddingMode} "zeros", "reflect", "replicate" or "circular". */
    public Conv3d(int inChannels, int outChannels, int[] kernelSize, int[] stride, int[] padding, int[] dilation, int groups, boolean bias, String paddingMode) {
        super(3, inChannels, outChannels, kernelSize, stride, padding, null, dilation, groups, bias, paddingMode);
    }

    /**
     * torch's {@code nn.Conv3d(in, out, k, padding='same')} with one size for every dimension:
     * {@code padding} is "same" (stride 1 only) or "valid".
     */
    public Conv3d(int inChannels, int outChannels, int kernelSize, int stride, String padding, int dilation, int groups, boolean bias, String paddingMode) {
        this(inChannels, outChannels, triple(kernelSize), triple(stride), padding, triple(dilation), groups, bias, paddingMode);
    }

    /** {@code padding} is "same" (stride 1 only) or "valid"; per-dimension sizes are {depth, height, width}. */
    public Conv3d(int inChannels, int outChannels, int[] kernelSize, int[] stride, String padding, int[] dilation, int groups, boolean bias, String paddingMode) {
        super(3, inChannels, outChannels, kernelSize, stride, null, padding, dilation, groups, bias, paddingMode);
    }

    static int[] triple(int v) { return new int[] {v, v, v}; }

    @Override
    Tensor conv(Tensor input, Tensor weight, Tensor bias, int[] stride, int[] padding, int[] dilation, int groups) {
        return F.conv3d(input, weight, bias, stride, padding, dilation, groups);
    }

    @Override
    Tensor conv(Tensor input, Tensor weight, Tensor bias, int[] stride, String padding, int[] dilation, int groups) {
        return F.conv3d(input, weight, bias, stride, padding, dilation, groups);
    }
}
