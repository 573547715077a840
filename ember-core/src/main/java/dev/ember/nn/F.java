package dev.ember.nn;

import dev.ember.ops.ActivationOps;
import dev.ember.ops.ConvOps;
import dev.ember.ops.CreationOps;
import dev.ember.ops.DistanceOps;
import dev.ember.ops.IndexingOps;
import dev.ember.ops.LinalgOps;
import dev.ember.ops.LossOps;
import dev.ember.ops.NnComposites;
import dev.ember.ops.NnOps;
import dev.ember.ops.NormOps;
import dev.ember.ops.PadOps;
import dev.ember.ops.PointwiseOps;
import dev.ember.ops.ReductionOps;
import dev.ember.ops.UpsampleOps;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

/**
 * Functional forms of the layers, as {@code torch.nn.functional}: each function calls one op, with
 * PyTorch's argument order and defaults; where PyTorch's Python composes ops instead (softsign,
 * tanhshrink, softmin, normalize, kl_div's batchmean), so does the function here, with the same ops.
 */
public final class F {
    private F() {}

    // ------------------------------------------------------------------ activations

    public static Tensor relu(Tensor x) { return PointwiseOps.RELU.callTensor(x); }

    // The in-place forms (PyTorch's F.relu_, F.elu_, …): the functional result written into x, so x's
    // autograd history and version become the activation's (as an in-place ATen op's would), and an
    // in-place write to a leaf that requires grad is refused as PyTorch refuses it.

    /** {@code F.relu_}: ReLU in place; returns x. */
    public static Tensor relu_(Tensor x) { return x.relu_(); }

    /** {@code F.elu_}: ELU in place; returns x. */
    public static Tensor elu_(Tensor x) { return elu_(x, 1.0); }

    public static Tensor elu_(Tensor x, double alpha) { return x.copy_(elu(x.clone(), alpha)); }

    /** {@code F.leaky_relu_}: leaky ReLU in place; returns x. */
    public static Tensor leakyRelu_(Tensor x) { return leakyRelu_(x, 0.01); }

    public static Tensor leakyRelu_(Tensor x, double negativeSlope) { return x.copy_(leakyRelu(x.clone(), negativeSlope)); }

    /** {@code F.hardtanh_}: hardtanh in place; returns x. */
    public static Tensor hardtanh_(Tensor x) { return hardtanh_(x, -1.0, 1.0); }

    public static Tensor hardtanh_(Tensor x, double minVal, double maxVal) { return x.copy_(hardtanh(x.clone(), minVal, maxVal)); }

    /** {@code F.threshold_}: {@code x} where {@code x > threshold}, else {@code value}, in place; returns x. */
    public static Tensor threshold_(Tensor x, double threshold, double value) { return x.copy_(threshold(x.clone(), threshold, value)); }

    /** {@code F.rrelu_}: randomized leaky ReLU in place (see {@link #rrelu(Tensor, double, double, boolean)}); returns x. */
    public static Tensor rrelu_(Tensor x, double lower, double upper, boolean training) { return x.copy_(rrelu(x.clone(), lower, upper, training)); }

    public static Tensor rrelu_(Tensor x, boolean training) { return rrelu_(x, 1.0 / 8, 1.0 / 3, training); }

    /** GELU with the exact erf form. */
    public static Tensor gelu(Tensor x) { return PointwiseOps.GELU.callTensor(x); }

    /** GELU with {@code approximate} = {@code "none"} or {@code "tanh"}. */
    public static Tensor gelu(Tensor x, String approximate) { return PointwiseOps.GELU.callTensor(x, approximate); }

    public static Tensor silu(Tensor x) { return PointwiseOps.SILU.callTensor(x); }

    public static Tensor sigmoid(Tensor x) { return PointwiseOps.SIGMOID.callTensor(x); }

    public static Tensor tanh(Tensor x) { return PointwiseOps.TANH.callTensor(x); }

    public static Tensor softmax(Tensor x, int dim) { return ReductionOps.SOFTMAX.callTensor(x, (long) dim, false); }

    public static Tensor logSoftmax(Tensor x, int dim) { return ReductionOps.LOG_SOFTMAX.callTensor(x, (long) dim, false); }

    /** log_softmax computed in {@code dtype}: the input is converted first. */
    public static Tensor logSoftmax(Tensor x, int dim, DType dtype) { return ReductionOps.LOG_SOFTMAX_INT.callTensor(x, (long) dim, dtype); }

    /** Zeroes each element with probability {@code p} and scales the rest by 1/(1-p) when {@code training}; the identity otherwise. */
    public static Tensor dropout(Tensor x, double p, boolean training) { return PointwiseOps.DROPOUT.callTensor(x, p, training); }

    /**
     * Channel dropout for {@code [N, C, L]} or unbatched {@code [C, L]} input (PyTorch's
     * {@code F.dropout1d}): in training each channel is zeroed whole with probability p, the others
     * scaled by 1/(1−p).
     */
    public static Tensor dropout1d(Tensor x, double p, boolean training) {
        checkP(p);
        if (x.dim() != 2 && x.dim() != 3) {
            throw new IllegalArgumentException("dropout1d: Expected 2D or 3D input, but received a " + x.dim() + "D input. Note that dropout1d exists to provide "
                    + "channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).");
        }
        if (x.dim() == 2) return NnComposites.FEATURE_DROPOUT.callTensor(x.unsqueeze(0), p, training).squeeze(0);
        return NnComposites.FEATURE_DROPOUT.callTensor(x, p, training);
    }

    /**
     * Channel dropout for {@code [N, C, H, W]} input (PyTorch's {@code F.dropout2d}). As PyTorch's,
     * any other rank is taken as {@code [N, C, …]} (PyTorch warns that this is deprecated; a 3-d
     * input is {@code [N, C, L]}, not an unbatched image).
     */
    public static Tensor dropout2d(Tensor x, double p, boolean training) {
        checkP(p);
        return NnComposites.FEATURE_DROPOUT.callTensor(x, p, training);
    }

    /**
     * Channel dropout for {@code [N, C, D, H, W]} input (PyTorch's {@code F.dropout3d}); any other
     * rank is taken as unbatched, {@code [C, …]}, as PyTorch's (which warns for ranks other than 4).
     */
    public static Tensor dropout3d(Tensor x, double p, boolean training) {
        checkP(p);
        if (x.dim() != 5) return NnComposites.FEATURE_DROPOUT.callTensor(x.unsqueeze(0), p, training).squeeze(0);
        return NnComposites.FEATURE_DROPOUT.callTensor(x, p, training);
    }

    /**
     * The sliding {@code kernelSize} blocks of {@code [N, C, H, W]} (or {@code [C, H, W]}) input as
     * columns {@code [N, C·kh·kw, L]} (PyTorch's {@code F.unfold}, im2col); each size is
     * {@code {h, w}} or one number for both.
     */
    public static Tensor unfold(Tensor x, int[] kernelSize, int[] dilation, int[] padding, int[] stride) {
        return NnComposites.IM2COL.callTensor(x, kernelSize, dilation, padding, stride);
    }

    /** {@link #unfold(Tensor, int[], int[], int[], int[])} with PyTorch's defaults: dilation 1, padding 0, stride 1. */
    public static Tensor unfold(Tensor x, int kernelSize) { return unfold(x, new int[] {kernelSize}, new int[] {1}, new int[] {0}, new int[] {1}); }

    /**
     * Columns {@code [N, C·kh·kw, L]} summed back into {@code [N, C, outputSize]} images, where
     * blocks overlap the values add (PyTorch's {@code F.fold}, col2im).
     */
    public static Tensor fold(Tensor x, int[] outputSize, int[] kernelSize, int[] dilation, int[] padding, int[] stride) {
        return NnComposites.COL2IM.callTensor(x, outputSize, kernelSize, dilation, padding, stride);
    }

    /** {@link #fold(Tensor, int[], int[], int[], int[], int[])} with PyTorch's defaults: dilation 1, padding 0, stride 1. */
    public static Tensor fold(Tensor x, int[] outputSize, int kernelSize) {
        return fold(x, outputSize, new int[] {kernelSize}, new int[] {1}, new int[] {0}, new int[] {1});
    }

    /**
     * Alpha dropout (PyTorch's {@code F.alpha_dropout}), the dropout for SELU networks: in training
     * each element is dropped with probability p to SELU's negative saturation value and the result
     * scaled and shifted so that inputs of zero mean and unit variance keep them; otherwise (or for
     * p = 0) the input itself. The same formula as ATen's {@code _dropout_impl}.
     */
    public static Tensor alphaDropout(Tensor x, double p, boolean training) { return alphaDropout(x, p, training, false); }

    /**
     * {@link #alphaDropout} dropping whole channels (PyTorch's {@code F.feature_alpha_dropout}): one
     * draw per (batch, channel) of {@code [N, C, …]} input.
     */
    public static Tensor featureAlphaDropout(Tensor x, double p, boolean training) { return alphaDropout(x, p, training, true); }

    private static Tensor alphaDropout(Tensor x, double p, boolean training, boolean wholeChannels) {
        checkP(p);
        if (p == 0 || !training || x.numel() == 0) return x;
        if (p == 1) return x.mul(Tensor.zeros(x.dtype()));   // x * 0, as ATen: NaN stays NaN
        int[] noiseShape = x.shape().clone();
        if (wholeChannels) {
            if (x.dim() < 2) throw new IllegalArgumentException("Feature dropout requires at least 2 dimensions in the input");
            java.util.Arrays.fill(noiseShape, 2, noiseShape.length, 1);
        }
        if (!x.dtype().isFloatingPoint()) throw new IllegalArgumentException("result type Float can't be cast to the desired output type " + x.dtype().scalarTypeName());
        Tensor kept = Tensor.zeros(x.dtype(), noiseShape).bernoulli(1 - p);
        // SELU's -scale·alpha, and the affine map a·x + b that restores zero mean and unit variance
        double alpha = 1.7580993408473766, a = 1 / Math.sqrt((alpha * alpha * p + 1) * (1 - p));
        Tensor b = kept.sub(1.0).mul(alpha * a).add(alpha * a * p);
        return x.mul(kept.mul(a)).add(b);
    }

    /**
     * Randomized leaky ReLU (PyTorch's {@code F.rrelu}): in training each negative element is
     * multiplied by its own slope drawn uniformly from {@code [lower, upper]}; otherwise the leaky
     * ReLU with the mean slope {@code (lower + upper) / 2}. PyTorch's defaults are 1/8 and 1/3.
     */
    public static Tensor rrelu(Tensor x, double lower, double upper, boolean training) {
        if (!(lower <= upper)) throw new IllegalArgumentException("Lower bound should be less than or equal to the upper bound");
        if (!training) return leakyRelu(x, (lower + upper) / 2);
        if (!x.dtype().isFloatingPoint()) throw new IllegalArgumentException("\"rrelu_with_noise_out_cpu\" not implemented for '" + x.dtype().scalarTypeName() + "'");
        Tensor slopes = CreationOps.RAND.callTensor(x.shape(), null, x.dtype()).mul(upper - lower).add(lower);
        return Tensor.where(x.le(0.0), x.mul(slopes), x);
    }

    /** {@link #rrelu(Tensor, double, double, boolean)} with PyTorch's bounds 1/8 and 1/3. */
    public static Tensor rrelu(Tensor x, boolean training) { return rrelu(x, 1.0 / 8, 1.0 / 3, training); }

