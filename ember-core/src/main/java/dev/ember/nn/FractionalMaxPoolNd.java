package dev.ember.nn;

import dev.ember.tensor.Tensor;

import java.util.Arrays;
import java.util.List;

/**
 * What {@link FractionalMaxPool2d} and {@link FractionalMaxPool3d} share: the kernel, either an
 * output size or an output ratio in (0, 1) of the input's size, the fixed window offsets if any
 * ({@code _random_samples}, shape {@code [N, C, dims]}, values in [0, 1); else each call draws
 * new ones), and {@link #forwardWithIndices} ({@code return_indices}). See {@link FractionalMaxPooling}.
 */
public abstract class FractionalMaxPoolNd extends Module {
    private final int dims;
    private final int[] kernelSize;
    private final int[] outputSize;
    private final double[] outputRatio;
    /**
     * PyTorch's {@code _random_samples}: fixed window offsets, or null to draw them at each call. A
     * plain attribute in PyTorch, in no state dict: held untyped so it is not taken for a buffer.
     */
    private Object randomSamples;

    FractionalMaxPoolNd(int dims, int[] kernelSize, int[] outputSize, double[] outputRatio, Tensor randomSamples) {
        String name = "FractionalMaxPool" + dims + "d";
        if (kernelSize.length != dims) throw new IllegalArgumentException(name + ": kernel_size must have " + dims + " entries, got " + kernelSize.length);
        if (outputSize == null && outputRatio == null) {
            throw new IllegalArgumentException(name + " requires specifying either an output size, or a pooling ratio");
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
        this.dims = dims;
        this.randomSamples = randomSamples;
    }

    public Tensor randomSamples() { return (Tensor) randomSamples; }

    /** Fixes the window offsets (null: draw them at each call). */
    public void randomSamples(Tensor samples) { this.randomSamples = samples; }

    @Override
    public Tensor forward(Tensor input) { return forwardWithIndices(input).get(0); }

    /** The pooled values and their indices ({@code return_indices=True}). */
    public List<Tensor> forwardWithIndices(Tensor input) {
        return FractionalMaxPooling.pool("fractional_max_pool" + dims + "d", input, kernelSize, outputSize, outputRatio, (Tensor) randomSamples);
    }
}
