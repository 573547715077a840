package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * The transposed 3-d convolution, as PyTorch's {@code nn.ConvTranspose3d}: weight
 * {@code [in, out/groups, k, k, k]} and bias {@code [out]} initialised uniform on
 * ±1/sqrt(out/groups · k³) (PyTorch's fan-in of the transposed weight). Computed by {@link F#convTranspose3d}.
 */
public class ConvTranspose3d extends ConvTransposeNd {
    public ConvTranspose3d(int inChannels, int outChannels, int kernelSize) { this(inChannels, outChannels, kernelSize, 1, 0, 0, 1, true, 1); }

    public ConvTranspose3d(int inChannels, int outChannels, int kernelSize, int stride, int padding) {
        this(inChannels, outChannels, kernelSize, stride, padding, 0, 1, true, 1);
    }

    public ConvTranspose3d(int inChannels, int outChannels, int kernelSize, int stride, int padding, int outputPadding, int groups, boolean bias, int dilation) {
        super(3, inChannels, outChannels, kernelSize, stride, padding, outputPadding, groups, bias, dilation);
    }

    @Override
    public Tensor forward(Tensor input) { return F.convTranspose3d(input, read("weight", weight), read("bias", bias), stride, padding, outputPadding, groups, dilation); }
}
