package dev.ember.kernels;

/**
 * The sizes of one 2-d convolution: input {@code [batch, channels, height, width]}, weight
 * {@code [outChannels, channels/groups, kernelH, kernelW]}, output {@code [batch, outChannels, outH, outW]}.
 */
public record Conv2dGeometry(int batch, int channels, int height, int width,
                             int outChannels, int kernelH, int kernelW,
                             int strideH, int strideW, int padH, int padW, int dilationH, int dilationW,
                             int groups, int outH, int outW) {

    /** From the input and weight shapes and the (already validated, length-2) parameters. */
    public static Conv2dGeometry of(int[] input, int[] weight, int[] stride, int[] padding, int[] dilation, int groups) {
        return new Conv2dGeometry(input[0], input[1], input[2], input[3], weight[0], weight[2], weight[3],
                stride[0], stride[1], padding[0], padding[1], dilation[0], dilation[1], groups,
                outputSize(input[2], weight[2], stride[0], padding[0], dilation[0]),
                outputSize(input[3], weight[3], stride[1], padding[1], dilation[1]));
    }

    /** ATen's conv_output_size for one spatial dimension. */
    public static int outputSize(int in, int kernel, int stride, int pad, int dilation) {
        return (in + 2 * pad - dilation * (kernel - 1) - 1) / stride + 1;
    }

    public int groupChannels() { return channels / groups; }

    public int groupOutChannels() { return outChannels / groups; }

    /** Rows of one group's column matrix: the GEMM's inner dimension. */
    public int groupTaps() { return groupChannels() * kernelH * kernelW; }

    public int outPixels() { return outH * outW; }

    /** True for 1x1 kernels that read every pixel once in place: the input plane is already the column matrix. */
    public boolean isPointwise() {
        return kernelH == 1 && kernelW == 1 && strideH == 1 && strideW == 1 && padH == 0 && padW == 0;
    }
}