    /**
     * Samples from the Gumbel-softmax (concrete) distribution over {@code dim}, as PyTorch's
     * {@code F.gumbel_softmax}: {@code softmax((logits + g) / tau)} with standard Gumbel noise g.
     * With {@code hard}, the one-hot vector of the sample's largest entry, whose gradient is the soft
     * sample's (the straight-through estimator).
     */
    public static Tensor gumbelSoftmax(Tensor logits, double tau, boolean hard, int dim) {
        // -log(E) with E ~ Exponential(1) = -log(1 - U), U uniform on [0, 1)
        Tensor exponential = CreationOps.RAND.callTensor(logits.shape(), null, logits.dtype()).rsub(1.0).log().neg();
        Tensor soft = logits.add(exponential.log().neg()).div(tau).softmax(dim);
        if (!hard) return soft;
        Tensor oneHot = Tensor.zerosLike(logits).scatter(dim, soft.argmax(dim, true), 1.0);
        return oneHot.sub(soft.detach()).add(soft);
    }

    /** {@link #gumbelSoftmax(Tensor, double, boolean, int)} with PyTorch's defaults: tau 1, soft, the last dim. */
    public static Tensor gumbelSoftmax(Tensor logits) { return gumbelSoftmax(logits, 1.0, false, -1); }

    /**
     * The sampling grid of a batch of affine maps, as PyTorch's {@code F.affine_grid}: {@code theta}
     * {@code [N, 2, 3]} for {@code size = {N, C, H, W}} gives {@code [N, H, W, 2]} (x, y) positions in
     * [-1, 1]; {@code [N, 3, 4]} for {@code {N, C, D, H, W}} gives {@code [N, D, H, W, 3]}. With
     * {@code alignCorners} -1 and 1 are the corner pixels' centres, without the corners' outer edges.
     * What {@link #gridSample} reads.
     */
    public static Tensor affineGrid(Tensor theta, int[] size, boolean alignCorners) { return GridSampling.affineGrid(theta, size, alignCorners); }

    /**
     * Samples {@code input} {@code [N, C, H, W]} at the positions of {@code grid} {@code [N, Ho, Wo, 2]}
     * (x, y in [-1, 1]; or 5-d input with a {@code [N, Do, Ho, Wo, 3]} grid), as PyTorch's
     * {@code F.grid_sample}: {@code mode} "bilinear" (trilinear for 5-d) or "nearest";
     * {@code paddingMode} "zeros", "border" or "reflection" for positions outside. Differentiable in
     * both the input and the grid. Mode "bicubic" is refused (not implemented yet).
     *
     * <pre>{@code
     * Tensor grid = F.affineGrid(theta, new int[] {n, c, h, w}, false);   // a spatial transformer
     * Tensor warped = F.gridSample(images, grid, "bilinear", "zeros", false);
     * }</pre>
     */
    public static Tensor gridSample(Tensor input, Tensor grid, String mode, String paddingMode, boolean alignCorners) {
        return GridSampling.gridSample(input, grid, mode, paddingMode, alignCorners);
    }

    /** {@link #gridSample(Tensor, Tensor, String, String, boolean)} with PyTorch's defaults: bilinear, zeros, corners not aligned. */
    public static Tensor gridSample(Tensor input, Tensor grid) { return gridSample(input, grid, "bilinear", "zeros", false); }


    private static void checkP(double p) {
        if (!(p >= 0 && p <= 1)) throw new IllegalArgumentException("dropout probability has to be between 0 and 1, but got " + p);
    }

    /**
     * Local response normalization across channels (PyTorch's {@code F.local_response_norm}) for
     * {@code [N, C, *]} input: each element divided by {@code (k + alpha/size · Σ x²)^beta}, the sum
     * over the {@code size} channels around it (zero-padded at the ends), as PyTorch's formula: the
     * squares averaged by an average pool over channels.
     */
    public static Tensor localResponseNorm(Tensor x, int size, double alpha, double beta, double k) {
        if (x.dim() < 3) throw new IllegalArgumentException("local_response_norm: Expected 3D or higher dimensionality input (got " + x.dim() + " dimensions)");
        if (size <= 0) throw new IllegalArgumentException("local_response_norm: size must be positive, got " + size);
        if (x.numel() == 0) return x;
        int[] shape = x.shape();
        Tensor squares = x.mul(x).reshape(shape[0], 1, shape[1], -1);
        squares = pad(squares, new int[] {0, 0, size / 2, (size - 1) / 2});
        Tensor div = avgPool2d(squares, new int[] {size, 1}, new int[] {1, 1}, new int[] {0, 0}, false, true, null).reshape(shape);
        return x.div(div.mul(alpha).add(k).pow(beta));
    }

    /** {@link #localResponseNorm(Tensor, int, double, double, double)} with PyTorch's defaults {@code alpha=1e-4, beta=0.75, k=1}. */
    public static Tensor localResponseNorm(Tensor x, int size) { return localResponseNorm(x, size, 1e-4, 0.75, 1.0); }

    /** {@code x > 0 ? x : 0.01·x}. */
    public static Tensor leakyRelu(Tensor x) { return ActivationOps.LEAKY_RELU.callTensor(x); }

    public static Tensor leakyRelu(Tensor x, double negativeSlope) { return ActivationOps.LEAKY_RELU.callTensor(x, negativeSlope); }

    /** {@code x > 0 ? x : alpha·(e^x − 1)}, alpha 1. */
    public static Tensor elu(Tensor x) { return ActivationOps.ELU.callTensor(x); }

    public static Tensor elu(Tensor x, double alpha) { return ActivationOps.ELU.callTensor(x, alpha); }

    /** elu with the self-normalizing constants (alpha ≈ 1.6733, scale ≈ 1.0507). */
    public static Tensor selu(Tensor x) { return ActivationOps.SELU.callTensor(x); }

    /** {@code max(0, x) + min(0, alpha·(e^(x/alpha) − 1))}, alpha 1. */
    public static Tensor celu(Tensor x) { return ActivationOps.CELU.callTensor(x); }

    public static Tensor celu(Tensor x, double alpha) { return ActivationOps.CELU.callTensor(x, alpha); }

    /** {@code log(1 + e^(beta·x)) / beta}, and x itself where {@code beta·x > threshold}; beta 1, threshold 20. */
    public static Tensor softplus(Tensor x) { return ActivationOps.SOFTPLUS.callTensor(x); }

    public static Tensor softplus(Tensor x, double beta, double threshold) { return ActivationOps.SOFTPLUS.callTensor(x, beta, threshold); }

    /** x clamped to [-1, 1]. */
    public static Tensor hardtanh(Tensor x) { return ActivationOps.HARDTANH.callTensor(x); }

    public static Tensor hardtanh(Tensor x, double minVal, double maxVal) { return ActivationOps.HARDTANH.callTensor(x, minVal, maxVal); }

    /** x clamped to [0, 6]. */
    public static Tensor relu6(Tensor x) { return ActivationOps.RELU6.callTensor(x); }

    /** {@code min(max(x + 3, 0), 6) / 6}. */
    public static Tensor hardsigmoid(Tensor x) { return ActivationOps.HARDSIGMOID.callTensor(x); }

    /** {@code x·min(max(x + 3, 0), 6) / 6}. */
    public static Tensor hardswish(Tensor x) { return ActivationOps.HARDSWISH.callTensor(x); }

    /** {@code x·tanh(softplus(x))}. */
    public static Tensor mish(Tensor x) { return ActivationOps.MISH.callTensor(x); }

    /** {@code log σ(x)}, computed without overflow. */
    public static Tensor logSigmoid(Tensor x) { return ActivationOps.LOG_SIGMOID.callTensor(x); }

    /**
     * {@code x} where positive, {@code weight·x} elsewhere, as PyTorch's {@code F.prelu}: {@code weight}
     * has one element or one per channel (dimension 1 of the input).
     */
    public static Tensor prelu(Tensor x, Tensor weight) {
        if (weight.dim() > 1) throw new IllegalArgumentException("prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = " + weight.dim());
        Tensor w = weight;
        if (weight.numel() != 1) {
            if (x.dim() == 0) throw new IllegalArgumentException("prelu: Not allow zero-dim input tensor.");
            int channels = x.dim() > 1 ? x.size(1) : 1;
            if (channels != weight.numel()) {
                throw new IllegalArgumentException("prelu: Mismatch of parameter numbers and input channel size. Found parameter numbers = " + weight.numel()
                        + " and channel size = " + channels + ".");
            }
        }
        if (x.dim() >= 2) {
            int[] shape = new int[x.dim()];
            for (int d = 0; d < shape.length; d++) shape[d] = d == 1 ? weight.numel() : 1;
            w = weight.reshape(shape);
        }
        return Tensor.where(x.gt(0.0), x, w.mul(x));
    }

    /** {@code x / (1 + |x|)}, as PyTorch's Python writes it. */
    public static Tensor softsign(Tensor x) { return x.div(x.abs().add(1L)); }

    /** {@code x − tanh(x)}. */
    public static Tensor tanhshrink(Tensor x) { return x.sub(x.tanh()); }

    /** {@code x <= threshold ? value : x}, as PyTorch's {@code F.threshold} (ATen's threshold). */
    public static Tensor threshold(Tensor x, double threshold, double value) { return ActivationOps.THRESHOLD.callTensor(x, threshold, value); }

    /** {@code |x| <= lambd ? 0 : x}, as PyTorch's {@code F.hardshrink} (lambd 0.5 by default). */
    public static Tensor hardshrink(Tensor x, double lambd) { return ActivationOps.HARDSHRINK.callTensor(x, lambd); }

    public static Tensor hardshrink(Tensor x) { return hardshrink(x, 0.5); }

    /** {@code x > lambd ? x − lambd : x < −lambd ? x + lambd : 0}, as PyTorch's {@code F.softshrink}; lambd ≥ 0. */
    public static Tensor softshrink(Tensor x, double lambd) { return ActivationOps.SOFTSHRINK.callTensor(x, lambd); }

    public static Tensor softshrink(Tensor x) { return softshrink(x, 0.5); }

    /** {@code softmax(−x, dim)}. */
    public static Tensor softmin(Tensor x, int dim) { return softmax(x.neg(), dim); }

    /** The first half of the last dim times the sigmoid of the second half. */
    public static Tensor glu(Tensor x) { return ActivationOps.GLU.callTensor(x); }

    /** The first half of {@code dim} times the sigmoid of the second half; that dim's size must be even. */
    public static Tensor glu(Tensor x, int dim) { return ActivationOps.GLU.callTensor(x, (long) dim); }

    // ------------------------------------------------------------------ linear and convolution

    /** {@code x @ weight.T + bias}; {@code bias} may be null. */
    public static Tensor linear(Tensor x, Tensor weight, Tensor bias) { return LinalgOps.LINEAR.callTensor(x, weight, bias); }

    public static Tensor linear(Tensor x, Tensor weight) { return LinalgOps.LINEAR.callTensor(x, weight); }

    public static Tensor conv2d(Tensor x, Tensor weight, Tensor bias) { return ConvOps.CONV2D.callTensor(x, weight, bias); }

    public static Tensor conv2d(Tensor x, Tensor weight, Tensor bias, int stride, int padding) {
        return ConvOps.CONV2D.callTensor(x, weight, bias, stride, padding);
    }

    public static Tensor conv2d(Tensor x, Tensor weight, Tensor bias, int stride, int padding, int dilation, int groups) {
        return ConvOps.CONV2D.callTensor(x, weight, bias, stride, padding, dilation, (long) groups);
    }

