package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * The transposed 1-d convolution (upsampling a sequence by a learned kernel), as PyTorch's
 * {@code nn.ConvTranspose1d}: weight {@code [in, out/groups, k]} and bias {@code [out]} initialised
 * uniform on ±1/sqrt(out/groups · k) (PyTorch's fan-in of the transposed weight). Computed by
 * {@link F#convTranspose1d}.
 */
public class ConvTranspose1d extends ConvTransposeNd {
    public ConvTranspose1d(int inChannels, int outChannels, int kernelSize) { this(inChannels, outChannels, kernelSize, 1, 0, 0, 1, true, 1); }

    public ConvTranspose1d(int inChannels, int outChannels, int kernelSize, int stride, int padding) {
        this(inChannels, outChannels, kernelSize, stride, padding, 0, 1, true, 1);
    }

    public ConvTranspose1d(int inChannels, int outChannels, int kernelSize, int stride, int padding, int outputPadding, int groups, boolean bias, int dilation) {
        super(1, inChannels, outChannels, kernelSize, stride, padding, outputPadding, groups, bias, dilation);
    }

    @Override
    public Tensor forward(Tensor input) { return F.convTranspose1d(input, read("weight", weight), read("bias", bias), stride, padding, outputPadding, groups, dilation); }
}
