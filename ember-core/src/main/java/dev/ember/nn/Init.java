package dev.ember.nn;

import dev.ember.autograd.GradMode;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;

/**
 * PyTorch's {@code torch.nn.init}: the public methods fill an existing tensor (a parameter) in
 * place and return it, drawing from the global generator ({@code Tensor.manualSeed}), outside
 * autograd — {@code uniform_}, {@code normal_}, {@code truncNormal_}, {@code constant_},
 * {@code ones_}, {@code zeros_}, {@code eye_}, {@code xavierUniform_}, {@code xavierNormal_},
 * {@code kaimingUniform_}, {@code kaimingNormal_}, {@code orthogonal_}, {@code dirac_}, {@code sparse_}, with {@code calculateGain} and PyTorch's fan
 * rules and errors:
 *
 * <pre>{@code
 * Init.kaimingNormal_(conv.weight, 0, "fan_out", "relu");   // ResNet's initialisation
 * Init.zeros_(conv.bias);
 * }</pre>
 *
 * A null tensor is refused in words: the usual one is a parametrized layer's field
 * ({@code layer.weight} after {@link Parametrize#registerParametrization}), and the error names
 * that field and the original to initialise instead ({@link NullTensorArgument}).
 *
 * <p>The package-private methods are the layers' default initialisations, which fill fresh tensors
 * (construction, not computation: nothing here is ever traced).
 */
public final class Init {
    private Init() {}

    /** PyTorch's {@code calculate_gain}: the recommended scale for a nonlinearity ({@code param}: leaky_relu's slope, default 0.01). */
    public static double calculateGain(String nonlinearity, Double param) {
        return switch (nonlinearity) {
            case "linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "sigmoid" -> 1;
            case "tanh" -> 5.0 / 3;
            case "relu" -> Math.sqrt(2.0);
            case "leaky_relu" -> {
                double slope = param == null ? 0.01 : param;
                yield Math.sqrt(2.0 / (1 + slope * slope));
            }
            case "selu" -> 3.0 / 4;
            default -> throw new IllegalArgumentException("Unsupported nonlinearity " + nonlinearity);
        };
    }

    public static double calculateGain(String nonlinearity) { return calculateGain(nonlinearity, null); }

    /** Uniform on [a, b). */
    public static Tensor uniform_(Tensor t, double a, double b) {
        requireTensor(t, "uniform_");
        return fill(t, Tensor.rand(t.shape()).to(t.dtype()).mul(b - a).add(a));
    }

    /** Normal with {@code mean} and {@code std}. */
    public static Tensor normal_(Tensor t, double mean, double std) {
        requireTensor(t, "normal_");
        return fill(t, Tensor.randn(t.shape()).to(t.dtype()).mul(std).add(mean));
    }

    /** Normal with {@code mean} and {@code std}, redrawn until inside [a, b] (PyTorch's default bounds are ±2). */
    public static Tensor truncNormal_(Tensor t, double mean, double std, double a, double b) {
        requireTensor(t, "truncNormal_");
        if (!(a < b)) throw new IllegalArgumentException("trunc_normal_: a must be below b, got a=" + a + ", b=" + b);
        double[] values = Tensor.randn(t.shape()).to(dev.ember.tensor.DType.FLOAT64).mul(std).add(mean).toDoubleArray();
        for (int i = 0; i < values.length; i++) {
            while (values[i] < a || values[i] > b) values[i] = Tensor.randn().item() * std + mean;
        }
        return fill(t, Tensor.of(values, t.shape()).to(t.dtype()));
    }

    public static Tensor truncNormal_(Tensor t, double mean, double std) { return truncNormal_(t, mean, std, -2, 2); }

    public static Tensor constant_(Tensor t, double value) { requireTensor(t, "constant_"); return fill(t, Tensor.full(t.dtype(), value, t.shape())); }

    public static Tensor ones_(Tensor t) { requireTensor(t, "ones_"); return constant_(t, 1); }

    public static Tensor zeros_(Tensor t) { requireTensor(t, "zeros_"); return constant_(t, 0); }

    /** The identity on a 2-d tensor (ones on the diagonal of a non-square one too). */
    public static Tensor eye_(Tensor t) {
        requireTensor(t, "eye_");
        if (t.dim() != 2) throw new IllegalArgumentException("Only tensors with 2 dimensions are supported");
        Tensor ones = Tensor.zeros(t.dtype(), t.shape());
        for (int i = 0; i < Math.min(t.size(0), t.size(1)); i++) ones.storage().writeDouble(i * t.size(1) + i, 1);
        return fill(t, ones);
    }