    /** 2-d convolution with per-dimension {@code stride}, {@code padding}, {@code dilation} ({height, width}). */
    public static Tensor conv2d(Tensor x, Tensor weight, Tensor bias, int[] stride, int[] padding, int[] dilation, int groups) {
        return ConvOps.CONV2D.callTensor(x, weight, bias, stride, padding, dilation, (long) groups);
    }

    /** 3-d convolution of {@code [N, C, D, H, W]} (or {@code [C, D, H, W]}) input, as PyTorch's {@code F.conv3d}; {@code bias} may be null. */
    public static Tensor conv3d(Tensor x, Tensor weight, Tensor bias) { return ConvOps.CONV3D.callTensor(x, weight, bias); }

    public static Tensor conv3d(Tensor x, Tensor weight, Tensor bias, int stride, int padding, int dilation, int groups) {
        return ConvOps.CONV3D.callTensor(x, weight, bias, stride, padding, dilation, (long) groups);
    }

    /** 3-d convolution with per-dimension {@code stride}, {@code padding}, {@code dilation} ({depth, height, width}). */
    public static Tensor conv3d(Tensor x, Tensor weight, Tensor bias, int[] stride, int[] padding, int[] dilation, int groups) {
        return ConvOps.CONV3D.callTensor(x, weight, bias, stride, padding, dilation, (long) groups);
    }

    /**
     * 1-d convolution of {@code [N, C, L]} (or unbatched {@code [C, L]}) input with weight
     * {@code [out, C/groups, k]}, as PyTorch's {@code F.conv1d} with zero padding: computed, as
     * ATen's CPU path does, as a 2-d convolution over a height of 1.
     */
    public static Tensor conv1d(Tensor x, Tensor weight, Tensor bias, int stride, int padding, int dilation, int groups) {
        if (x.dim() != 2 && x.dim() != 3) {
            throw new IllegalArgumentException("Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: " + dev.ember.tensor.Shapes.format(x.shape()));
        }
        if (weight.dim() != 3) {
            throw new IllegalArgumentException("conv1d: expected a 3-D weight [out_channels, in_channels/groups, kernel_size], got " + weight.dim() + "-D");
        }
        Tensor batched = x.dim() == 3 ? x : x.unsqueeze(0);
        Tensor y = conv2d(batched.unsqueeze(2), weight.unsqueeze(2), bias, new int[] {1, stride}, new int[] {0, padding}, new int[] {1, dilation}, groups).squeeze(2);
        return x.dim() == 3 ? y : y.squeeze(0);
    }

    public static Tensor conv1d(Tensor x, Tensor weight, Tensor bias) { return conv1d(x, weight, bias, 1, 0, 1, 1); }

    /**
     * 1-d convolution with padding {@code "valid"} (none) or {@code "same"} (the output as long as
     * the input; stride 1 only), as PyTorch's {@code F.conv1d(..., padding='same')}; see
     * {@link #conv2d(Tensor, Tensor, Tensor, int[], String, int[], int)}.
     */
    public static Tensor conv1d(Tensor x, Tensor weight, Tensor bias, int stride, String padding, int dilation, int groups) {
        if (x.dim() != 2 && x.dim() != 3) {
            throw new IllegalArgumentException("Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: " + dev.ember.tensor.Shapes.format(x.shape()));
        }
        int[] pad = stringPadding(x.dim() == 3 ? x : x.unsqueeze(0), weight, new int[] {stride}, padding, new int[] {dilation}, groups, 1);
        return conv1d(pad.length == 1 ? x : pad(x, java.util.Arrays.copyOfRange(pad, 1, pad.length)), weight, bias, stride, pad[0], dilation, groups);
    }

    /**
     * 2-d convolution with padding {@code "valid"} (none) or {@code "same"} (output as large as the
     * input; stride 1 only), as ATen's {@code _convolution_mode}: each dim is padded by
     * dilation·(kernel−1) in all, half each side, and an odd extra on the right by zero-padding the
     * input first (constant_pad_nd, then the convolution).
     */
    public static Tensor conv2d(Tensor x, Tensor weight, Tensor bias, int[] stride, String padding, int[] dilation, int groups) {
        if (x.dim() != 3 && x.dim() != 4) {
            throw new IllegalArgumentException("Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: " + dev.ember.tensor.Shapes.format(x.shape()));
        }
        int[] pad = stringPadding(x.dim() == 3 ? x.unsqueeze(0) : x, weight, stride, padding, dilation, groups, 2);
        return conv2d(pad.length == 2 ? x : pad(x, java.util.Arrays.copyOfRange(pad, 2, pad.length)), weight, bias, stride,
                java.util.Arrays.copyOf(pad, 2), dilation, groups);
    }

    /** 3-d convolution with padding {@code "valid"} or {@code "same"}; see {@link #conv2d(Tensor, Tensor, Tensor, int[], String, int[], int)}. */
    public static Tensor conv3d(Tensor x, Tensor weight, Tensor bias, int[] stride, String padding, int[] dilation, int groups) {
        if (x.dim() != 4 && x.dim() != 5) {
            throw new IllegalArgumentException("Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: " + dev.ember.tensor.Shapes.format(x.shape()));
        }
        int[] pad = stringPadding(x.dim() == 4 ? x.unsqueeze(0) : x, weight, stride, padding, dilation, groups, 3);
        return conv3d(pad.length == 3 ? x : pad(x, java.util.Arrays.copyOfRange(pad, 3, pad.length)), weight, bias, stride,
                java.util.Arrays.copyOf(pad, 3), dilation, groups);
    }

    /**
     * For a string padding: the symmetric padding per spatial dim and, when "same" needs one more
     * on the right of some dim, after them F.pad's amounts (last dim first) that add it, as ATen's
     * _convolution_same.
     */
    private static int[] stringPadding(Tensor batched, Tensor weight, int[] stride, String padding, int[] dilation, int groups, int dims) {
        if (padding.equals("valid")) return new int[dims];
        if (!padding.equals("same")) throw new IllegalArgumentException("Invalid padding string: '" + padding + "'");
        int k = weight.dim();
        if (k < 3) throw new IllegalArgumentException("weight should have at least three dimensions");
        if (groups <= 0) throw new IllegalArgumentException("non-positive groups is not supported");
        if (batched.dim() != k) {
            throw new IllegalArgumentException("Expected " + k + "-dimensional input for " + k + "-dimensional weight " + dev.ember.tensor.Shapes.format(weight.shape())
                    + ", but got " + batched.dim() + "-dimensional input of size " + dev.ember.tensor.Shapes.format(batched.shape()) + " instead");
        }
        for (int s : stride) if (s != 1) throw new IllegalArgumentException("padding='same' is not supported for strided convolutions");
        int[] symmetric = new int[dims], extra = new int[2 * dims];
        boolean asymmetric = false;
        for (int d = 0; d < dims; d++) {
            int dil = dilation.length == 1 ? dilation[0] : dilation[d];
            int total = dil * (weight.size(d + 2) - 1), left = total / 2;
            symmetric[d] = left;
            if (total - left != left) {
                asymmetric = true;
                extra[2 * (dims - 1 - d) + 1] = total - 2 * left;
            }
        }
        if (!asymmetric) return symmetric;
        int[] out = java.util.Arrays.copyOf(symmetric, 3 * dims);
        System.arraycopy(extra, 0, out, dims, 2 * dims);
        return out;
    }

    /**
     * The transposed 2-d convolution of {@code [N, C, H, W]} (or unbatched {@code [C, H, W]}) input
     * with weight {@code [C, out/groups, kH, kW]}, as PyTorch's {@code F.conv_transpose2d}.
     */
    public static Tensor convTranspose2d(Tensor x, Tensor weight, Tensor bias, int stride, int padding, int outputPadding, int groups, int dilation) {
        return ConvOps.CONV_TRANSPOSE2D.callTensor(x, weight, bias, stride, padding, outputPadding, (long) groups, dilation);
    }

    public static Tensor convTranspose2d(Tensor x, Tensor weight, Tensor bias) { return ConvOps.CONV_TRANSPOSE2D.callTensor(x, weight, bias); }

    /** The transposed 3-d convolution of {@code [N, C, D, H, W]} (or {@code [C, D, H, W]}) input, as PyTorch's {@code F.conv_transpose3d}; {@code bias} may be null. */
    public static Tensor convTranspose3d(Tensor x, Tensor weight, Tensor bias, int stride, int padding, int outputPadding, int groups, int dilation) {
        return ConvOps.CONV_TRANSPOSE3D.callTensor(x, weight, bias, stride, padding, outputPadding, (long) groups, dilation);
    }

    public static Tensor convTranspose3d(Tensor x, Tensor weight, Tensor bias) { return ConvOps.CONV_TRANSPOSE3D.callTensor(x, weight, bias); }

    /**
     * The transposed 1-d convolution of {@code [N, C, L]} (or unbatched {@code [C, L]}) input with
     * weight {@code [C, out/groups, k]}, as PyTorch's {@code F.conv_transpose1d}: the transposed
     * 2-d convolution over a height of 1, as conv1d is computed.
     */
    public static Tensor convTranspose1d(Tensor x, Tensor weight, Tensor bias, int stride, int padding, int outputPadding, int groups, int dilation) {
        if (x.dim() != 2 && x.dim() != 3) {
            throw new IllegalArgumentException("Expected 2D (unbatched) or 3D (batched) input to conv_transpose1d, but got input of size: " + dev.ember.tensor.Shapes.format(x.shape()));
        }
        if (weight.dim() != 3) {
            throw new IllegalArgumentException("conv_transpose1d: expected a 3-D weight [in_channels, out_channels/groups, kernel_size], got " + weight.dim() + "-D");
        }
        Tensor batched = x.dim() == 3 ? x : x.unsqueeze(0);
        Tensor y = ConvOps.CONV_TRANSPOSE2D.callTensor(batched.unsqueeze(2), weight.unsqueeze(2), bias, new int[] {1, stride}, new int[] {0, padding},
                new int[] {0, outputPadding}, (long) groups, new int[] {1, dilation}).squeeze(2);
        return x.dim() == 3 ? y : y.squeeze(0);
    }

    public static Tensor convTranspose1d(Tensor x, Tensor weight, Tensor bias) { return convTranspose1d(x, weight, bias, 1, 0, 0, 1, 1); }

    // ------------------------------------------------------------------ pixel shuffle, bilinear

    /** {@code [*, C·r², H, W]} → {@code [*, C, H·r, W·r]} (torch's F.pixel_shuffle). */
    /** The channels of {@code [N, C, *]} from {@code groups} groups interleaved, as PyTorch's {@code F.channel_shuffle}. */
    public static Tensor channelShuffle(Tensor x, int groups) { return NnComposites.CHANNEL_SHUFFLE.callTensor(x, (long) groups); }

    public static Tensor pixelShuffle(Tensor x, int upscaleFactor) { return NnComposites.PIXEL_SHUFFLE.callTensor(x, (long) upscaleFactor); }

    /** {@code [*, C, H·r, W·r]} → {@code [*, C·r², H, W]} (torch's F.pixel_unshuffle). */
    public static Tensor pixelUnshuffle(Tensor x, int downscaleFactor) { return NnComposites.PIXEL_UNSHUFFLE.callTensor(x, (long) downscaleFactor); }

    /** {@code x1ᵀ W x2 + b} per output feature: weight {@code [out, in1, in2]}, bias {@code [out]} or null (torch's F.bilinear). */
    public static Tensor bilinear(Tensor x1, Tensor x2, Tensor weight, Tensor bias) { return NnComposites.BILINEAR.callTensor(x1, x2, weight, bias); }

