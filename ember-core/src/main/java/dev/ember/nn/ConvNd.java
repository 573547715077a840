package dev.ember.nn;

import dev.ember.tensor.Tensor;

import java.util.Arrays;
import java.util.Set;

/**
 * What {@link Conv1d}, {@link Conv2d} and {@link Conv3d} share, as PyTorch's {@code _ConvNd}: the
 * arguments and their checks (one int or one per spatial dim; padding also {@code "same"} or
 * {@code "valid"}), weight {@code [out, in/groups, k…]} and bias {@code [out]} initialised uniform
 * on ±1/sqrt(in/groups · ∏k), {@code paddingMode} ({@code "zeros"}, {@code "reflect"},
 * {@code "replicate"}, {@code "circular"}: any but zeros pads the input with {@link F#pad} first
 * and convolves with no padding, as PyTorch's), and the printed form; each subclass says how many
 * spatial dims and which functional computes it.
 */
public abstract class ConvNd extends Module {
    private static final Set<String> PADDING_MODES = Set.of("zeros", "reflect", "replicate", "circular");

    /** Set by the {@code LazyConv} modules when they materialize. */
    public int inChannels;
    public final int outChannels;
    public final int groups;
    /** {@code "zeros"} (the default), {@code "reflect"}, {@code "replicate"} or {@code "circular"}. */
    public final String paddingMode;
    public Parameter weight;
    /** Null when built with {@code bias = false}. */
    public Parameter bias;
    private final int dims;
    private final int[] kernelSize;
    private final int[] stride;
    /** Null when the padding is a string. */
    private final int[] padding;
    /** {@code "same"} or {@code "valid"}, or null when the padding is numbers. */
    private final String paddingString;
    private final int[] dilation;

    ConvNd(int dims, int inChannels, int outChannels, int[] kernelSize, int[] stride, int[] padding, String paddingString, int[] dilation,
           int groups, boolean bias, String paddingMode) {
        String name = getClass().getSimpleName();
        if (groups <= 0) throw new IllegalArgumentException(name + ": groups must be a positive integer, got " + groups);
        if (inChannels % groups != 0) throw new IllegalArgumentException(name + ": in_channels (" + inChannels + ") must be divisible by groups (" + groups + ")");
        if (outChannels % groups != 0) throw new IllegalArgumentException(name + ": out_channels (" + outChannels + ") must be divisible by groups (" + groups + ")");
        this.dims = dims;
        this.kernelSize = perDim("kernel_size", kernelSize);
        for (int k : this.kernelSize) if (k <= 0) throw new IllegalArgumentException(name + ": kernel_size must be positive, got " + k);
        this.stride = perDim("stride", stride);
        this.dilation = perDim("dilation", dilation);
        if (paddingString != null) {
            if (!paddingString.equals("same") && !paddingString.equals("valid")) {
                throw new IllegalArgumentException(name + ": Invalid padding string '" + paddingString + "', should be one of {'valid', 'same'}");
            }
            if (paddingString.equals("same")) {
                for (int s : this.stride) if (s != 1) throw new IllegalArgumentException(name + ": padding='same' is not supported for strided convolutions");
            }
            this.padding = null;
        } else {
            this.padding = perDim("padding", padding);
        }
        this.paddingString = paddingString;
        if (!PADDING_MODES.contains(paddingMode)) {
            throw new IllegalArgumentException(name + ": padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got padding_mode='" + paddingMode + "'");
        }
        this.paddingMode = paddingMode;
        this.inChannels = inChannels;
        this.outChannels = outChannels;
        this.groups = groups;
        int[] weightShape = new int[2 + dims];
        weightShape[0] = outChannels;
        weightShape[1] = inChannels / groups;
        int fanIn = inChannels / groups;
        for (int d = 0; d < dims; d++) {
            weightShape[2 + d] = this.kernelSize[d];
            fanIn *= this.kernelSize[d];
        }
        this.weight = new Parameter(Init.fanInUniform(fanIn, weightShape));
        this.bias = bias ? new Parameter(Init.fanInUniform(fanIn, outChannels)) : null;
    }

