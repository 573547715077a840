package dev.ember.ops;

import dev.ember.ops.eager.ReduceBatchNorm;
import dev.ember.ops.eager.ReduceLayerNorm;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;

/**
 * Normalisation: batch_norm over the channels of an {@code (N, C, *)} input, layer_norm over its
 * trailing {@code normalized_shape}. Float32 and float64; weights, biases and running statistics
 * must have the input's dtype.
 */
public final class NormOps {
    private NormOps() {}

    /**
     * Training mode normalises with the batch's per-channel mean and biased variance, and moves the
     * running statistics (when given) toward the batch's mean and unbiased variance by
     * {@code momentum}, in place (their version is bumped). Evaluation mode normalises with the
     * running statistics.
     */
    public static final OpOverload BATCH_NORM = OpOverload.define("batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
                    + "Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled=True) -> Tensor")
            .meta(a -> batchNormMeta(a.tensor(0), a.optTensor(1), a.optTensor(2), a.optTensor(3), a.optTensor(4), a.bool(5)))
            .kernel((a, m) -> batchNorm(a.tensor(0), a.optTensor(1), a.optTensor(2), a.optTensor(3), a.optTensor(4),
                    a.bool(5), a.dbl(6), a.dbl(7), (TensorMeta) m, null, null))
            // Evaluation mode only: training mutates the running statistics, so the op stays. The kernel's
            // own formula, so compiled code gives eager's bits: per channel, in float64,
            // scale = weight / sqrt(var + eps) and shift = bias - mean * scale, each rounded once to the
            // input's dtype, then x * scale + shift. (A float32 rsqrt, then the weight, then (x - mean)
            // rounded three times where eager rounds once: 4-5x eager's error on large outputs, fuzzer seed 600315.)
            .decomposition((e, a) -> {
                boolean training = (Boolean) a[5];
                if (training || a[3] == null || a[4] == null) return null;
                DType dtype = e.meta(a[0]).dtype();
                int[] paramShape = Composites.channelShape(e.meta(a[0]));
                Object[] scaleShift = evaluationScaleAndShift(e, a[1], a[2], a[3], a[4], ((Number) a[7]).doubleValue());
                Object s = e.call(ShapeOps.VIEW, e.call(ShapeOps.TO_COPY, scaleShift[0], dtype), paramShape);
                Object b = e.call(ShapeOps.VIEW, e.call(ShapeOps.TO_COPY, scaleShift[1], dtype), paramShape);
                return e.call(PointwiseOps.ADD_TENSOR, e.call(PointwiseOps.MUL_TENSOR, a[0], s), b);
            })
            .derivative(NormOps::batchNormBackward)
            .nonDifferentiableArguments(3, 4)
            .register();

    /**
     * batch_norm in training with running statistics as a functional op (PyTorch's
     * {@code _native_batch_norm_legit_functional}): its output and the running statistics' new values,
     * its arguments left as they were. A captured graph's batch_norm becomes this and two
     * {@code copy_}s into the statistics ({@code Functionalize.functionalBatchNorm}), so that the
     * update is a value the graph computes and writes back like any other mutation: never dropped
     * with an output nobody reads, never reordered before a read of the old statistics. The
     * arguments are batch_norm's, so are the derivative and the kernel. Like ATen's op it also
     * returns the statistics it normalized with ({@code save_mean}, {@code save_invstd}, one per
     * channel), which its derivative reads instead of reducing the input twice more in backward.
     */
    public static final OpOverload BATCH_NORM_FUNCTIONAL = OpOverload.define("_batch_norm_functional(Tensor input, Tensor? weight, Tensor? bias, "
                    + "Tensor running_mean, Tensor running_var, bool training, float momentum, float eps, bool cudnn_enabled=True) "
                    + "-> (Tensor, Tensor, Tensor, Tensor, Tensor)")
            .meta(a -> {
                TensorMeta perChannel = TensorMeta.contiguous(a.tensor(0).dtype(), new int[] {a.tensor(3).numel()});
                return java.util.List.of(batchNormMeta(a.tensor(0), a.optTensor(1), a.optTensor(2), a.tensor(3), a.tensor(4), a.bool(5)),
                        TensorMeta.contiguous(a.tensor(3).dtype(), a.tensor(3).shape()), TensorMeta.contiguous(a.tensor(4).dtype(), a.tensor(4).shape()),
                        perChannel, perChannel);
            })
            .kernel((a, m) -> {
                Tensor mean = a.tensor(3).clone(), var = a.tensor(4).clone();
                java.util.List<?> metas = (java.util.List<?>) m;
                Tensor saveMean = Tensor.allocate((TensorMeta) metas.get(3)), saveInvstd = Tensor.allocate((TensorMeta) metas.get(4));
                Tensor out = batchNorm(a.tensor(0), a.optTensor(1), a.optTensor(2), mean, var, a.bool(5), a.dbl(6), a.dbl(7),
                        (TensorMeta) metas.get(0), saveMean, saveInvstd);
                return java.util.List.of(out, mean, var, saveMean, saveInvstd);
            })
            .derivative(NormOps::batchNormBackward)
            .nonDifferentiableOutputs(1, 2, 3, 4)
            .nonDifferentiableArguments(3, 4)
            .register();