    // ------------------------------------------------------------------ instance norm

    /**
     * Instance normalization of {@code [N, C, *]} input, as ATen's instance_norm: the input seen as
     * one batch of N·C channels and batch-normalized (each instance's channel by its own statistics
     * when {@code useInputStats}, else by the running ones), weight and bias repeated per instance;
     * in training with running statistics, each is updated to the mean over the instances of the
     * per-instance updates. Running statistics may be null (then {@code useInputStats} must be true).
     */
    public static Tensor instanceNorm(Tensor x, Tensor runningMean, Tensor runningVar, Tensor weight, Tensor bias, boolean useInputStats, double momentum, double eps) {
        if (!useInputStats && (runningMean == null || runningVar == null)) {
            throw new IllegalArgumentException("Expected running_mean and running_var to be defined when use_input_stats is false");
        }
        if (x.dim() < 2) throw new IllegalArgumentException("instance_norm: expected an input of at least 2 dims [N, C, *], got " + dev.ember.tensor.Shapes.format(x.shape()));
        int n = x.size(0), c = x.size(1);
        if (useInputStats) {
            long spatial = 1;
            for (int d = 2; d < x.dim(); d++) spatial *= x.size(d);
            if (spatial == 1) {
                throw new IllegalArgumentException("Expected more than 1 spatial element when training, got input size " + dev.ember.tensor.Shapes.format(x.shape()));
            }
        }
        int[] shape = x.shape();
        int[] asBatch = shape.clone();
        asBatch[0] = 1;
        asBatch[1] = n * c;
        Tensor rm = runningMean == null ? null : runningMean.repeat(n), rv = runningVar == null ? null : runningVar.repeat(n);
        Tensor out = batchNorm(x.reshape(asBatch), rm, rv, weight == null ? null : weight.repeat(n), bias == null ? null : bias.repeat(n), useInputStats, momentum, eps);
        if (runningMean != null && useInputStats) {
            try (var unused = dev.ember.autograd.GradMode.noGrad()) {
                runningMean.copy_(rm.view(n, c).mean(0));
                runningVar.copy_(rv.view(n, c).mean(0));
            }
        }
        return out.view(shape);
    }

    /** Instance normalization with each instance's own statistics and no affine part (F.instance_norm's defaults). */
    public static Tensor instanceNorm(Tensor x) { return instanceNorm(x, null, null, null, null, true, 0.1, 1e-5); }

    // ------------------------------------------------------------------ pooling

    /**
     * Max pooling over the last dim of {@code [N, C, L]} (or {@code [C, L]}) input, as PyTorch's
     * {@code F.max_pool1d}: a 2-d pooling over a height of 1, as ATen's CPU path computes it.
     */
    public static Tensor maxPool1d(Tensor x, int kernelSize, int stride, int padding, int dilation, boolean ceilMode) {
        requirePool1dInput("max_pool1d", x);
        return maxPool2d(x.unsqueeze(-2), new int[] {1, kernelSize}, new int[] {1, stride}, new int[] {0, padding}, new int[] {1, dilation}, ceilMode).squeeze(-2);
    }

    public static Tensor maxPool1d(Tensor x, int kernelSize) { return maxPool1d(x, kernelSize, kernelSize, 0, 1, false); }

    /**
     * {@link #maxPool1d} and, second, each maximum's int64 index along the last dim (PyTorch's
     * {@code return_indices=True}): ATen's max_pool1d_with_indices, 2-d pooling over a height of one.
     */
    public static java.util.List<Tensor> maxPool1dWithIndices(Tensor x, int kernelSize, int stride, int padding, int dilation, boolean ceilMode) {
        requirePool1dInput("max_pool1d_with_indices", x);
        java.util.List<Tensor> both = maxPool2dWithIndices(x.unsqueeze(-2), new int[] {1, kernelSize}, new int[] {1, stride}, new int[] {0, padding}, new int[] {1, dilation}, ceilMode);
        return java.util.List.of(both.get(0).squeeze(-2), both.get(1).squeeze(-2));
    }

    /** Average pooling over the last dim of {@code [N, C, L]} (or {@code [C, L]}) input, as PyTorch's {@code F.avg_pool1d}. */
    public static Tensor avgPool1d(Tensor x, int kernelSize, int stride, int padding, boolean ceilMode, boolean countIncludePad) {
        requirePool1dInput("avg_pool1d", x);
        return avgPool2d(x.unsqueeze(-2), new int[] {1, kernelSize}, new int[] {1, stride}, new int[] {0, padding}, ceilMode, countIncludePad, null).squeeze(-2);
    }

    public static Tensor avgPool1d(Tensor x, int kernelSize) { return avgPool1d(x, kernelSize, kernelSize, 0, false, true); }

    /** Adaptive average pooling of the last dim to {@code outputSize}, as PyTorch's {@code F.adaptive_avg_pool1d}. */
    public static Tensor adaptiveAvgPool1d(Tensor x, int outputSize) {
        requirePool1dInput("adaptive_avg_pool1d", x);
        return adaptiveAvgPool2d(x.unsqueeze(-2), new int[] {1, outputSize}).squeeze(-2);
    }

    private static void requirePool1dInput(String op, Tensor x) {
        if (x.dim() != 2 && x.dim() != 3) {
            throw new IllegalArgumentException(op + ": Expected 2D or 3D (batch mode) tensor for input, but got " + dev.ember.tensor.Shapes.format(x.shape()));
        }
    }

    /** Max pooling with stride = kernel size. */
    public static Tensor maxPool2d(Tensor x, int kernelSize) { return ConvOps.MAX_POOL2D.callTensor(x, kernelSize); }

    public static Tensor maxPool2d(Tensor x, int kernelSize, int stride) { return ConvOps.MAX_POOL2D.callTensor(x, kernelSize, stride); }

    public static Tensor maxPool2d(Tensor x, int kernelSize, int stride, int padding) {
        return ConvOps.MAX_POOL2D.callTensor(x, kernelSize, stride, padding);
    }

    public static Tensor maxPool2d(Tensor x, int[] kernelSize, int[] stride, int[] padding, int[] dilation, boolean ceilMode) {
        return ConvOps.MAX_POOL2D.callTensor(x, kernelSize, stride, padding, dilation, ceilMode);
    }

    /** {@link #maxPool2d} and, second, each maximum's int64 index in its channel's flattened H·W (PyTorch's {@code return_indices=True}). */
    public static java.util.List<Tensor> maxPool2dWithIndices(Tensor x, int[] kernelSize, int[] stride, int[] padding, int[] dilation, boolean ceilMode) {
        return ConvOps.MAX_POOL2D_WITH_INDICES.callList(x, kernelSize, stride, padding, dilation, ceilMode);
    }

    /** Average pooling with stride = kernel size. */
    public static Tensor avgPool2d(Tensor x, int kernelSize) { return ConvOps.AVG_POOL2D.callTensor(x, kernelSize); }

    public static Tensor avgPool2d(Tensor x, int kernelSize, int stride) { return ConvOps.AVG_POOL2D.callTensor(x, kernelSize, stride); }

    public static Tensor avgPool2d(Tensor x, int kernelSize, int stride, int padding) {
        return ConvOps.AVG_POOL2D.callTensor(x, kernelSize, stride, padding);
    }

    /** Average pooling; {@code divisorOverride} may be null. */
    public static Tensor avgPool2d(Tensor x, int[] kernelSize, int[] stride, int[] padding, boolean ceilMode, boolean countIncludePad, Integer divisorOverride) {
        return ConvOps.AVG_POOL2D.callTensor(x, kernelSize, stride, padding, ceilMode, countIncludePad,
                divisorOverride == null ? null : (long) divisorOverride);
    }

    /**
     * Max pooling over the last three dims of {@code [N, C, D, H, W]} (or {@code [C, D, H, W]}) input,
     * as PyTorch's {@code F.max_pool3d}; an empty {@code stride} is the kernel size.
     */
    public static Tensor maxPool3d(Tensor x, int[] kernelSize, int[] stride, int[] padding, int[] dilation, boolean ceilMode) {
        return ConvOps.MAX_POOL3D.callTensor(x, kernelSize, stride, padding, dilation, ceilMode);
    }

    /** Max pooling with stride = kernel size in every dimension. */
    public static Tensor maxPool3d(Tensor x, int kernelSize) { return ConvOps.MAX_POOL3D.callTensor(x, new int[] {kernelSize}); }

    /** {@link #maxPool3d} and, second, each maximum's int64 index in its channel's flattened D·H·W (PyTorch's {@code return_indices=True}). */
    public static java.util.List<Tensor> maxPool3dWithIndices(Tensor x, int[] kernelSize, int[] stride, int[] padding, int[] dilation, boolean ceilMode) {
        return ConvOps.MAX_POOL3D_WITH_INDICES.callList(x, kernelSize, stride, padding, dilation, ceilMode);
    }

    /** Average pooling over the last three dims, as PyTorch's {@code F.avg_pool3d}; {@code divisorOverride} may be null. */
    public static Tensor avgPool3d(Tensor x, int[] kernelSize, int[] stride, int[] padding, boolean ceilMode, boolean countIncludePad, Integer divisorOverride) {
        return ConvOps.AVG_POOL3D.callTensor(x, kernelSize, stride, padding, ceilMode, countIncludePad, divisorOverride == null ? null : (long) divisorOverride);
    }

    /** Average pooling with stride = kernel size in every dimension. */
    public static Tensor avgPool3d(Tensor x, int kernelSize) { return ConvOps.AVG_POOL3D.callTensor(x, new int[] {kernelSize}); }

    /** Adaptive average pooling of the last three dims to {@code outputSize} {depth, height, width}, as PyTorch's {@code F.adaptive_avg_pool3d}. */
    public static Tensor adaptiveAvgPool3d(Tensor x, int[] outputSize) { return ConvOps.ADAPTIVE_AVG_POOL3D.callTensor(x, outputSize); }

    /** Max pooling of {@code [N, C, H, W]} (or {@code [C, H, W]}) to {@code outputSize} {height, width} (PyTorch's {@code F.adaptive_max_pool2d}). */
    /** Max pooling of {@code [N, C, D, H, W]} (or {@code [C, D, H, W]}) to {@code outputSize} {depth, height, width} (PyTorch's {@code F.adaptive_max_pool3d}). */
    public static Tensor adaptiveMaxPool3d(Tensor x, int[] outputSize) { return adaptiveMaxPool3dWithIndices(x, outputSize).get(0); }

    /** {@link #adaptiveMaxPool3d} and, second, the int64 index of each maximum in its channel's flattened D·H·W (what {@code max_unpool3d} takes). */
    public static java.util.List<Tensor> adaptiveMaxPool3dWithIndices(Tensor x, int[] outputSize) {
        return NnComposites.ADAPTIVE_MAX_POOL3D.callList(x, outputSize);
    }

    /** Max pooling of {@code [N, C, L]} (or {@code [C, L]}) to {@code outputSize} positions (PyTorch's {@code F.adaptive_max_pool1d}). */
    public static Tensor adaptiveMaxPool1d(Tensor x, int outputSize) { return adaptiveMaxPool1dWithIndices(x, outputSize).get(0); }