    /**
     * A (semi-)orthogonal matrix times {@code gain}, as PyTorch's {@code orthogonal_} (Saxe et al.):
     * the tensor is seen as {@code [rows, numel / rows]}; a standard normal matrix of that shape
     * (transposed when wider than tall) is QR-factored and Q, its columns' signs made those of R's
     * diagonal so the draw is uniform over orthogonal matrices, is written in.
     */
    public static Tensor orthogonal_(Tensor t, double gain) {
        requireTensor(t, "orthogonal_");
        if (t.dim() < 2) throw new IllegalArgumentException("Only tensors with 2 or more dimensions are supported");
        if (t.numel() == 0) return t;
        int rows = t.size(0), cols = t.numel() / rows;
        Tensor flattened = Tensor.randn(rows, cols).to(t.dtype());
        if (rows < cols) flattened = flattened.t();
        java.util.List<Tensor> qr = flattened.qr();
        Tensor q = qr.get(0).mul(qr.get(1).diagonal().sign());
        if (rows < cols) q = q.t();
        return fill(t, q.reshape(t.shape()).mul(gain));
    }

    public static Tensor orthogonal_(Tensor t) { return orthogonal_(t, 1); }

    /**
     * The Dirac delta for convolution weights {@code [out, in, k…]} (3, 4 or 5 dims), as PyTorch's
     * {@code dirac_}: a convolution with it passes its input through, each of {@code groups} groups
     * of output channels copying as many input channels as it can (a 1 at each kernel's centre).
     */
    public static Tensor dirac_(Tensor t, int groups) {
        requireTensor(t, "dirac_");
        int dims = t.dim();
        if (dims < 3 || dims > 5) throw new IllegalArgumentException("Only tensors with 3, 4, or 5 dimensions are supported");
        if (t.size(0) % groups != 0) throw new IllegalArgumentException("dim 0 must be divisible by groups");
        int outPerGroup = t.size(0) / groups, copied = Math.min(outPerGroup, t.size(1));
        Tensor delta = Tensor.zeros(t.dtype(), t.shape());
        int[] strides = dev.ember.tensor.Shapes.contiguousStrides(t.shape());
        int centre = 0;
        for (int d = 2; d < dims; d++) centre += t.size(d) / 2 * strides[d];
        for (int g = 0; g < groups; g++) {
            for (int d = 0; d < copied; d++) delta.storage().writeDouble((g * outPerGroup + d) * strides[0] + d * strides[1] + centre, 1);
        }
        return fill(t, delta);
    }

    public static Tensor dirac_(Tensor t) { return dirac_(t, 1); }

    /**
     * A sparse 2-d matrix, as PyTorch's {@code sparse_} (Martens, 2010): normal with {@code std},
     * then in every column {@code ceil(sparsity · rows)} rows, chosen at random, set to zero.
     */
    public static Tensor sparse_(Tensor t, double sparsity, double std) {
        requireTensor(t, "sparse_");
        if (t.dim() != 2) throw new IllegalArgumentException("Only tensors with 2 dimensions are supported");
        int rows = t.size(0), cols = t.size(1), zeros = (int) Math.ceil(sparsity * rows);
        Tensor values = Tensor.randn(rows, cols).to(dev.ember.tensor.DType.FLOAT64).mul(std);
        for (int c = 0; c < cols; c++) {
            long[] order = Tensor.randperm(rows).toLongArray();
            for (int i = 0; i < Math.min(zeros, rows); i++) values.storage().writeDouble((int) order[i] * cols + c, 0);
        }
        return fill(t, values.to(t.dtype()));
    }

    public static Tensor sparse_(Tensor t, double sparsity) { return sparse_(t, sparsity, 0.01); }

    /** Glorot: uniform on ±gain·sqrt(6 / (fan_in + fan_out)). */
    public static Tensor xavierUniform_(Tensor t, double gain) {
        requireTensor(t, "xavierUniform_");
        int[] fan = fans(t);
        double bound = gain * Math.sqrt(6.0 / (fan[0] + fan[1]));
        return uniform_(t, -bound, bound);
    }

    public static Tensor xavierUniform_(Tensor t) { return xavierUniform_(t, 1); }

