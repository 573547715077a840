package dev.ember.nn;

import dev.ember.tensor.Tensor;

import java.util.Arrays;
import java.util.List;

/**
 * Fractional max pooling over 3 dims, as PyTorch's {@code nn.FractionalMaxPool3d}: kernel
 * {kT, kH, kW}, and either an output size or an output ratio in (0, 1) of the input's size. Each
 * call draws new window offsets unless {@code randomSamples} ({@code _random_samples}, shape
 * {@code [N, C, 3]}, values in [0, 1)) fixes them; {@link #forwardWithIndices} also gives the
 * max's flat index within each plane ({@code return_indices}). See {@link FractionalMaxPooling}.
 */
public class FractionalMaxPool3d extends Module {
    private final int[] kernelSize;
    private final int[] outputSize;
    private final double[] outputRatio;
    /**
     * PyTorch's {@code _random_samples}: fixed window offsets, or null to draw them at each call. A
     * plain attribute in PyTorch, in no state dict: held untyped so it is not taken for a buffer.
     */
    private Object randomSamples;

    /** With an output size ({@code outputRatio} null) or an output ratio ({@code outputSize} null). */
    public FractionalMaxPool3d(int[] kernelSize, int[] outputSize, double[] outputRatio) {
        if (kernelSize.length != 3) throw new IllegalArgumentException("FractionalMaxPool3d: kernel_size must have 3 entries, got " + kernelSize.length);
        if (outputSize == null && outputRatio == null) {
            throw new IllegalArgumentException("FractionalMaxPool3d requires specifying either an output size, or a pooling ratio");
        }
        if (outputSize != null && outputRatio != null) throw new IllegalArgumentException("only one of output_size and output_ratio may be specified");
        if (outputRatio != null) {
            for (double r : outputRatio) {
                if (!(r > 0 && r < 1)) throw new IllegalArgumentException("output_ratio must be between 0 and 1 (got " + Arrays.toString(outputRatio).replace('[', '(').replace(']', ')') + ")");
            }
        }
        this.kernelSize = kernelSize.clone();
        this.outputSize = outputSize == null ? null : outputSize.clone();
        this.outputRatio = outputRatio == null ? null : outputRatio.clone();
    }

    /** With fixed window offsets ({@code _random_samples}, {@code [N, C, 3]} in [0, 1)). */
    public FractionalMaxPool3d(int[] kernelSize, int[] outputSize, double[] outputRatio, Tensor randomSamples) {
        this(kernelSize, outputSize, outputRatio);
        this.randomSamples = randomSamples;
    }

    public Tensor randomSamples() { return (Tensor) randomSamples; }

    /** Fixes the window offsets (null: draw them at each call). */
    public void randomSamples(Tensor samples) { this.randomSamples = samples; }

    @Override
    public Tensor forward(Tensor input) { return forwardWithIndices(input).get(0); }

    /** The pooled values and their indices ({@code return_indices=True}). */
    public List<Tensor> forwardWithIndices(Tensor input) {
        return FractionalMaxPooling.pool("fractional_max_pool3d", input, kernelSize, outputSize, outputRatio, (Tensor) randomSamples);
    }
}