    public static final OpOverload LAYER_NORM = OpOverload.define("layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, "
                    + "Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor")
            .meta(a -> layerNormMeta(a.tensor(0), a.ints(1), a.optTensor(2), a.optTensor(3)))
            .kernel((a, m) -> layerNorm(a.tensor(0), a.ints(1), a.optTensor(2), a.optTensor(3), a.dbl(4), (TensorMeta) m))
            .decomposition((e, a) -> {
                Object x = a[0];
                int[] dims = normalizedDims(e.meta(x), Composites.toInts(a[1]).length);
                Object[] stats = layerNormStatistics(e, x, dims, a[4]);
                Object out = e.call(PointwiseOps.MUL_TENSOR, e.call(PointwiseOps.SUB_TENSOR, x, stats[0]), stats[1]);
                if (a[2] != null) out = e.call(PointwiseOps.MUL_TENSOR, out, a[2]);
                if (a[3] != null) out = e.call(PointwiseOps.ADD_TENSOR, out, a[3]);
                return out;
            })
            .derivative(NormOps::layerNormBackward)
            .register();

    /**
     * Normalization over each of {@code num_groups} groups of channels (with their spatial dims), then
     * a per-channel affine: layer_norm over the (N, G, C/G·…) view, so its exact statistics and its
     * derivative serve here too, and the decomposition ({@link ComposedOps#composed}) is what eager
     * runs and the compiler sees.
     */
    public static final OpOverload GROUP_NORM = ComposedOps.composed("group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, "
                    + "float eps=1e-05, bool cudnn_enabled=True) -> Tensor",
                    a -> {
                        Tensor input = a.tensor(0), weight = a.optTensor(2), bias = a.optTensor(3);
                        int groups = a.integer(1);
                        String op = "group_norm";
                        if (input.dim() < 2) throw new IllegalArgumentException(op + ": Expected at least 2 dimensions for input tensor but received " + input.dim());
                        if (!input.dtype().isFloatingPoint()) {
                            throw new IllegalArgumentException(op + ": \"group_norm\" not implemented for '" + input.dtype().scalarTypeName() + "'");
                        }
                        int channels = input.size(1);
                        if (groups <= 0 || channels % groups != 0) {
                            throw new IllegalArgumentException(op + ": Expected number of channels in input to be divisible by num_groups, but got input of shape "
                                    + Shapes.format(input.shape()) + " and num_groups=" + groups);
                        }
                        String[] names = {"weight", "bias"};
                        Tensor[] affine = {weight, bias};
                        for (int i = 0; i < 2; i++) {
                            if (affine[i] != null && (affine[i].dim() != 1 || affine[i].numel() != channels)) {
                                throw new IllegalArgumentException(op + ": Expected " + names[i] + " to be a vector of size equal to the number of channels in input, but got "
                                        + names[i] + " of shape " + Shapes.format(affine[i].shape()) + " and input of shape " + Shapes.format(input.shape()));
                            }
                        }
                        return TensorMeta.contiguous(input.dtype(), input.shape());
                    },
                    (e, a) -> {
                        TensorMeta in = e.meta(a[0]);
                        int n = in.shape()[0], groups = ((Number) a[1]).intValue();
                        int perGroup = Math.toIntExact(in.numel() / Math.max(1, (long) n * groups));
                        Object grouped = e.call(ShapeOps.RESHAPE, a[0], new int[] {n, groups, perGroup});
                        Object normalized = e.call(ShapeOps.RESHAPE, e.call(LAYER_NORM, grouped, new int[] {perGroup}, null, null, a[4]), in.shape());
                        int[] channel = Composites.channelShape(in);
                        if (a[2] != null) normalized = e.call(PointwiseOps.MUL_TENSOR, normalized, e.call(ShapeOps.RESHAPE, a[2], channel));
                        if (a[3] != null) normalized = e.call(PointwiseOps.ADD_TENSOR, normalized, e.call(ShapeOps.RESHAPE, a[3], channel));
                        return normalized;
                    })
            .register();

