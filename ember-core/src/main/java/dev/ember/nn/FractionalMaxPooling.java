package dev.ember.nn;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

import java.util.List;

/**
 * Fractional max pooling (Graham, 2014), ATen's {@code fractional_max_pool2d/3d}: each output cell
 * takes the max over a {@code kernel} window whose start along each dim follows ATen's pseudo-random
 * sequence {@code ⌊(i + u)·α⌋ − ⌊u·α⌋} with {@code α = (in − k)/(out − 1)}, the last window ending
 * at the input's end; {@code u} is one sample in [0, 1) per (batch, channel, dim) — drawn, or given
 * as {@code _random_samples} for a repeatable result. Written as a gather of each window then a max,
 * so the gradient goes to the chosen element, as ATen's backward scatters it. The window starts
 * depend on the samples' values, so a compiled caller breaks the graph here.
 */
final class FractionalMaxPooling {
    private FractionalMaxPooling() {}

    /** ATen's {@code generate_intervals}, in the input's floating type (float32 rounding for float32 input, as ATen's {@code scalar_t}). */
    static int[] intervals(double sample, int inputSize, int outputSize, int poolSize, boolean single) {
        int[] seq = new int[outputSize];
        if (outputSize > 1) {
            if (single) {
                float u = (float) sample, alpha = (float) (inputSize - poolSize) / (float) (outputSize - 1);
                for (int i = 0; i < outputSize - 1; i++) seq[i] = (int) ((i + u) * alpha) - (int) (u * alpha);
            } else {
                double alpha = (double) (inputSize - poolSize) / (double) (outputSize - 1);
                for (int i = 0; i < outputSize - 1; i++) seq[i] = (int) ((i + sample) * alpha) - (int) (sample * alpha);
            }
        }
        if (outputSize > 0) seq[outputSize - 1] = inputSize - poolSize;
        return seq;
    }

    /**
     * Values and (flat, per plane) indices of fractional max pooling over the last {@code d} dims
     * of {@code input} ({@code [N, C, …]} or unbatched {@code [C, …]}).
     */
    static List<Tensor> pool(String op, Tensor input, int[] kernel, int[] outputSize, double[] outputRatio, Tensor randomSamples) {
        int d = kernel.length;
        if (input.dim() != d + 1 && input.dim() != d + 2) {
            throw new IllegalArgumentException(op + "(): Expected " + (d + 1) + "D or " + (d + 2) + "D tensor, but got: " + Shapes.format(input.shape()));
        }
        if (!input.dtype().isFloatingPoint()) throw new IllegalArgumentException("\"" + op + "_out_frame\" not implemented for '" + input.dtype().scalarTypeName() + "'");
        boolean batched = input.dim() == d + 2;
        Tensor x = batched ? input : input.unsqueeze(0);
        int n = x.shape()[0], c = x.shape()[1];
        int[] in = new int[d];
        for (int i = 0; i < d; i++) in[i] = x.shape()[2 + i];
        int[] out = new int[d];
        if (outputSize == null) {
            if (outputRatio == null) throw new IllegalArgumentException(op + " requires specifying either an output_size or an output_ratio");
            for (int i = 0; i < d; i++) out[i] = (int) (in[i] * outputRatio[i]);
        } else {
            out = outputSize.clone();
        }
        String[] dimNames = d == 2 ? new String[] {"height", "width"} : new String[] {"time", "height", "width"};
        for (int i = 0; i < d; i++) {
            if (out[i] + kernel[i] - 1 > in[i]) {
                throw new IllegalArgumentException(op + "_out(): pool " + dimNames[i] + " " + kernel[i] + " too large relative to input " + dimNames[i] + " " + in[i]);
            }
        }
        Tensor samples = randomSamples != null ? randomSamples : Tensor.rand(n, c, d).to(x.dtype());
        if (samples.dim() != 3 || samples.shape()[0] != n || samples.shape()[1] != c || samples.shape()[2] != d) {
            throw new IllegalArgumentException(op + "(): expected _random_samples of shape [" + n + ", " + c + ", " + d + "], got " + Shapes.format(samples.shape()));
        }
        double[] u = samples.detach().toDoubleArray();
        boolean single = x.dtype() != DType.FLOAT64;
        int window = 1, outCells = 1, plane = 1;
        for (int i = 0; i < d; i++) {
            window *= kernel[i];
            outCells *= out[i];
            plane *= in[i];
        }
        // index[n, c, cell, k]: the flat position in the plane of the window's k-th element
        long[] index = new long[n * c * outCells * window];
        int[] stride = new int[d];
        stride[d - 1] = 1;
        for (int i = d - 2; i >= 0; i--) stride[i] = stride[i + 1] * in[i + 1];
        int pos = 0;
        for (int b = 0; b < n * c; b++) {
            int[][] starts = new int[d][];
            for (int i = 0; i < d; i++) {
                // ATen's samples are ordered (W, H) in 2-d and (T, H, W) in 3-d
                int sampleIndex = d == 2 ? 1 - i : i;
                starts[i] = intervals(u[b * d + sampleIndex], in[i], out[i], kernel[i], single);
            }
            int[] cell = new int[d];
            for (int o = 0; o < outCells; o++) {
                for (int rem = o, i = d - 1; i >= 0; i--) {
                    cell[i] = rem % out[i];
                    rem /= out[i];
                }
                int[] k = new int[d];
                for (int w = 0; w < window; w++) {
                    for (int rem = w, i = d - 1; i >= 0; i--) {
                        k[i] = rem % kernel[i];
                        rem /= kernel[i];
                    }
                    long flat = 0;
                    for (int i = 0; i < d; i++) flat += (long) (starts[i][cell[i]] + k[i]) * stride[i];
                    index[pos++] = flat;
                }
            }
        }
        Tensor idx = Tensor.ofLongs(index).reshape(n, c, outCells * window);
        Tensor gathered = x.reshape(n, c, plane).gather(2, idx).reshape(n, c, outCells, window);
        List<Tensor> max = gathered.max(3);
        Tensor chosen = idx.reshape(n, c, outCells, window).gather(3, max.get(1).unsqueeze(3)).squeeze(3);
        int[] outShape = new int[2 + d];
        outShape[0] = n;
        outShape[1] = c;
        System.arraycopy(out, 0, outShape, 2, d);
        Tensor values = max.get(0).reshape(outShape), indices = chosen.reshape(outShape);
        return batched ? List.of(values, indices) : List.of(values.squeeze(0), indices.squeeze(0));
    }
}
