package dev.ember.nn;

import dev.ember.autograd.GradMode;
import dev.ember.tensor.Tensor;

/**
 * {@code torch.nn.utils.fusion}: a convolution or linear layer followed by a batch norm in
 * evaluation mode folded into one layer of the first kind. The batch norm's affine map of the
 * running statistics, {@code y = (x − mean) · w / sqrt(var + eps) + b}, scales each output channel's
 * weights and shifts its bias. The given modules are left as they are; the result is a new layer.
 */
public final class Fusion {
    private Fusion() {}

    /** {@code fuse_conv_bn_eval(conv, bn)} for {@link Conv1d}, {@link Conv2d} and {@link Conv3d}; both must be in eval mode. */
    public static ConvNd fuseConvBnEval(ConvNd conv, NormBase bn) {
        if (conv.isTraining() || bn.isTraining()) throw new IllegalStateException("Fusion only for eval!");
        ConvNd fused = copyOf(conv);
        // every tensor through read: a parametrized layer's field is null, its value computed
        Tensor w = conv.read("weight", conv.weight), b = conv.read("bias", conv.bias);
        Tensor[] wb = fuseConvBnWeights(w, b, bn.read("running_mean", bn.runningMean), bn.read("running_var", bn.runningVar), bn.eps,
                bn.read("weight", bn.weight), bn.read("bias", bn.bias), false);
        fused.weight = new Parameter(wb[0], w.requiresGrad());
        fused.bias = new Parameter(wb[1], b == null || b.requiresGrad());
        return fused;
    }

    /**
     * {@code fuse_conv_bn_eval(conv, bn, transpose=True)} for {@link ConvTranspose1d},
     * {@link ConvTranspose2d} and {@link ConvTranspose3d}: the weight {@code [in, out/groups, k…]}
     * scaled along dim 1. The scale has one entry per output channel, so grouped transposed
     * convolutions (dim 1 holding out/groups) are refused, as torch refuses them (in its broadcast).
     */
    public static ConvTransposeNd fuseConvBnEval(ConvTransposeNd conv, NormBase bn) {
        if (conv.isTraining() || bn.isTraining()) throw new IllegalStateException("Fusion only for eval!");
        if (conv.groups != 1) {
            // torch fails in the broadcast of the [in, out/groups, k…] weight by the [1, out, 1…] scale; said here in words
            throw new IllegalArgumentException("fuse_conv_bn_eval: a grouped transposed convolution (groups=" + conv.groups + ") cannot be fused: its weight's dim 1 holds "
                    + "out_channels/groups = " + conv.outChannels / conv.groups + ", the batch norm's scale " + conv.outChannels + " entries");
        }
        ConvTransposeNd fused = switch (conv) {
            case ConvTranspose1d c -> new ConvTranspose1d(c.inChannels, c.outChannels, c.kernelSize, c.stride, c.padding, c.outputPadding, c.groups, true, c.dilation);
            case ConvTranspose2d c -> new ConvTranspose2d(c.inChannels, c.outChannels, c.kernelSize, c.stride, c.padding, c.outputPadding, c.groups, true, c.dilation);
            case ConvTranspose3d c -> new ConvTranspose3d(c.inChannels, c.outChannels, c.kernelSize, c.stride, c.padding, c.outputPadding, c.groups, true, c.dilation);
            default -> throw new UnsupportedOperationException("fuse_conv_bn_eval: " + conv.getClass().getSimpleName() + " is not supported");
        };
        fused.eval();
        Tensor w = conv.read("weight", conv.weight), b = conv.read("bias", conv.bias);
        Tensor[] wb = fuseConvBnWeights(w, b, bn.read("running_mean", bn.runningMean), bn.read("running_var", bn.runningVar), bn.eps,
                bn.read("weight", bn.weight), bn.read("bias", bn.bias), true);
        fused.weight = new Parameter(wb[0], w.requiresGrad());
        fused.bias = new Parameter(wb[1], b == null || b.requiresGrad());
        return fused;
    }