    // ------------------------------------------------------------------ batch_norm

    /**
     * Evaluation batch_norm's per-channel {@code scale = weight / sqrt(var + eps)} and
     * {@code shift = bias - mean * scale}, in float64 as the kernel computes them (weight or bias
     * null: 1 or 0); the caller rounds them once. Its decomposition applies them as
     * {@code x * scale + shift}; Conv-BN folding scales the convolution's weight and bias by them.
     */
    public static Object[] evaluationScaleAndShift(OpEmitter e, Object weight, Object bias, Object mean, Object var, double eps) {
        Object std = e.call(PointwiseOps.SQRT, e.call(PointwiseOps.ADD_SCALAR, float64(e, var), eps));
        Object scale = weight == null ? e.call(PointwiseOps.POW_TENSOR_SCALAR, std, -1.0) : e.call(PointwiseOps.DIV_TENSOR, float64(e, weight), std);
        Object centre = e.call(PointwiseOps.MUL_TENSOR, float64(e, mean), scale);
        Object shift = bias == null ? e.call(PointwiseOps.NEG, centre) : e.call(PointwiseOps.SUB_TENSOR, float64(e, bias), centre);
        return new Object[] {scale, shift};
    }

    /** {@code x} as float64: itself when it is already. */
    public static Object float64(OpEmitter e, Object x) {
        return e.meta(x).dtype() == DType.FLOAT64 ? x : e.call(ShapeOps.TO_COPY, x, DType.FLOAT64);
    }

    private static TensorMeta batchNormMeta(Tensor input, Tensor weight, Tensor bias, Tensor runningMean, Tensor runningVar, boolean training) {
        if (input.dim() < 2) {
            throw new IndexOutOfBoundsException("batch_norm: Dimension out of range (expected to be in range of [-1, 0], but got 1): "
                    + "the input must have shape (N, C, *), but got input of size " + Shapes.format(input.shape()));
        }
        requireFloating("batch_norm", "batch_norm", input);
        TensorMeta out = TensorMeta.contiguous(input.dtype(), input.shape());
        if (input.numel() == 0) return out;
        int channels = input.shape()[1];
        if (runningMean == null && !training) throw new IllegalArgumentException("batch_norm: running_mean must be defined in evaluation mode");
        checkChannelParam("running_mean", runningMean, channels, input);
        if (runningVar == null && !training) throw new IllegalArgumentException("batch_norm: running_var must be defined in evaluation mode");
        checkChannelParam("running_var", runningVar, channels, input);
        checkChannelParam("weight", weight, channels, input);
        checkChannelParam("bias", bias, channels, input);
        return out;
    }

    private static void checkChannelParam(String name, Tensor p, int channels, Tensor input) {
        if (p == null) return;
        if (p.numel() != channels) {
            throw new IllegalArgumentException("batch_norm: " + name + " should contain " + channels + " elements not " + p.numel()
                    + " (input of size " + Shapes.format(input.shape()) + " has " + channels + " channels in dim 1)");
        }
        requireSameDtype("batch_norm", name, p, input);
    }

    /** The kernel; {@code saveMean} and {@code saveInvstd} (null: not wanted) get the statistics it normalized with. */
    private static Tensor batchNorm(Tensor input, Tensor weight, Tensor bias, Tensor runningMean, Tensor runningVar,
                                    boolean training, double momentum, double eps, TensorMeta meta, Tensor saveMean, Tensor saveInvstd) {
        Tensor out = Tensor.allocate(meta);
        if (input.numel() == 0) return out;
        Tensor x = input.contiguous();
        int channels = input.shape()[1];
        double[] mean, var;
        if (training) {
            double[][] stats = ReduceBatchNorm.batchStatistics(x);
            mean = stats[0];
            var = stats[1];
            long count = input.numel() / channels;
            if (runningMean != null) ReduceBatchNorm.updateRunning(runningMean, mean, momentum);
            if (runningVar != null) {
                double[] unbiased = new double[channels];
                for (int c = 0; c < channels; c++) unbiased[c] = var[c] * count / (count - 1);
                ReduceBatchNorm.updateRunning(runningVar, unbiased, momentum);
            }
        } else {
            mean = runningMean.toDoubleArray();
            var = runningVar.toDoubleArray();
        }
        double[] w = weight == null ? null : weight.toDoubleArray(), b = bias == null ? null : bias.toDoubleArray();
        double[] scale = new double[channels], shift = new double[channels];
        for (int c = 0; c < channels; c++) {
            scale[c] = (w == null ? 1 : w[c]) / Math.sqrt(var[c] + eps);
            shift[c] = (b == null ? 0 : b[c]) - mean[c] * scale[c];
        }
        if (saveMean != null) {
            for (int c = 0; c < channels; c++) {
                saveMean.storage().writeDouble(c, mean[c]);
                saveInvstd.storage().writeDouble(c, 1 / Math.sqrt(var[c] + eps));
            }
        }
        ReduceBatchNorm.affine(x, out, scale, shift);
        return out;
    }