    /**
     * {@link #adaptiveMaxPool1d} and, second, each maximum's int64 index along L: as ATen's
     * adaptive_max_pool1d, adaptive_max_pool2d over a height of 1.
     */
    public static java.util.List<Tensor> adaptiveMaxPool1dWithIndices(Tensor x, int outputSize) {
        if (x.dim() != 2 && x.dim() != 3) {
            throw new IllegalArgumentException("adaptive_max_pool1d(): Expected 2 to 3 dimensions, but got " + x.dim() + "-dimensional tensor for argument #1 'self' (while checking arguments for adaptive_max_pool1d)");
        }
        for (int d = x.dim() - 2; d < x.dim(); d++) {
            if (x.size(d) == 0) {
                throw new IllegalArgumentException("adaptive_max_pool1d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
                        + dev.ember.tensor.Shapes.format(x.shape()) + " with dimension " + d + " being empty");
            }
        }
        java.util.List<Tensor> both = adaptiveMaxPool2dWithIndices(x.unsqueeze(-2), new int[] {1, outputSize});
        return java.util.List.of(both.get(0).squeeze(-2), both.get(1).squeeze(-2));
    }

    /**
     * The inverse of max pooling, as PyTorch's {@code F.max_unpool1d}: each value of
     * {@code [N, C, L]} (or {@code [C, L]}) placed at its index, zeros elsewhere, in a length of
     * {@code (L − 1)·stride + kernel − 2·padding} or {@code outputSize} (null, or within a stride of
     * that); max_unpool2d over a width of 1, as PyTorch's.
     */
    public static Tensor maxUnpool1d(Tensor x, Tensor indices, int kernelSize, int stride, int padding, int[] outputSize) {
        int[] size = unpoolOutputSize(x, new int[] {kernelSize}, new int[] {stride}, new int[] {padding}, outputSize);
        return NnComposites.MAX_UNPOOL2D.callTensor(x.unsqueeze(-1), indices.unsqueeze(-1), new int[] {size[0], 1}).squeeze(-1);
    }

    /** The inverse of 2-d max pooling, as PyTorch's {@code F.max_unpool2d}; see {@link #maxUnpool1d}. Sizes are {height, width}. */
    public static Tensor maxUnpool2d(Tensor x, Tensor indices, int[] kernelSize, int[] stride, int[] padding, int[] outputSize) {
        return NnComposites.MAX_UNPOOL2D.callTensor(x, indices, unpoolOutputSize(x, kernelSize, stride, padding, outputSize));
    }

    /** The inverse of 3-d max pooling, as PyTorch's {@code F.max_unpool3d}; see {@link #maxUnpool1d}. Sizes are {depth, height, width}. */
    public static Tensor maxUnpool3d(Tensor x, Tensor indices, int[] kernelSize, int[] stride, int[] padding, int[] outputSize) {
        return NnComposites.MAX_UNPOOL3D.callTensor(x, indices, unpoolOutputSize(x, kernelSize, stride, padding, outputSize), stride, padding);
    }

    /** PyTorch's {@code _unpool_output_size}: the default size, or {@code outputSize} (optionally with N and C first) checked to lie within a stride of it. */
    private static int[] unpoolOutputSize(Tensor x, int[] kernelSize, int[] stride, int[] padding, int[] outputSize) {
        int dims = kernelSize.length;
        int[] defaults = new int[dims];
        for (int d = 0; d < dims; d++) defaults[d] = (x.size(x.dim() - dims + d) - 1) * stride[d] + kernelSize[d] - 2 * padding[d];
        if (outputSize == null) return defaults;
        int[] given = outputSize.length == dims + 2 ? java.util.Arrays.copyOfRange(outputSize, 2, outputSize.length) : outputSize;
        if (given.length != dims) {
            throw new IllegalArgumentException("output_size should be a sequence containing " + dims + " or " + (dims + 2) + " elements, but it has a length of '" + given.length + "'");
        }
        for (int d = 0; d < dims; d++) {
            int min = defaults[d] - stride[d], max = defaults[d] + stride[d];
            if (!(min < given[d] && given[d] < max)) {
                throw new IllegalArgumentException("invalid output_size \"" + java.util.Arrays.toString(outputSize) + "\" (dim " + d + " must be between " + min + " and " + max + ")");
            }
        }
        return given.clone();
    }

    /**
     * Power-average pooling, as PyTorch's {@code F.lp_pool1d}: {@code (Σ x^p)^(1/p)} over each
     * window of {@code [N, C, L]} (or {@code [C, L]}), computed as PyTorch's, by avg_pool1d of
     * {@code x^p} times the window size; {@code stride} defaults to the kernel size when 0 or less.
     */
    public static Tensor lpPool1d(Tensor x, double normType, int kernelSize, int stride, boolean ceilMode) {
        Tensor out = avgPool1d(x.pow(normType), kernelSize, stride > 0 ? stride : kernelSize, 0, ceilMode, true);
        return out.sign().mul(out.abs().relu()).mul(kernelSize).pow(1.0 / normType);
    }

    /** Power-average pooling over {@code [N, C, H, W]} (or {@code [C, H, W]}), as PyTorch's {@code F.lp_pool2d}; see {@link #lpPool1d}. Sizes are {height, width}; a null stride is the kernel size. */
    public static Tensor lpPool2d(Tensor x, double normType, int[] kernelSize, int[] stride, boolean ceilMode) {
        Tensor out = avgPool2d(x.pow(normType), kernelSize, stride != null ? stride : kernelSize, new int[] {0, 0}, ceilMode, true, null);
        return out.sign().mul(out.abs().relu()).mul(kernelSize[0] * kernelSize[1]).pow(1.0 / normType);
    }

    /** Power-average pooling over {@code [N, C, D, H, W]} (or {@code [C, D, H, W]}), as PyTorch's {@code F.lp_pool3d}; see {@link #lpPool1d}. Sizes are {depth, height, width}; a null stride is the kernel size. */
    public static Tensor lpPool3d(Tensor x, double normType, int[] kernelSize, int[] stride, boolean ceilMode) {
        Tensor out = avgPool3d(x.pow(normType), kernelSize, stride != null ? stride : kernelSize, new int[] {0, 0, 0}, ceilMode, true, null);
        return out.sign().mul(out.abs().relu()).mul(kernelSize[0] * kernelSize[1] * kernelSize[2]).pow(1.0 / normType);
    }

    public static Tensor adaptiveMaxPool2d(Tensor x, int[] outputSize) { return adaptiveMaxPool2dWithIndices(x, outputSize).get(0); }

    /**
     * {@link #adaptiveMaxPool2d} and, second, the int64 index of each maximum in its channel's
     * flattened H·W (PyTorch's {@code return_indices=True}; what {@code max_unpool2d} takes).
     */
    public static java.util.List<Tensor> adaptiveMaxPool2dWithIndices(Tensor x, int[] outputSize) {
        return NnComposites.ADAPTIVE_MAX_POOL2D.callList(x, outputSize);
    }

    public static Tensor adaptiveAvgPool2d(Tensor x, int outputSize) { return ConvOps.ADAPTIVE_AVG_POOL2D.callTensor(x, outputSize); }

    public static Tensor adaptiveAvgPool2d(Tensor x, int[] outputSize) { return ConvOps.ADAPTIVE_AVG_POOL2D.callTensor(x, outputSize); }

    // ------------------------------------------------------------------ normalization

    /**
     * Batch normalization over dimension 1. In training it normalizes with the batch statistics
     * and, when given, updates {@code runningMean}/{@code runningVar} in place with {@code momentum};
     * otherwise it uses the running statistics. Every tensor but {@code x} may be null.
     */
    public static Tensor batchNorm(Tensor x, Tensor runningMean, Tensor runningVar, Tensor weight, Tensor bias, boolean training, double momentum, double eps) {
        return NormOps.BATCH_NORM.callTensor(x, weight, bias, runningMean, runningVar, training, momentum, eps);
    }

    /** Layer normalization over the last {@code normalizedShape.length} dimensions; {@code weight}, {@code bias} may be null. */
    public static Tensor layerNorm(Tensor x, int[] normalizedShape, Tensor weight, Tensor bias, double eps) {
        return NormOps.LAYER_NORM.callTensor(x, normalizedShape, weight, bias, eps);
    }

    public static Tensor layerNorm(Tensor x, int[] normalizedShape) { return NormOps.LAYER_NORM.callTensor(x, normalizedShape); }

    /** torch.nn.functional.rms_norm: {@code x · rsqrt(mean(x², last dims) + eps) · weight}; weight and eps may be null (eps: the dtype's machine epsilon). */
    public static Tensor rmsNorm(Tensor x, int[] normalizedShape, Tensor weight, Double eps) {
        return NormOps.RMS_NORM.callTensor(x, normalizedShape, weight, eps);
    }

    public static Tensor rmsNorm(Tensor x, int[] normalizedShape) { return NormOps.RMS_NORM.callTensor(x, normalizedShape); }

    /**
     * Group normalization of an (N, C, …) input over {@code numGroups} groups of channels, then
     * {@code weight} and {@code bias} per channel (each may be null).
     */
    public static Tensor groupNorm(Tensor x, int numGroups, Tensor weight, Tensor bias, double eps) {
        return NormOps.GROUP_NORM.callTensor(x, (long) numGroups, weight, bias, eps);
    }

    public static Tensor groupNorm(Tensor x, int numGroups) { return NormOps.GROUP_NORM.callTensor(x, (long) numGroups); }

    /** {@code x / max(‖x‖₂, 1e-12)} along dim 1. */
    public static Tensor normalize(Tensor x) { return normalize(x, 2.0, 1, 1e-12); }

    /** {@code x / max(‖x‖_p, eps)} along {@code dim}, as PyTorch's Python computes it. */
    public static Tensor normalize(Tensor x, double p, int dim, double eps) {
        return x.div(DistanceOps.LINALG_VECTOR_NORM.callTensor(x, p, new int[] {dim}, true).clampMin(eps));
    }

    /**
     * {@code F.fractional_max_pool2d} with {@code return_indices}: values and flat indices per plane;
     * {@code outputSize} or {@code outputRatio} (the other null); {@code randomSamples} {@code [N, C, 2]}
     * in [0, 1) fixes the windows (null: drawn). See {@link FractionalMaxPool2d}.
     */
    public static java.util.List<Tensor> fractionalMaxPool2dWithIndices(Tensor x, int[] kernelSize, int[] outputSize, double[] outputRatio, Tensor randomSamples) {
        return FractionalMaxPooling.pool("fractional_max_pool2d", x, kernelSize, outputSize, outputRatio, randomSamples);
    }

    public static Tensor fractionalMaxPool2d(Tensor x, int[] kernelSize, int[] outputSize, double[] outputRatio, Tensor randomSamples) {
        return fractionalMaxPool2dWithIndices(x, kernelSize, outputSize, outputRatio, randomSamples).get(0);
    }

    /** {@code F.fractional_max_pool3d} with {@code return_indices}; {@code randomSamples} {@code [N, C, 3]}. */
    public static java.util.List<Tensor> fractionalMaxPool3dWithIndices(Tensor x, int[] kernelSize, int[] outputSize, double[] outputRatio, Tensor randomSamples) {
        return FractionalMaxPooling.pool("fractional_max_pool3d", x, kernelSize, outputSize, outputRatio, randomSamples);
    }

    public static Tensor fractionalMaxPool3d(Tensor x, int[] kernelSize, int[] outputSize, double[] outputRatio, Tensor randomSamples) {
        return fractionalMaxPool3dWithIndices(x, kernelSize, outputSize, outputRatio, randomSamples).get(0);
    }

