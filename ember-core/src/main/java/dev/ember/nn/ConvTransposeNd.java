package dev.ember.nn;

import java.util.Arrays;

/**
 * What {@link ConvTranspose1d}, {@link ConvTranspose2d} and {@link ConvTranspose3d} share, as PyTorch's {@code _ConvTransposeNd}:
 * the arguments and their checks, weight {@code [in, out/groups, k…]} and bias {@code [out]}
 * initialised uniform on ±1/sqrt(out/groups · k^dims) (PyTorch's fan-in of the transposed weight),
 * and the printed form; each subclass says how many spatial dims and which functional computes it.
 */
public abstract class ConvTransposeNd extends Module {
    /** Not final: a {@code LazyConvTranspose*} learns it at its first call. */
    public int inChannels;
    public final int outChannels;
    public final int kernelSize;
    public final int stride;
    public final int padding;
    public final int outputPadding;
    public final int groups;
    public final int dilation;
    public Parameter weight;
    /** Null when built with {@code bias = false}. */
    public Parameter bias;
    private final int dims;

    ConvTransposeNd(int dims, int inChannels, int outChannels, int kernelSize, int stride, int padding, int outputPadding, int groups, boolean bias, int dilation) {
        String name = getClass().getSimpleName();
        if (groups <= 0) throw new IllegalArgumentException(name + ": groups must be a positive integer, got " + groups);
        if (inChannels % groups != 0) throw new IllegalArgumentException(name + ": in_channels (" + inChannels + ") must be divisible by groups (" + groups + ")");
        if (outChannels % groups != 0) throw new IllegalArgumentException(name + ": out_channels (" + outChannels + ") must be divisible by groups (" + groups + ")");
        this.dims = dims;
        this.inChannels = inChannels;
        this.outChannels = outChannels;
        this.kernelSize = kernelSize;
        this.stride = stride;
        this.padding = padding;
        this.outputPadding = outputPadding;
        this.groups = groups;
        this.dilation = dilation;
        int[] weightShape = new int[2 + dims];
        weightShape[0] = inChannels;
        weightShape[1] = outChannels / groups;
        Arrays.fill(weightShape, 2, weightShape.length, kernelSize);
        int fanIn = outChannels / groups * (int) Math.pow(kernelSize, dims);
        this.weight = new Parameter(Init.fanInUniform(fanIn, weightShape));
        this.bias = bias ? new Parameter(Init.fanInUniform(fanIn, outChannels)) : null;
    }

    @Override
    protected String extraRepr() {
        StringBuilder sb = new StringBuilder().append(inChannels).append(", ").append(outChannels)
                .append(", kernel_size=").append(repeated(kernelSize)).append(", stride=").append(repeated(stride));
        if (padding != 0) sb.append(", padding=").append(repeated(padding));
        if (outputPadding != 0) sb.append(", output_padding=").append(repeated(outputPadding));
        if (dilation != 1) sb.append(", dilation=").append(repeated(dilation));
        if (groups != 1) sb.append(", groups=").append(groups);
        if (!present("bias", bias)) sb.append(", bias=False");
        return sb.toString();
    }

    /** One int per spatial dim, as PyTorch echoes it: {@code (2,)}, {@code (2, 2)}. */
    private String repeated(int v) {
        int[] values = new int[dims];
        Arrays.fill(values, v);
        return Repr.tuple(values);
    }
}