    /**
     * ATen's native_batch_norm_backward, in ops: with {@code x̂ = (x − mean)·invstd} per channel,
     * bias gets {@code Σ grad}, weight {@code Σ grad·x̂}, and the input
     * {@code weight·invstd·(grad − mean(grad) − x̂·mean(grad·x̂))} in training (the batch's biased
     * statistics, recomputed from the saved input), {@code grad·weight·invstd} in evaluation
     * (the running statistics). Running statistics get no gradient.
     */
    private static Object[] batchNormBackward(Grad g) {
        TensorMeta in = g.argMeta(0);
        boolean training = (Boolean) g.value(5);
        double eps = g.doubleValue(7);
        Object[] out = new Object[g.argCount()];
        if (in.numel() == 0) {
            for (int i = 0; i < 3; i++) if (g.isTensorArg(i) && g.needs(i)) out[i] = g.zeros(g.argMeta(i));
            return out;
        }
        int[] dims = new int[in.dim() - 1];
        dims[0] = 0;
        for (int d = 2; d < in.dim(); d++) dims[d - 1] = d;
        int[] paramShape = Composites.channelShape(in);
        Object x = g.arg(0), grad = g.grad();
        Object weight = g.isTensorArg(1) ? g.call(ShapeOps.VIEW, g.arg(1), paramShape) : null;
        Object mean, invstd;
        if (training && g.op() == BATCH_NORM_FUNCTIONAL) {
            // the forward's own statistics: no reductions of the input in backward
            mean = g.call(ShapeOps.VIEW, g.result(3), paramShape);
            invstd = g.call(ShapeOps.VIEW, g.result(4), paramShape);
        } else if (training) {
            mean = g.call(ReductionOps.MEAN_DIM, x, dims, true);
            Object centered = g.sub(x, mean);
            Object var = g.call(ReductionOps.MEAN_DIM, g.mul(centered, centered), dims, true);
            invstd = g.call(PointwiseOps.RSQRT, g.add(var, eps));
        } else {
            mean = g.call(ShapeOps.VIEW, g.arg(3), paramShape);
            invstd = g.call(PointwiseOps.RSQRT, g.add(g.call(ShapeOps.VIEW, g.arg(4), paramShape), eps));
        }
        Object xhat = g.mul(g.sub(x, mean), invstd);
        if (g.needs(0)) {
            Object scale = weight == null ? invstd : g.mul(weight, invstd);
            if (training) {
                Object meanGrad = g.call(ReductionOps.MEAN_DIM, grad, dims, true);
                Object meanGradXhat = g.call(ReductionOps.MEAN_DIM, g.mul(grad, xhat), dims, true);
                out[0] = g.mul(g.sub(g.sub(grad, meanGrad), g.mul(xhat, meanGradXhat)), scale);
            } else {
                out[0] = g.mul(grad, scale);
            }
        }
        if (g.isTensorArg(1) && g.needs(1)) out[1] = g.sumDims(g.mul(grad, xhat), dims, false);
        if (g.isTensorArg(2) && g.needs(2)) out[2] = g.sumDims(grad, dims, false);
        return out;
    }