    // ------------------------------------------------------------------ distances and padding

    /** Cosine of the angle between {@code x1} and {@code x2} (broadcast together) along dim 1, each norm at least 1e-8. */
    public static Tensor cosineSimilarity(Tensor x1, Tensor x2) { return DistanceOps.COSINE_SIMILARITY.callTensor(x1, x2); }

    public static Tensor cosineSimilarity(Tensor x1, Tensor x2, int dim, double eps) {
        return DistanceOps.COSINE_SIMILARITY.callTensor(x1, x2, (long) dim, eps);
    }

    /** {@code ‖x1 − x2 + 1e-6‖₂} along the last dim. */
    /** The Euclidean distances between each pair of rows i < j of a 2-d input, {@code n (n - 1) / 2} of them (F.pdist). */
    public static Tensor pdist(Tensor x) { return pdist(x, 2.0); }

    /** {@link #pdist(Tensor)} with the p-norm ({@code p >= 0}, inf too). */
    public static Tensor pdist(Tensor x, double p) { return DistanceOps.PDIST.callTensor(x, p); }

    public static Tensor pairwiseDistance(Tensor x1, Tensor x2) { return DistanceOps.PAIRWISE_DISTANCE.callTensor(x1, x2); }

    public static Tensor pairwiseDistance(Tensor x1, Tensor x2, double p, double eps, boolean keepdim) {
        return DistanceOps.PAIRWISE_DISTANCE.callTensor(x1, x2, p, eps, keepdim);
    }

    /**
     * Constant padding with zeros: {@code pad} holds (before, after) pairs from the last dim
     * backwards, e.g. {@code {1, 1, 2, 0}} pads the last dim by 1 on each side and the one before
     * it by 2 in front; negative amounts crop.
     */
    public static Tensor pad(Tensor x, int[] pad) { return NnOps.CONSTANT_PAD_ND.callTensor(x, pad); }

    public static Tensor pad(Tensor x, int[] pad, double value) { return NnOps.CONSTANT_PAD_ND.callTensor(x, pad, value); }

    /**
     * Padding in {@code mode} "constant" (zeros), "reflect" (mirrored, the edge not repeated; each
     * amount less than its dim's size), "replicate" (the edge repeated) or "circular" (wrapped), as
     * {@code F.pad(x, pad, mode)}: the non-constant modes pad the last dim of a 2-d or 3-d input
     * ({@code pad} of length 2) or the last two of a 3-d or 4-d input (length 4).
     */
    public static Tensor pad(Tensor x, int[] pad, String mode) { return PadOps.PAD.callTensor(x, pad, mode); }

    /** {@code F.pad(x, pad, mode, value)}: {@code value} only with "constant" (ATen refuses another nonzero value). */
    public static Tensor pad(Tensor x, int[] pad, String mode, double value) { return PadOps.PAD.callTensor(x, pad, mode, value); }

    // ------------------------------------------------------------------ resampling

    /**
     * Resizes the last 1 (an (N, C, W) input), 2 (N, C, H, W) or 3 (N, C, D, H, W) dims to
     * {@code size}, as {@code F.interpolate(x, size, mode=mode)}: {@code mode} "nearest",
     * "nearest-exact", "area", "linear" (3-d), "bilinear" or "bicubic" (4-d), "trilinear" (5-d),
     * align_corners false for the interpolating modes.
     */
    public static Tensor interpolate(Tensor x, int[] size, String mode) { return interpolate(x, size, null, mode, null, null); }

    /** Scales the spatial dims by {@code scaleFactor}: the output size is {@code floor(in · scaleFactor)}, and the kernel uses the scale given. */
    public static Tensor interpolate(Tensor x, double scaleFactor, String mode) { return interpolate(x, null, new double[] {scaleFactor}, mode, null, null); }

    private static final java.util.Set<String> INTERPOLATE_MODES = java.util.Set.of("nearest", "nearest-exact", "area", "linear", "bilinear", "bicubic", "trilinear");

    /**
     * PyTorch's {@code F.interpolate} with its rules: exactly one of {@code size} and
     * {@code scaleFactor} (one value for every spatial dim, or one per dim); {@code alignCorners}
     * (null: false) only with the interpolating modes (linear, bilinear, bicubic, trilinear); with a
     * scale factor the output size is {@code floor(in · scale)} and the kernel computes with the
     * scale given, unless {@code recomputeScaleFactor} is true (then it computes as for that size).
     * "area" is adaptive average pooling to the output size. Any of the nullable arguments may be null.
     */
    public static Tensor interpolate(Tensor x, int[] size, double[] scaleFactor, String mode, Boolean alignCorners, Boolean recomputeScaleFactor) {
        return interpolate(x, size, scaleFactor, mode, alignCorners, recomputeScaleFactor, false);
    }