    /**
     * {@code fuse_conv_bn_weights}: the fused weight and bias. {@code convB}, {@code bnW} and
     * {@code bnB} may be null (zeros, ones, zeros); {@code transpose} for a transposed convolution's
     * {@code [in, out, …]} weight.
     */
    public static Tensor[] fuseConvBnWeights(Tensor convW, Tensor convB, Tensor bnRm, Tensor bnRv, double bnEps, Tensor bnW, Tensor bnB, boolean transpose) {
        if (bnRm == null || bnRv == null) throw new IllegalArgumentException("fuse_conv_bn_weights: the batch norm has no running statistics (track_running_stats=False)");
        try (var unused = GradMode.noGrad()) {
            var weightDtype = convW.dtype();
            var biasDtype = convB != null ? convB.dtype() : weightDtype;
            if (convB == null) convB = Tensor.zerosLike(bnRm);
            if (bnW == null) bnW = Tensor.onesLike(bnRm);
            if (bnB == null) bnB = Tensor.zerosLike(bnRm);
            Tensor rsqrt = bnRv.add(bnEps).rsqrt();
            int[] shape = new int[convW.dim()];
            java.util.Arrays.fill(shape, 1);
            shape[transpose ? 1 : 0] = -1;
            Tensor w = convW.mul(bnW.mul(rsqrt).reshape(shape)).to(weightDtype);
            Tensor b = convB.sub(bnRm).mul(rsqrt).mul(bnW).add(bnB).to(biasDtype);
            return new Tensor[] {w.contiguous(), b.contiguous()};
        }
    }

    /** {@code fuse_linear_bn_eval(linear, bn)}: both must be in eval mode, and the batch norm's features the linear's outputs (or 1). */
    public static Linear fuseLinearBnEval(Linear linear, NormBase bn) {
        if (linear.isTraining() || bn.isTraining()) throw new IllegalStateException("Fusion only for eval!");
        if (linear.outFeatures != bn.numFeatures && bn.numFeatures != 1) {
            throw new IllegalArgumentException("To fuse, linear.out_features must equal bn.num_features or bn.num_features must be 1");
        }
        Linear fused = new Linear(linear.inFeatures, linear.outFeatures, true);
        // every tensor through read: a parametrized layer's field is null, its value computed
        Tensor w = linear.read("weight", linear.weight), b = linear.read("bias", linear.bias);
        Tensor mean = bn.read("running_mean", bn.runningMean), var = bn.read("running_var", bn.runningVar);
        if (mean == null || var == null) throw new IllegalArgumentException("fuse_linear_bn_eval: the batch norm has no running statistics (track_running_stats=False)");
        try (var unused = GradMode.noGrad()) {
            Tensor bnW = bn.read("weight", bn.weight), bnB = bn.read("bias", bn.bias);
            if (bnW == null) bnW = Tensor.onesLike(mean);
            if (bnB == null) bnB = Tensor.zerosLike(mean);
            Tensor scale = bnW.mul(var.add(bn.eps).rsqrt());
            Tensor bias = b != null ? b : Tensor.zerosLike(mean);
            fused.weight = new Parameter(w.mul(scale.unsqueeze(-1)).contiguous(), w.requiresGrad());
            fused.bias = new Parameter(bias.sub(mean).mul(scale).add(bnB).contiguous(), b == null || b.requiresGrad());
        }
        fused.eval();
        return fused;
    }

    /** A new layer of {@code conv}'s class and settings (its tensors are replaced by the caller). */
    private static ConvNd copyOf(ConvNd conv) {
        int[] k = conv.kernelSize(), s = conv.stride(), d = conv.dilation();
        String ps = conv.paddingString();
        ConvNd copy = switch (conv) {
            case Conv1d c when ps == null -> new Conv1d(c.inChannels, c.outChannels, k[0], s[0], c.padding()[0], d[0], c.groups, true, c.paddingMode);
            case Conv1d c -> new Conv1d(c.inChannels, c.outChannels, k[0], s[0], ps, d[0], c.groups, true, c.paddingMode);
            case Conv2d c when ps == null -> new Conv2d(c.inChannels, c.outChannels, k, s, c.padding(), d, c.groups, true, c.paddingMode);
            case Conv2d c -> new Conv2d(c.inChannels, c.outChannels, k, s, ps, d, c.groups, true, c.paddingMode);
            case Conv3d c when ps == null -> new Conv3d(c.inChannels, c.outChannels, k, s, c.padding(), d, c.groups, true, c.paddingMode);
            case Conv3d c -> new Conv3d(c.inChannels, c.outChannels, k, s, ps, d, c.groups, true, c.paddingMode);
            default -> throw new UnsupportedOperationException("fuse_conv_bn_eval: " + conv.getClass().getSimpleName() + " is not supported (Conv1d, Conv2d, Conv3d are)");
        };
        copy.eval();
        return copy;
    }
}