    /** ATen's checks of a normalization over the last dims ({@code layer_norm}, {@code rms_norm}), with its messages. */
    static void checkNormalizedShape(String op, Tensor input, int[] normalizedShape, Tensor weight, Tensor bias) {
        String ns = Shapes.format(normalizedShape);
        if (normalizedShape.length < 1) {
            throw new IllegalArgumentException(op + ": Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = " + ns);
        }
        if (weight != null && !Arrays.equals(weight.shape(), normalizedShape)) {
            throw new IllegalArgumentException(op + ": Expected weight to be of same shape as normalized_shape, but got weight of shape "
                    + Shapes.format(weight.shape()) + " and normalized_shape = " + ns);
        }
        if (bias != null && !Arrays.equals(bias.shape(), normalizedShape)) {
            throw new IllegalArgumentException(op + ": Expected bias to be of same shape as normalized_shape, but got bias of shape "
                    + Shapes.format(bias.shape()) + " and normalized_shape = " + ns);
        }
        int[] shape = input.shape();
        int lead = shape.length - normalizedShape.length;
        if (lead < 0 || !Arrays.equals(Arrays.copyOfRange(shape, lead, shape.length), normalizedShape)) {
            StringBuilder expected = new StringBuilder("[*");
            for (int s : normalizedShape) expected.append(", ").append(s);
            throw new IllegalArgumentException(op + ": Given normalized_shape=" + ns + ", expected input with shape " + expected
                    + "], but got input of size" + Shapes.format(shape));
        }
    }

    /**
     * Root-mean-square normalization over the last {@code normalized_shape} dims (torch.nn.functional.rms_norm):
     * {@code x · rsqrt(mean(x², dims) + eps) · weight}, eps the dtype's machine epsilon when not given,
     * as ATen's composite; eager, autograd and the compiler all run these ops.
     */
    public static final OpOverload RMS_NORM = ComposedOps.define("rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor",
            a -> {
                Tensor input = a.tensor(0);
                checkNormalizedShape("rms_norm", input, a.ints(1), a.optTensor(2), null);
                if (!input.dtype().isFloatingPoint()) {
                    throw new IllegalArgumentException("rms_norm: expected a floating-point input, got " + input.dtype().toString().toLowerCase(java.util.Locale.ROOT));
                }
            },
            (e, a) -> {
                int rank = e.meta(a[0]).shape().length, n = ((int[]) a[1]).length;
                int[] dims = new int[n];
                for (int i = 0; i < n; i++) dims[i] = rank - n + i;
                double eps = a[3] != null ? ((Number) a[3]).doubleValue()
                        : e.meta(a[0]).dtype() == dev.ember.tensor.DType.FLOAT64 ? Math.ulp(1.0) : Math.ulp(1.0f);
                Object meanSquare = e.call(ReductionOps.MEAN_DIM, e.call(PointwiseOps.MUL_TENSOR, a[0], a[0]), dims, true);
                Object y = e.call(PointwiseOps.MUL_TENSOR, a[0], e.call(PointwiseOps.RSQRT, e.call(PointwiseOps.ADD_SCALAR, meanSquare, eps)));
                return a[2] == null ? y : e.call(PointwiseOps.MUL_TENSOR, y, a[2]);
            });

    // ------------------------------------------------------------------ layer_norm

    private static TensorMeta layerNormMeta(Tensor input, int[] normalizedShape, Tensor weight, Tensor bias) {
        checkNormalizedShape("layer_norm", input, normalizedShape, weight, bias);
        int[] shape = input.shape();
        requireFloating("layer_norm", "LayerNormKernelImpl", input);
        if (weight != null) requireSameDtype("layer_norm", "weight", weight, input);
        if (bias != null) requireSameDtype("layer_norm", "bias", bias, input);
        return TensorMeta.contiguous(input.dtype(), shape);
    }

    private static Tensor layerNorm(Tensor input, int[] normalizedShape, Tensor weight, Tensor bias, double eps, TensorMeta meta) {
        Tensor out = Tensor.allocateUninitialized(meta);
        ReduceLayerNorm.run(input.contiguous(), out, Shapes.numel(normalizedShape),
                weight == null ? null : weight.contiguous(), bias == null ? null : bias.contiguous(), eps);
        return out;
    }

