package dev.ember.nn;

import dev.ember.tensor.Tensor;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Sums columns of sliding blocks back into images, as PyTorch's {@code nn.Fold} ({@link F#fold}):
 * {@code [N, C·kh·kw, L]} → {@code [N, C, outputSize]}, overlapping blocks adding up.
 */
public class Fold extends Module {
    public final int[] outputSize, kernelSize, dilation, padding, stride;

    /** PyTorch's defaults: dilation 1, padding 0, stride 1. */
    public Fold(int[] outputSize, int kernelSize) { this(outputSize, new int[] {kernelSize}, new int[] {1}, new int[] {0}, new int[] {1}); }

    public Fold(int[] outputSize, int[] kernelSize, int[] dilation, int[] padding, int[] stride) {
        this.outputSize = outputSize.clone();
        this.kernelSize = kernelSize.clone();
        this.dilation = dilation.clone();
        this.padding = padding.clone();
        this.stride = stride.clone();
    }

    @Override
    public Tensor forward(Tensor input) { return F.fold(input, outputSize, kernelSize, dilation, padding, stride); }

    @Override
    protected String extraRepr() { return "output_size=" + size(outputSize) + ", " + sizes(kernelSize, dilation, padding, stride); }

    /** PyTorch's extra_repr for the window: each size as given, one number or a tuple. */
    static String sizes(int[] kernelSize, int[] dilation, int[] padding, int[] stride) {
        return "kernel_size=" + size(kernelSize) + ", dilation=" + size(dilation) + ", padding=" + size(padding) + ", stride=" + size(stride);
    }

    private static String size(int[] s) {
        return s.length == 1 ? Integer.toString(s[0]) : Arrays.stream(s).mapToObj(Integer::toString).collect(Collectors.joining(", ", "(", ")"));
    }
}