    private int[] perDim(String what, int[] v) {
        if (v.length != dims) {
            String names = dims == 1 ? "{length}" : dims == 2 ? "{height, width}" : "{depth, height, width}";
            throw new IllegalArgumentException(getClass().getSimpleName() + ": " + what + " must have " + dims + " entries " + names + ", got " + v.length);
        }
        return v.clone();
    }

    static int[] repeat(int v, int dims) {
        int[] values = new int[dims];
        Arrays.fill(values, v);
        return values;
    }

    public int[] kernelSize() { return kernelSize.clone(); }

    public int[] stride() { return stride.clone(); }

    /** The padding per spatial dim; with {@code "same"} or {@code "valid"} the amounts PyTorch pads (for "same", the left of each dim). */
    public int[] padding() {
        if (padding != null) return padding.clone();
        int[] amounts = new int[dims];
        if (paddingString.equals("same")) for (int d = 0; d < dims; d++) amounts[d] = dilation[d] * (kernelSize[d] - 1) / 2;
        return amounts;
    }

    /** {@code "same"} or {@code "valid"} when built with a padding string; otherwise null. */
    public String paddingString() { return paddingString; }

    public int[] dilation() { return dilation.clone(); }

    /** The convolution of the subclass's rank with numeric padding. */
    abstract Tensor conv(Tensor input, Tensor weight, Tensor bias, int[] stride, int[] padding, int[] dilation, int groups);

    /** The convolution of the subclass's rank with padding {@code "same"} or {@code "valid"}. */
    abstract Tensor conv(Tensor input, Tensor weight, Tensor bias, int[] stride, String padding, int[] dilation, int groups);

    @Override
    public Tensor forward(Tensor input) {
        if (!paddingMode.equals("zeros")) {
            return conv(F.pad(input, reversedPaddingRepeatedTwice(), paddingMode), read("weight", weight), read("bias", bias), stride, new int[dims], dilation, groups);
        }
        Tensor w = read("weight", weight), b = read("bias", bias);
        return paddingString != null ? conv(input, w, b, stride, paddingString, dilation, groups) : conv(input, w, b, stride, padding, dilation, groups);
    }

    /** F.pad's amounts, last dim first, as PyTorch's {@code _reversed_padding_repeated_twice} ("same" puts the odd extra on the right). */
    private int[] reversedPaddingRepeatedTwice() {
        int[] pad = new int[2 * dims];
        for (int d = 0; d < dims; d++) {
            int before, after;
            if (padding != null) {
                before = after = padding[d];
            } else if (paddingString.equals("same")) {
                int total = dilation[d] * (kernelSize[d] - 1);
                before = total / 2;
                after = total - before;
            } else {
                before = after = 0;
            }
            pad[2 * (dims - 1 - d)] = before;
            pad[2 * (dims - 1 - d) + 1] = after;
        }
        return pad;
    }

    @Override
    protected String extraRepr() {
        StringBuilder s = new StringBuilder().append(inChannels).append(", ").append(outChannels)
                .append(", kernel_size=").append(Repr.tuple(kernelSize)).append(", stride=").append(Repr.tuple(stride));
        if (paddingString != null) s.append(", padding=").append(paddingString);
        else if (Arrays.stream(padding).anyMatch(p -> p != 0)) s.append(", padding=").append(Repr.tuple(padding));
        if (Arrays.stream(dilation).anyMatch(d -> d != 1)) s.append(", dilation=").append(Repr.tuple(dilation));
        if (groups != 1) s.append(", groups=").append(groups);
        if (!present("bias", bias)) s.append(", bias=False");
        if (!paddingMode.equals("zeros")) s.append(", padding_mode=").append(paddingMode);
        return s.toString();
    }
}