    /** Glorot: normal with std gain·sqrt(2 / (fan_in + fan_out)). */
    public static Tensor xavierNormal_(Tensor t, double gain) {
        requireTensor(t, "xavierNormal_");
        int[] fan = fans(t);
        return normal_(t, 0, gain * Math.sqrt(2.0 / (fan[0] + fan[1])));
    }

    public static Tensor xavierNormal_(Tensor t) { return xavierNormal_(t, 1); }

    /**
     * He: uniform on ±sqrt(3)·gain/sqrt(fan), {@code mode} "fan_in" (default) or "fan_out", gain
     * from {@code nonlinearity} ("leaky_relu", the default, with slope {@code a}).
     */
    public static Tensor kaimingUniform_(Tensor t, double a, String mode, String nonlinearity) {
        requireTensor(t, "kaimingUniform_");
        double bound = Math.sqrt(3.0) * calculateGain(nonlinearity, a) / Math.sqrt(fan(t, mode));
        return uniform_(t, -bound, bound);
    }

    public static Tensor kaimingUniform_(Tensor t) { return kaimingUniform_(t, 0, "fan_in", "leaky_relu"); }

    /** He: normal with std gain/sqrt(fan); arguments as {@link #kaimingUniform_(Tensor, double, String, String)}. */
    public static Tensor kaimingNormal_(Tensor t, double a, String mode, String nonlinearity) {
        requireTensor(t, "kaimingNormal_");
        return normal_(t, 0, calculateGain(nonlinearity, a) / Math.sqrt(fan(t, mode)));
    }

    public static Tensor kaimingNormal_(Tensor t) { return kaimingNormal_(t, 0, "fan_in", "leaky_relu"); }

    /** {fan_in, fan_out}: dims 1 and 0 times the receptive field (the product of the others), PyTorch's rule. */
    static int[] fans(Tensor t) {
        if (t.dim() < 2) throw new IllegalArgumentException("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
        int receptive = 1;
        for (int d = 2; d < t.dim(); d++) receptive *= t.size(d);
        return new int[] {t.size(1) * receptive, t.size(0) * receptive};
    }

    private static int fan(Tensor t, String mode) {
        int[] fan = fans(t);
        return switch (mode) {
            case "fan_in" -> fan[0];
            case "fan_out" -> fan[1];
            default -> throw new IllegalArgumentException("Mode " + mode + " not supported, please use one of fan_in, fan_out");
        };
    }

    /** Refuses null in words: the usual null here is a parametrized layer's field ({@link NullTensorArgument}). */
    private static void requireTensor(Tensor t, String function) {
        if (t == null) throw NullTensorArgument.of(function);
    }

    /** Writes {@code values} into {@code t} outside autograd (an initialisation is not a computation to differentiate). */
    private static Tensor fill(Tensor t, Tensor values) {
        try (var unused = GradMode.noGrad()) {
            t.copy_(values);
        }
        return t;
    }

    /** Uniform on [-bound, bound): PyTorch's kaiming_uniform_(a=sqrt(5)) gives bound 1/sqrt(fan_in). */
    static Tensor uniform(double bound, int... shape) {
        Tensor t = Tensor.rand(shape);
        Storage s = t.storage();
        for (int i = 0; i < t.numel(); i++) s.writeDouble(i, (2 * s.readDouble(i) - 1) * bound);
        return t;
    }

    /** Linear and conv weights and biases: uniform with bound 1/sqrt(fan_in) (0 when fan_in is 0). */
    static Tensor fanInUniform(int fanIn, int... shape) {
        return uniform(fanIn > 0 ? 1 / Math.sqrt(fanIn) : 0, shape);
    }

    /** xavier_uniform_ of a 2-d weight [fan_out, fan_in]: bound sqrt(6 / (fan_in + fan_out)). */
    static Tensor xavierUniform(int fanOut, int fanIn) {
        return uniform(Math.sqrt(6.0 / (fanIn + fanOut)), fanOut, fanIn);
    }

    /** Standard normal; the row {@code zeroRow} (if not negative) set to zero, as Embedding's padding_idx. */
    static Tensor normalWithZeroRow(int rows, int cols, int zeroRow) {
        Tensor t = Tensor.randn(rows, cols);
        if (zeroRow >= 0) for (int j = 0; j < cols; j++) t.storage().writeDouble(zeroRow * cols + j, 0);
        return t;
    }
}