    /**
     * {@link #interpolate(Tensor, int[], double[], String, Boolean, Boolean)} with {@code antialias}
     * (bilinear and bicubic on 4-d input): ATen's {@code _upsample_bilinear2d_aa} /
     * {@code _upsample_bicubic2d_aa}, which when shrinking widen the filter by the scale (the
     * triangle, or the cubic with a = −0.5, over {@code scale} input pixels per output pixel) so every
     * input pixel counts, as PIL resizes. The filter is separable: two matrix products.
     */
    public static Tensor interpolate(Tensor x, int[] size, double[] scaleFactor, String mode, Boolean alignCorners, Boolean recomputeScaleFactor, boolean antialias) {
        if (antialias && !((mode.equals("bilinear") || mode.equals("bicubic")) && x.dim() == 4)) {
            throw new IllegalArgumentException("Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D tensor as input");
        }
        if (!INTERPOLATE_MODES.contains(mode)) {
            throw new IllegalArgumentException("interpolate: mode '" + mode + "' is not supported: the modes are nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact");
        }
        boolean interpolating = mode.equals("linear") || mode.equals("bilinear") || mode.equals("bicubic") || mode.equals("trilinear");
        if (!interpolating && alignCorners != null) {
            throw new IllegalArgumentException("interpolate: align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear");
        }
        int dims = x.dim() - 2;
        if (size != null && scaleFactor != null) throw new IllegalArgumentException("interpolate: only one of size or scale_factor should be defined");
        if (size == null && scaleFactor == null) throw new IllegalArgumentException("interpolate: either size or scale_factor should be defined");
        if (Boolean.TRUE.equals(recomputeScaleFactor) && size != null) {
            throw new IllegalArgumentException("interpolate: recompute_scale_factor is not meaningful with an explicit size.");
        }
        // the mode against the rank, in F.interpolate's order and words
        int wanted = switch (mode) { case "linear" -> 3; case "bilinear", "bicubic" -> 4; case "trilinear" -> 5; default -> 0; };
        if (x.dim() >= 3 && x.dim() <= 5 && wanted != 0 && wanted != x.dim() && !mode.equals("bicubic")) {
            throw new UnsupportedOperationException("interpolate: Got " + x.dim() + "D input, but " + mode + " mode needs " + wanted + "D input");
        }
        if (x.dim() < 3 || x.dim() > 5 || (mode.equals("bicubic") && x.dim() != 4)) {
            throw new UnsupportedOperationException("interpolate: Input Error: Only 3D, 4D and 5D input Tensors supported (got " + x.dim()
                    + "D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got " + mode + ")");
        }
        int[] outSize = new int[dims];
        Double[] scales = new Double[dims];
        if (size != null) {
            if (size.length == 1) java.util.Arrays.fill(outSize, size[0]);
            else if (size.length == dims) outSize = size.clone();
            else throw new IllegalArgumentException("interpolate: Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of "
                    + java.util.Arrays.toString(java.util.Arrays.copyOfRange(x.shape(), 2, x.dim())) + " and output size of " + java.util.Arrays.toString(size)
                    + ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.");
        } else {
            if (scaleFactor.length != 1 && scaleFactor.length != dims) {
                throw new IllegalArgumentException("interpolate: Input and scale_factor must have the same number of spatial dimensions, but got input with spatial dimensions of "
                        + java.util.Arrays.toString(java.util.Arrays.copyOfRange(x.shape(), 2, x.dim())) + " and scale_factor of shape " + java.util.Arrays.toString(scaleFactor)
                        + ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.");
            }
            for (int k = 0; k < dims; k++) {
                double factor = scaleFactor.length == 1 ? scaleFactor[0] : scaleFactor[k];
                outSize[k] = (int) Math.floor(x.size(2 + k) * factor);   // ATen's compute_output_size: (int64) (in · scale)
                scales[k] = Boolean.TRUE.equals(recomputeScaleFactor) ? null : factor;
            }
        }
        boolean corners = Boolean.TRUE.equals(alignCorners);
        if (antialias) {
            Tensor rows = AntialiasResampling.weights(x.size(2), outSize[0], corners, scales[0], mode.equals("bicubic"), x.dtype());
            Tensor cols = AntialiasResampling.weights(x.size(3), outSize[1], corners, scales[1], mode.equals("bicubic"), x.dtype());
            return rows.matmul(x.matmul(cols.t()));
        }
        return switch (mode) {
            case "nearest" -> switch (dims) {
                case 1 -> UpsampleOps.UPSAMPLE_NEAREST1D.callTensor(x, outSize, scales[0]);
                case 2 -> UpsampleOps.UPSAMPLE_NEAREST2D.callTensor(x, outSize, scales[0], scales[1]);
                default -> UpsampleOps.UPSAMPLE_NEAREST3D.callTensor(x, outSize, scales[0], scales[1], scales[2]);
            };
            case "nearest-exact" -> switch (dims) {
                case 1 -> UpsampleOps.UPSAMPLE_NEAREST_EXACT1D.callTensor(x, outSize, scales[0]);
                case 2 -> UpsampleOps.UPSAMPLE_NEAREST_EXACT2D.callTensor(x, outSize, scales[0], scales[1]);
                default -> UpsampleOps.UPSAMPLE_NEAREST_EXACT3D.callTensor(x, outSize, scales[0], scales[1], scales[2]);
            };
            // F.interpolate's "area" is adaptive_avg_pool{1,2,3}d to the output size
            case "area" -> switch (dims) {
                case 1 -> adaptiveAvgPool1d(x, outSize[0]);
                case 2 -> adaptiveAvgPool2d(x, outSize);
                default -> adaptiveAvgPool3d(x, outSize);
            };
            case "linear" -> UpsampleOps.UPSAMPLE_LINEAR1D.callTensor(x, outSize, corners, scales[0]);
            case "bilinear" -> UpsampleOps.UPSAMPLE_BILINEAR2D.callTensor(x, outSize, corners, scales[0], scales[1]);
            case "bicubic" -> UpsampleOps.UPSAMPLE_BICUBIC2D.callTensor(x, outSize, corners, scales[0], scales[1]);
            default -> UpsampleOps.UPSAMPLE_TRILINEAR3D.callTensor(x, outSize, corners, scales[0], scales[1], scales[2]);
        };
    }

    // ------------------------------------------------------------------ losses

    /**
     * Cross entropy of logits {@code input} ([C], [N, C] or [N, C, d1, …]) against class indices
     * (int64, [], [N] or [N, d1, …]) or, when {@code target} has the input's shape, class
     * probabilities; the mean over the samples.
     */
    public static Tensor crossEntropy(Tensor input, Tensor target) { return LossOps.CROSS_ENTROPY_LOSS.callTensor(input, target); }

    /**
     * Cross entropy with per-class {@code weight} (or null), {@code reduction} "none", "mean" or
     * "sum", targets equal to {@code ignoreIndex} counting nothing, and {@code labelSmoothing} in [0, 1].
     */
    public static Tensor crossEntropy(Tensor input, Tensor target, Tensor weight, String reduction, int ignoreIndex, double labelSmoothing) {
        return LossOps.CROSS_ENTROPY_LOSS.callTensor(input, target, weight, reduction("cross_entropy", reduction), (long) ignoreIndex, labelSmoothing);
    }

    /** Negative log likelihood of log-probabilities {@code input} at int64 class indices {@code target}; the mean. */
    public static Tensor nllLoss(Tensor input, Tensor target) { return LossOps.NLL_LOSS_ND.callTensor(input, target); }

    public static Tensor nllLoss(Tensor input, Tensor target, Tensor weight, String reduction, int ignoreIndex) {
        return LossOps.NLL_LOSS_ND.callTensor(input, target, weight, reduction("nll_loss", reduction), (long) ignoreIndex);
    }

    /** Mean squared error, {@code input} and {@code target} broadcast together. */
    public static Tensor mseLoss(Tensor input, Tensor target) { return LossOps.MSE_LOSS.callTensor(input, target); }

    public static Tensor mseLoss(Tensor input, Tensor target, String reduction) {
        return LossOps.MSE_LOSS.callTensor(input, target, reduction("mse_loss", reduction));
    }

    /**
     * Binary cross entropy of logits {@code input} against probabilities {@code target} (same
     * shape), the mean: {@code -[t·log σ(x) + (1 − t)·log(1 − σ(x))]}, computed stably.
     */
    public static Tensor binaryCrossEntropyWithLogits(Tensor input, Tensor target) {
        return binaryCrossEntropyWithLogits(input, target, null, null, "mean");
    }

    /**
     * With per-element {@code weight} and per-class {@code posWeight} (each broadcast against the
     * input, or null) and {@code reduction} "none", "mean" or "sum". As PyTorch's
     * {@code F.binary_cross_entropy_with_logits}, the target must have the input's shape.
     */
    public static Tensor binaryCrossEntropyWithLogits(Tensor input, Tensor target, Tensor weight, Tensor posWeight, String reduction) {
        if (!java.util.Arrays.equals(target.shape(), input.shape())) {
            throw new IllegalArgumentException("binary_cross_entropy_with_logits: Target size (" + dev.ember.tensor.Shapes.format(target.shape())
                    + ") must be the same as input size (" + dev.ember.tensor.Shapes.format(input.shape()) + ")");
        }
        return LossOps.BINARY_CROSS_ENTROPY_WITH_LOGITS.callTensor(input, target, weight, posWeight, reduction("binary_cross_entropy_with_logits", reduction));
    }

    /** Mean absolute error, {@code input} and {@code target} broadcast together. */
    public static Tensor l1Loss(Tensor input, Tensor target) { return LossOps.L1_LOSS.callTensor(input, target); }

    public static Tensor l1Loss(Tensor input, Tensor target, String reduction) {
        return LossOps.L1_LOSS.callTensor(input, target, reduction("l1_loss", reduction));
    }

    /** Squared error over 2·beta below {@code beta} (1), absolute error less beta/2 above it; the mean. */
    public static Tensor smoothL1Loss(Tensor input, Tensor target) { return LossOps.SMOOTH_L1_LOSS.callTensor(input, target); }

    public static Tensor smoothL1Loss(Tensor input, Tensor target, String reduction, double beta) {
        return LossOps.SMOOTH_L1_LOSS.callTensor(input, target, reduction("smooth_l1_loss", reduction), beta);
    }

    /** Half the squared error below {@code delta} (1), {@code delta·(|error| − delta/2)} above it; the mean. */
    public static Tensor huberLoss(Tensor input, Tensor target) { return LossOps.HUBER_LOSS.callTensor(input, target); }

    public static Tensor huberLoss(Tensor input, Tensor target, String reduction, double delta) {
        return LossOps.HUBER_LOSS.callTensor(input, target, reduction("huber_loss", reduction), delta);
    }

    /** Kullback-Leibler divergence of probabilities {@code target} from log-probabilities {@code input}; the mean over elements. */
    public static Tensor klDiv(Tensor input, Tensor target) { return LossOps.KL_DIV.callTensor(input, target); }

    /**
     * With {@code reduction} "none", "mean", "sum" or "batchmean" (the sum over the batch size,
     * the mathematical KL divergence), and {@code target} given as log-probabilities when {@code logTarget}.
     */
    public static Tensor klDiv(Tensor input, Tensor target, String reduction, boolean logTarget) {
        if (reduction.equals("batchmean")) {
            Tensor sum = LossOps.KL_DIV.callTensor(input, target, 2L, logTarget);
            return input.dim() == 0 ? sum : sum.div((double) input.size(0));
        }
        return LossOps.KL_DIV.callTensor(input, target, reduction("kl_div", reduction), logTarget);
    }

    /** Binary cross entropy of probabilities {@code input} (each in [0, 1]) against {@code target} of its shape; the mean. */
    public static Tensor binaryCrossEntropy(Tensor input, Tensor target) { return LossOps.BINARY_CROSS_ENTROPY.callTensor(input, target); }

    /** With per-element {@code weight} (broadcast to the input, or null). */
    public static Tensor binaryCrossEntropy(Tensor input, Tensor target, Tensor weight, String reduction) {
        return LossOps.BINARY_CROSS_ENTROPY.callTensor(input, target, weight, reduction("binary_cross_entropy", reduction));
    }

    /** {@code max(0, -target · (x1 - x2) + margin)} (torch's F.margin_ranking_loss); {@code reduction} "none", "mean" or "sum". */
    /**
     * The connectionist temporal classification loss, as PyTorch's {@code F.ctc_loss}:
     * {@code logProbs} {@code [T, N, C]} (log_softmax over C; or unbatched {@code [T, C]}),
     * {@code targets} {@code [N, S]} padded or 1-d concatenated, each sample's input and target
     * lengths; {@code reduction} "mean" (each loss divided by its target length, then averaged),
     * "sum" or "none"; {@code zeroInfinity} makes impossible alignments cost 0 instead of +inf.
     * The gradient reaching logits through {@code logSoftmax} is ATen's (see {@link CtcLossComposite}).
     */
    public static Tensor ctcLoss(Tensor logProbs, Tensor targets, long[] inputLengths, long[] targetLengths, int blank, String reduction, boolean zeroInfinity) {
        return CtcLossComposite.ctcLoss(logProbs, targets, inputLengths, targetLengths, blank, reduction, zeroInfinity);
    }

    /** {@link #ctcLoss(Tensor, Tensor, long[], long[], int, String, boolean)} with PyTorch's defaults: blank 0, mean, infinities kept. */
    public static Tensor ctcLoss(Tensor logProbs, Tensor targets, long[] inputLengths, long[] targetLengths) {
        return ctcLoss(logProbs, targets, inputLengths, targetLengths, 0, "mean", false);
    }

    public static Tensor marginRankingLoss(Tensor x1, Tensor x2, Tensor target, double margin, String reduction) {
        return NnComposites.MARGIN_RANKING_LOSS.callTensor(x1, x2, target, margin, reduction("margin_ranking_loss", reduction));
    }

    public static Tensor marginRankingLoss(Tensor x1, Tensor x2, Tensor target) { return marginRankingLoss(x1, x2, target, 0.0, "mean"); }

    /** {@code 1 - cos(x1, x2)} where target is 1, {@code max(0, cos - margin)} where it is -1 (torch's F.cosine_embedding_loss). */
    public static Tensor cosineEmbeddingLoss(Tensor x1, Tensor x2, Tensor target, double margin, String reduction) {
        return NnComposites.COSINE_EMBEDDING_LOSS.callTensor(x1, x2, target, margin, reduction("cosine_embedding_loss", reduction));
    }

    public static Tensor cosineEmbeddingLoss(Tensor x1, Tensor x2, Tensor target) { return cosineEmbeddingLoss(x1, x2, target, 0.0, "mean"); }

    /** {@code max(0, margin + d(a, p) - d(a, n))} with the p-norm pairwise distance (torch's F.triplet_margin_loss). */
    public static Tensor tripletMarginLoss(Tensor anchor, Tensor positive, Tensor negative, double margin, double p, double eps, boolean swap, String reduction) {
        return NnComposites.TRIPLET_MARGIN_LOSS.callTensor(anchor, positive, negative, margin, p, eps, swap, reduction("triplet_margin_loss", reduction));
    }

    public static Tensor tripletMarginLoss(Tensor anchor, Tensor positive, Tensor negative) { return tripletMarginLoss(anchor, positive, negative, 1.0, 2, 1e-6, false, "mean"); }

    /** {@code log(1 + exp(−target · input))}, reduced, as PyTorch's {@code F.soft_margin_loss} (targets ±1). */
    public static Tensor softMarginLoss(Tensor input, Tensor target, String reduction) {
        return NnComposites.SOFT_MARGIN_LOSS.callTensor(input, target, reduction("soft_margin_loss", reduction));
    }

    /**
     * PyTorch's {@code F.multilabel_soft_margin_loss}: per element
     * {@code −(t·logσ(x) + (1 − t)·logσ(−x))}, times {@code weight} (per class, may be null),
     * averaged over the classes (the last dim), then reduced over the samples.
     */
    public static Tensor multilabelSoftMarginLoss(Tensor input, Tensor target, Tensor weight, String reduction) {
        long r = reduction("multilabel_soft_margin_loss", reduction);
        Tensor loss = target.mul(logSigmoid(input)).add(target.rsub(1.0).mul(logSigmoid(input.neg()))).neg();
        if (weight != null) loss = loss.mul(weight);
        int classDim = input.dim() - 1;
        loss = loss.sum(classDim).div(input.size(classDim));
        return r == 1 ? loss.mean() : r == 2 ? loss.sum() : loss;
    }

    /**
     * PyTorch's {@code F.multi_margin_loss} over {@code [N, C]} (or {@code [C]}) scores and class
     * targets: per sample {@code Σ_{j≠y} max(0, margin − x[y] + x[j])^p · w[y] / C}, p 1 or 2,
     * {@code weight} per class (may be null); reduced.
     */
    public static Tensor multiMarginLoss(Tensor input, Tensor target, int p, double margin, Tensor weight, String reduction) {
        return NnComposites.MULTI_MARGIN_LOSS.callTensor(input, target, (long) p, margin, weight, reduction("multi_margin_loss", reduction));
    }

    /**
     * PyTorch's {@code F.multilabel_margin_loss}: each target row lists class indices, ended by the
     * first −1; per sample {@code Σ_{j target} Σ_{k not target} max(0, 1 − (x[j] − x[k])) / C}; reduced.
     */
    public static Tensor multilabelMarginLoss(Tensor input, Tensor target, String reduction) {
        return NnComposites.MULTILABEL_MARGIN_LOSS.callTensor(input, target, reduction("multilabel_margin_loss", reduction));
    }

    /** {@code x} where target is 1, {@code max(0, margin − x)} where it is −1, reduced, as PyTorch's {@code F.hinge_embedding_loss}. */
    public static Tensor hingeEmbeddingLoss(Tensor input, Tensor target, double margin, String reduction) {
        return NnComposites.HINGE_EMBEDDING_LOSS.callTensor(input, target, margin, reduction("hinge_embedding_loss", reduction));
    }

    /**
     * Poisson negative log likelihood, as PyTorch's {@code F.poisson_nll_loss}: {@code exp(x) − t·x}
     * when {@code logInput}, else {@code x − t·log(x + eps)}; {@code full} adds Stirling's term for
     * targets above 1; reduced.
     */
    public static Tensor poissonNllLoss(Tensor input, Tensor target, boolean logInput, boolean full, double eps, String reduction) {
        return NnComposites.POISSON_NLL_LOSS.callTensor(input, target, logInput, full, eps, reduction("poisson_nll_loss", reduction));
    }

    /**
     * Gaussian negative log likelihood, as PyTorch's {@code F.gaussian_nll_loss}:
     * {@code ½·(log v + (x − t)² / v)} (plus {@code ½·log 2π} when {@code full}) with the variance
     * {@code var} the input's shape, or one dim short, or 1 in the last dim (one variance per
     * sample); {@code var} is clamped to at least {@code eps} for the value only (its gradient passes
     * unclamped, as PyTorch's clamp under no_grad); negative variances are refused.
     */
    public static Tensor gaussianNllLoss(Tensor input, Tensor target, Tensor var, boolean full, double eps, String reduction) {
        if (!java.util.Arrays.equals(var.shape(), input.shape())) {
            int[] in = input.shape(), v = var.shape();
            int[] leading = java.util.Arrays.copyOf(in, Math.max(in.length - 1, 0));
            if (in.length > 0 && java.util.Arrays.equals(leading, v)) {
                var = var.unsqueeze(-1);
            } else if (!(in.length > 0 && v.length == in.length && v[v.length - 1] == 1 && java.util.Arrays.equals(leading, java.util.Arrays.copyOf(v, v.length - 1)))) {
                throw new IllegalArgumentException("gaussian_nll_loss: var is of incorrect size");
            }
        }
        if (!reduction.equals("none") && !reduction.equals("mean") && !reduction.equals("sum")) {
            throw new IllegalArgumentException("gaussian_nll_loss: " + reduction + " is not valid");
        }
        if (var.lt(0.0).any().item() != 0) throw new IllegalArgumentException("gaussian_nll_loss: var has negative entry/entries");
        Tensor clamped = var.add(var.clampMin(eps).sub(var).detach());
        Tensor loss = clamped.log().add(input.sub(target).square().div(clamped)).mul(0.5);
        if (full) loss = loss.add(0.5 * Math.log(2 * Math.PI));
        return reduction.equals("mean") ? loss.mean() : reduction.equals("sum") ? loss.sum() : loss;
    }

    /**
     * PyTorch's {@code F.triplet_margin_with_distance_loss}: {@code max(0, margin + d(a, p) − d(a, n))}
     * with any distance {@code distance} (null: {@link #pairwiseDistance(Tensor, Tensor)}); with
     * {@code swap} the negative's distance is the smaller of d(a, n) and d(p, n); reduced.
     */
    public static Tensor tripletMarginWithDistanceLoss(Tensor anchor, Tensor positive, Tensor negative,
                                                       java.util.function.BinaryOperator<Tensor> distance, double margin, boolean swap, String reduction) {
        long r = reduction("triplet_margin_with_distance_loss", reduction);
        int ad = anchor.dim(), pd = positive.dim(), nd = negative.dim();
        if (ad != pd || pd != nd) {
            throw new IllegalArgumentException("The anchor, positive, and negative tensors are expected to have the same number of dimensions, but got: anchor "
                    + ad + "D, positive " + pd + "D, and negative " + nd + "D inputs");
        }
        java.util.function.BinaryOperator<Tensor> d = distance != null ? distance : F::pairwiseDistance;
        Tensor toPositive = d.apply(anchor, positive), toNegative = d.apply(anchor, negative);
        if (swap) toNegative = toNegative.minimum(d.apply(positive, negative));
        Tensor loss = toPositive.add(margin).sub(toNegative).clampMin(0.0);
        return r == 1 ? loss.mean() : r == 2 ? loss.sum() : loss;
    }

    /** ATen's reduction code for PyTorch's reduction name; an error naming {@code function} for any other. */
    private static long reduction(String function, String name) {
        return switch (name) {
            case "none" -> 0L;
            case "mean" -> 1L;
            case "sum" -> 2L;
            default -> throw new IllegalArgumentException(function + ": " + name + " is not a valid value for reduction");
        };
    }

    // ------------------------------------------------------------------ encoding

    /** int64 one-hot rows with {@code numClasses} columns (-1: the largest index + 1, read from the data). */
    public static Tensor oneHot(Tensor indices, int numClasses) { return NnOps.ONE_HOT.callTensor(indices, (long) numClasses); }

    public static Tensor oneHot(Tensor indices) { return NnOps.ONE_HOT.callTensor(indices); }

    // ------------------------------------------------------------------ embedding and attention

    /** Rows of {@code weight} at {@code input}'s indices (int32 or int64): shape {@code input.shape + [weight.size(1)]}. */
    public static Tensor embedding(Tensor input, Tensor weight) { return IndexingOps.EMBEDDING.callTensor(weight, input); }

    /** {@code paddingIdx} only affects training (its row gets no gradient); -1 means none. */
    public static Tensor embedding(Tensor input, Tensor weight, int paddingIdx) {
        return IndexingOps.EMBEDDING.callTensor(weight, input, (long) paddingIdx);
    }

    /**
     * Sums, means or maxima of bags of embeddings without materializing the embeddings per bag
     * (PyTorch's {@code F.embedding_bag}): {@code input} 1-d with {@code offsets} (where each bag
     * starts; with {@code includeLastOffset} the last offset ends the last bag), or 2-d
     * {@code [B, N]} (B bags of N) with {@code offsets} null. {@code mode} is {@code "sum"},
     * {@code "mean"} or {@code "max"}; an empty bag gives zeros. {@code perSampleWeights} (same
     * shape as input, "sum" only) scales each embedding; indices equal to {@code paddingIdx} (null
     * for none) are left out, and do not count toward a mean. Returns {@code [B, embedding_dim]}.
     */
    public static Tensor embeddingBag(Tensor input, Tensor weight, Tensor offsets, String mode, Tensor perSampleWeights, boolean includeLastOffset, Integer paddingIdx) {
        if (!mode.equals("sum") && !mode.equals("mean") && !mode.equals("max")) throw new IllegalArgumentException("mode has to be one of sum, mean or max, but got " + mode);
        if (perSampleWeights != null && !mode.equals("sum")) {
            throw new IllegalArgumentException("embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' (got mode='" + mode
                    + "'). Please open a feature request on GitHub.");
        }
        if (perSampleWeights != null && !dev.ember.tensor.Shapes.same(perSampleWeights.shape(), input.shape())) {
            throw new IllegalArgumentException("embedding_bag: per_sample_weights (" + dev.ember.tensor.Shapes.format(perSampleWeights.shape())
                    + ") and input (" + dev.ember.tensor.Shapes.format(input.shape()) + ") must have the same shape");
        }
        if (weight.dim() != 2) throw new IllegalArgumentException("embedding_bag: weight has to be a 2D Tensor, but got Tensor of dimension " + weight.dim());
        int bags;
        Tensor indices;
        if (input.dim() == 2) {
            if (offsets != null) {
                throw new IllegalArgumentException("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences.");
            }
            bags = input.size(0);
            offsets = Tensor.arange(0L, (long) input.numel(), (long) Math.max(input.size(1), 1));
            if (input.size(1) == 0) offsets = Tensor.zeros(DType.INT64, bags);
            indices = input.reshape(-1);
            if (perSampleWeights != null) perSampleWeights = perSampleWeights.reshape(-1);
        } else if (input.dim() == 1) {
            if (offsets == null) throw new IllegalArgumentException("offsets has to be a 1D Tensor but got None");
            if (offsets.dim() != 1) throw new IllegalArgumentException("offsets has to be a 1D Tensor");
            bags = includeLastOffset ? offsets.size(0) - 1 : offsets.size(0);
            if (bags < 0) throw new IllegalArgumentException("embedding_bag: include_last_offset needs at least one offset");
            if (includeLastOffset) offsets = offsets.narrow(0, 0, bags);
            indices = input;
        } else {
            throw new IllegalArgumentException("input has to be 1D or 2D Tensor, but got Tensor of dimension " + input.dim());
        }
        int n = indices.size(0), dim = weight.size(1);
        Tensor positions = Tensor.arange((long) n);
        // the bag of each position: how many bags start at or before it, less one (the bag's index)
        Tensor bagOf = positions.unsqueeze(1).ge(offsets.to(DType.INT64).unsqueeze(0)).sum(new int[] {1}, false).sub(1.0).to(DType.INT64);
        Tensor kept = paddingIdx == null ? null : indices.ne((double) paddingIdx);
        Tensor rows = embedding(indices, weight);
        if (perSampleWeights != null) rows = rows.mul(perSampleWeights.unsqueeze(1));
        if (kept != null) rows = rows.mul(kept.unsqueeze(1).to(rows.dtype()));
        if (!mode.equals("max")) {
            Tensor sums = Tensor.zeros(weight.dtype(), bags, dim).indexAdd(0, bagOf, rows);
            if (mode.equals("sum")) return sums;
            Tensor counted = kept == null ? Tensor.ones(weight.dtype(), n) : kept.to(weight.dtype());
            Tensor counts = Tensor.zeros(weight.dtype(), bags).indexAdd(0, bagOf, counted);
            return sums.div(counts.clamp(1.0, null).unsqueeze(1));
        }
        // max: every bag against every position, positions outside the bag (or padding) at -inf; the first maximum, as ATen's
        Tensor member = Tensor.arange((long) bags).unsqueeze(1).eq(bagOf.unsqueeze(0));
        if (kept != null) member = member.logicalAnd(kept.unsqueeze(0));
        Tensor candidates = rows.unsqueeze(0).expand(bags, n, dim).maskedFill(member.logicalNot().unsqueeze(2), Double.NEGATIVE_INFINITY);
        Tensor best = n == 0 ? Tensor.zeros(weight.dtype(), bags, dim) : candidates.max(1).get(0);
        return best.maskedFill(member.any(1, true).logicalNot(), 0.0);
    }

    /** {@code softmax(q @ k^T / sqrt(E)) @ v} over the last two dimensions, batch dimensions broadcast. */
    public static Tensor scaledDotProductAttention(Tensor query, Tensor key, Tensor value) {
        return NnOps.SCALED_DOT_PRODUCT_ATTENTION.callTensor(query, key, value);
    }

    /** With {@code attnMask}: a bool mask (true = attend) or a float mask added to the scores; may be null. */
    public static Tensor scaledDotProductAttention(Tensor query, Tensor key, Tensor value, Tensor attnMask) {
        return NnOps.SCALED_DOT_PRODUCT_ATTENTION.callTensor(query, key, value, attnMask);
    }

    public static Tensor scaledDotProductAttention(Tensor query, Tensor key, Tensor value, Tensor attnMask, double dropoutP, boolean isCausal) {
        return NnOps.SCALED_DOT_PRODUCT_ATTENTION.callTensor(query, key, value, attnMask, dropoutP, isCausal);
    }

    /** {@code scale} replaces 1/sqrt(E) when not null. */
    public static Tensor scaledDotProductAttention(Tensor query, Tensor key, Tensor value, Tensor attnMask, double dropoutP, boolean isCausal, Double scale) {
        return NnOps.SCALED_DOT_PRODUCT_ATTENTION.callTensor(query, key, value, attnMask, dropoutP, isCausal, scale);
    }
}
