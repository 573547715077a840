package dev.ember.nn;

import dev.ember.ops.ConvOps;
import dev.ember.ops.IndexingOps;
import dev.ember.ops.LinalgOps;
import dev.ember.ops.LossOps;
import dev.ember.ops.NnOps;
import dev.ember.ops.NormOps;
import dev.ember.ops.PointwiseOps;
import dev.ember.ops.ReductionOps;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

/**
 * Functional forms of the layers, as {@code torch.nn.functional}: each function calls exactly
 * one op, with PyTorch's argument order and defaults.
 */
public final class F {
    private F() {}

    // ------------------------------------------------------------------ activations

    public static Tensor relu(Tensor x) { return PointwiseOps.RELU.callTensor(x); }

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

    // ------------------------------------------------------------------ pooling

    /** Max pooling with stride = kernel size. */
    public static Tensor maxPool2d(Tensor x, int kernelSize) { return ConvOps.MAX_POOL2D.callTensor(x, kernelSize); }

    public static Tensor maxPool2d(Tensor x, int kernelSize, int stride) { return ConvOps.MAX_POOL2D.callTensor(x, kernelSize, stride); }

    public static Tensor maxPool2d(Tensor x, int kernelSize, int stride, int padding) {
        return ConvOps.MAX_POOL2D.callTensor(x, kernelSize, stride, padding);
    }

    public static Tensor maxPool2d(Tensor x, int[] kernelSize, int[] stride, int[] padding, int[] dilation, boolean ceilMode) {
        return ConvOps.MAX_POOL2D.callTensor(x, kernelSize, stride, padding, dilation, ceilMode);
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
        return LossOps.CROSS_ENTROPY_LOSS.callTensor(input, target, weight, reduction(reduction), (long) ignoreIndex, labelSmoothing);
    }

    /** Negative log likelihood of log-probabilities {@code input} at int64 class indices {@code target}; the mean. */
    public static Tensor nllLoss(Tensor input, Tensor target) { return LossOps.NLL_LOSS_ND.callTensor(input, target); }

    public static Tensor nllLoss(Tensor input, Tensor target, Tensor weight, String reduction, int ignoreIndex) {
        return LossOps.NLL_LOSS_ND.callTensor(input, target, weight, reduction(reduction), (long) ignoreIndex);
    }

    /** Mean squared error, {@code input} and {@code target} broadcast together. */
    public static Tensor mseLoss(Tensor input, Tensor target) { return LossOps.MSE_LOSS.callTensor(input, target); }

    public static Tensor mseLoss(Tensor input, Tensor target, String reduction) {
        return LossOps.MSE_LOSS.callTensor(input, target, reduction(reduction));
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
        return LossOps.BINARY_CROSS_ENTROPY_WITH_LOGITS.callTensor(input, target, weight, posWeight, reduction(reduction));
    }

    /** ATen's reduction code for PyTorch's reduction name. */
    private static long reduction(String name) {
        return switch (name) {
            case "none" -> 0L;
            case "mean" -> 1L;
            case "sum" -> 2L;
            default -> throw new IllegalArgumentException(name + " is not a valid value for reduction");
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
