package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Fractional max pooling over 3 dims, as PyTorch's {@code nn.FractionalMaxPool3d}: kernel
 * {kT, kH, kW}, and either an output size or an output ratio in (0, 1) of the input's size. Each
 * call draws new window offsets unless {@code randomSamples} ({@code _random_samples}, shape
 * {@code [N, C, 3]}, values in [0, 1)) fixes them; {@link #forwardWithIndices} also gives the
 * max's flat index within each plane ({@code return_indices}). See {@link FractionalMaxPooling}.
 */
public class FractionalMaxPool3d extends FractionalMaxPoolNd {

    /** With an output size ({@code outputRatio} null) or an output ratio ({@code outputSize} null). */
    public FractionalMaxPool3d(int[] kernelSize, int[] outputSize, double[] outputRatio) {
        super(3, kernelSize, outputSize, outputRatio, null);
    }

    /** With fixed window offsets ({@code _random_samples}, {@code [N, C, 3]} in [0, 1)). */
    public FractionalMaxPool3d(int[] kernelSize, int[] outputSize, double[] outputRatio, Tensor randomSamples) {
        super(3, kernelSize, outputSize, outputRatio, randomSamples);
    }
}
