package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Fractional max pooling over 2 dims, as PyTorch's {@code nn.FractionalMaxPool2d}: kernel
 * {kH, kW}, and either an output size or an output ratio in (0, 1) of the input's size. Each
 * call draws new window offsets unless {@code randomSamples} ({@code _random_samples}, shape
 * {@code [N, C, 2]}, values in [0, 1)) fixes them; {@link #forwardWithIndices} also gives the
 * max's flat index within each plane ({@code return_indices}). See {@link FractionalMaxPooling}.
 */
public class FractionalMaxPool2d extends FractionalMaxPoolNd {

    /** With an output size ({@code outputRatio} null) or an output ratio ({@code outputSize} null). */
    public FractionalMaxPool2d(int[] kernelSize, int[] outputSize, double[] outputRatio) {
        super(2, kernelSize, outputSize, outputRatio, null);
    }

    /** With fixed window offsets ({@code _random_samples}, {@code [N, C, 2]} in [0, 1)). */
    public FractionalMaxPool2d(int[] kernelSize, int[] outputSize, double[] outputRatio, Tensor randomSamples) {
        super(2, kernelSize, outputSize, outputRatio, randomSamples);
    }
}