    /**
     * A layer_norm's row statistics {mean, rstd} as the kernel computes them (ReduceLayerNorm): mean
     * and variance in float64, mean and {@code 1/sqrt(var + eps)} rounded once to the input's dtype.
     * The forward and its derivative both take them from here, so the backward's {@code xhat} is the
     * forward's bit for bit, in eager and compiled alike: statistics recomputed in float32 differed
     * between eager's reductions and the compiled fused ones by a few ulp, which a chain of
     * normalizations amplifies (and on a row of near-equal values, where the exact gradient is 0, the
     * recomputation was mostly rounding: fuzz seed 973788).
     */
    private static Object[] layerNormStatistics(OpEmitter e, Object x, int[] dims, Object eps) {
        DType dtype = e.meta(x).dtype();
        double n = Composites.count(e, x, dims);
        Object wide = float64(e, x);
        Object mean = e.call(PointwiseOps.DIV_SCALAR, e.call(ReductionOps.SUM_DIM, wide, dims, true), n);
        Object deviation = e.call(PointwiseOps.SUB_TENSOR, wide, mean);
        Object var = e.call(PointwiseOps.DIV_SCALAR, e.call(ReductionOps.SUM_DIM, e.call(PointwiseOps.MUL_TENSOR, deviation, deviation), dims, true), n);
        Object rstd = e.call(PointwiseOps.POW_TENSOR_SCALAR, e.call(PointwiseOps.SQRT, e.call(PointwiseOps.ADD_SCALAR, var, eps)), -1.0);
        if (dtype != DType.FLOAT64) {
            mean = e.call(ShapeOps.TO_COPY, mean, dtype);
            rstd = e.call(ShapeOps.TO_COPY, rstd, dtype);
        }
        return new Object[] {mean, rstd};
    }

    /** The last {@code k} dims of {@code input}: the ones a layer_norm normalizes over. */
    private static int[] normalizedDims(TensorMeta input, int k) {
        int[] dims = new int[k];
        for (int i = 0; i < k; i++) dims[i] = input.dim() - k + i;
        return dims;
    }

    /**
     * ATen's {@code native_layer_norm_backward} as ops: with {@code xhat = (x - mean) * rstd} and
     * {@code g = grad * weight}, the input's gradient is {@code (g - mean(g) - xhat * mean(g * xhat)) * rstd}
     * over the normalized dims; weight and bias take {@code grad * xhat} and {@code grad} summed over
     * the leading dims. The statistics are recomputed exactly as the forward computed them
     * ({@link #layerNormStatistics}), which compiled costs a fused float64 reduction.
     */
    private static Object[] layerNormBackward(Grad g) {
        TensorMeta in = g.argMeta(0);
        int[] dims = normalizedDims(in, g.ints(1).length);
        int[] leading = new int[in.dim() - dims.length];
        for (int i = 0; i < leading.length; i++) leading[i] = i;
        Object[] out = new Object[g.argCount()];
        if (in.numel() == 0) {
            for (int i = 0; i < 4; i++) if (g.isTensorArg(i) && g.needs(i)) out[i] = g.zeros(g.argMeta(i));
            return out;
        }
        Object x = g.arg(0), grad = g.grad();
        Object[] stats = layerNormStatistics(g.emitter(), x, dims, g.doubleValue(4));
        Object rstd = stats[1];
        Object xhat = g.mul(g.sub(x, stats[0]), rstd);
        if (g.needs(0)) {
            Object scaled = g.isTensorArg(2) ? g.mul(grad, g.arg(2)) : grad;
            Object meanScaled = g.call(ReductionOps.MEAN_DIM, scaled, dims, true);
            Object meanScaledXhat = g.call(ReductionOps.MEAN_DIM, g.mul(scaled, xhat), dims, true);
            out[0] = g.mul(g.sub(g.sub(scaled, meanScaled), g.mul(xhat, meanScaledXhat)), rstd);
        }
        if (g.isTensorArg(2) && g.needs(2)) out[2] = overLeading(g, g.mul(grad, xhat), leading);
        if (g.isTensorArg(3) && g.needs(3)) out[3] = overLeading(g, grad, leading);
        return out;
    }

    /** {@code t} summed over the leading dims (none: {@code t} itself, as an empty dim list would sum everything). */
    private static Object overLeading(Grad g, Object t, int[] leading) {
        return leading.length == 0 ? t : g.sumDims(t, leading, false);
    }

    // ------------------------------------------------------------------ checks

    /** ATen's dispatch error, naming the kernel ATen names. */
    private static void requireFloating(String op, String kernel, Tensor input) {
        if (!input.dtype().isFloatingPoint()) {
            throw new IllegalArgumentException(op + ": \"" + kernel + "\" not implemented for '" + input.dtype().scalarTypeName()
                    + "' (the input must be float32 or float64, got " + input.dtype() + ")");
        }
    }

    private static void requireSameDtype(String op, String name, Tensor p, Tensor input) {
        if (p.dtype() != input.dtype()) {
            throw new IllegalArgumentException(op + ": mixed dtype (CPU): expect parameter to have scalar type of " + input.dtype().scalarTypeName()
                    + " (" + name + " is " + p.dtype() + ", the input " + input.dtype() + ")");
        }
    }
}
