package dev.ember.ops;

import dev.ember.ops.kernels.NllLoss;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;
import java.util.List;

/**
 * The losses a training step needs: nll_loss (ATen's {@code nll_loss_forward} for 1-d and 2-d
 * inputs, {@code nll_loss} on top of it, and {@code nll_loss_nd} for any number of spatial
 * dimensions, as {@code F.nll_loss} calls), cross_entropy_loss (log_softmax then nll_loss, with
 * label smoothing, or class-probability targets) and mse_loss, each with ATen's
 * {@code reduction} codes (0 none, 1 mean, 2 sum), checks and messages.
 */
public final class LossOps {
    private LossOps() {}

    public static final OpOverload NLL_LOSS_FORWARD = OpOverload.define(
                    "nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> (Tensor output, Tensor total_weight)")
            .meta(a -> {
                Tensor self = a.tensor(0);
                checkForward(self, a.tensor(1), a.optTensor(2));
                boolean perSample = reduction(a, 3) == NllLoss.NONE && self.dim() == 2;
                TensorMeta output = perSample ? TensorMeta.contiguous(self.dtype(), self.size(0)) : TensorMeta.contiguous(self.dtype());
                return List.of(output, TensorMeta.contiguous(self.dtype()));
            })
            .kernel((a, m) -> nll(a, m))
            .register();

    public static final OpOverload NLL_LOSS = OpOverload.define(
                    "nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, SymInt ignore_index=-100) -> Tensor")
            .meta(a -> ((List<?>) NLL_LOSS_FORWARD.inferMeta(a)).getFirst())
            .kernel((a, m) -> NLL_LOSS_FORWARD.callList(a.toArray()).getFirst())
            .register();

    /** Any input of 1 or more dims: (C), (N, C) or (N, C, d1, …) with targets (), (N) or (N, d1, …). */
    public static final OpOverload NLL_LOSS_ND = OpOverload.define(
                    "nll_loss_nd(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, SymInt ignore_index=-100) -> Tensor")
            .meta(a -> {
                Tensor self = a.tensor(0), target = a.tensor(1);
                if (self.dim() < 1) throw new IllegalArgumentException("nll_loss_nd: Expected 1 or more dimensions (got " + self.dim() + ")");
                if (self.dim() != 1 && target.dim() > 0 && self.size(0) != target.size(0)) {
                    throw new IllegalArgumentException("nll_loss_nd: Expected input batch_size (" + self.size(0) + ") to match target batch_size (" + target.size(0) + ").");
                }
                if (self.dim() <= 2) return ((List<?>) NLL_LOSS_FORWARD.inferMeta(a)).getFirst();
                int[] perSample = spatialTargetShape(self);
                if (!Arrays.equals(target.shape(), perSample)) {
                    String message = self.dim() == 4
                            ? "size mismatch (got input: " + Shapes.format(self.shape()) + " , target: " + Shapes.format(target.shape()) + ")"
                            : "Expected target size " + Shapes.format(perSample) + ", got " + Shapes.format(target.shape());
                    throw new IllegalArgumentException("nll_loss_nd: " + message);
                }
                checkTypes(self, target, a.optTensor(2));
                checkWeight(self.size(1), a.optTensor(2));
                return reduction(a, 3) == NllLoss.NONE ? TensorMeta.contiguous(self.dtype(), perSample) : TensorMeta.contiguous(self.dtype());
            })
            .kernel((a, m) -> a.tensor(0).dim() <= 2 ? NLL_LOSS_FORWARD.callList(a.toArray()).getFirst() : nll(a, List.of(m, TensorMeta.contiguous(a.tensor(0).dtype()))).getFirst())
            .register();

    public static final OpOverload CROSS_ENTROPY_LOSS = OpOverload.define(
                    "cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, SymInt ignore_index=-100, float label_smoothing=0.0) -> Tensor")
            .meta(a -> {
                Tensor self = a.tensor(0), target = a.tensor(1);
                double smoothing = a.dbl(5);
                if (Arrays.equals(self.shape(), target.shape())) {
                    checkProbabilityTargets(a);
                    int classDim = self.dim() == 1 ? 0 : 1;
                    if (reduction(a, 3) != NllLoss.NONE) return TensorMeta.contiguous(self.dtype());
                    int[] shape = self.shape();
                    return TensorMeta.contiguous(self.dtype(), shape.length == 0 ? shape : without(shape, classDim));
                }
                if (smoothing > 1.0) throw new IllegalArgumentException("cross_entropy_loss: label_smoothing must be between 0.0 and 1.0. Got: " + smoothing);
                ReductionOps.LOG_SOFTMAX.inferMeta(ReductionOps.LOG_SOFTMAX.bind(self, (long) (self.dim() == 1 ? 0 : 1), false));
                return NLL_LOSS_ND.inferMeta(NLL_LOSS_ND.bind(self, target, a.get(2), a.get(3), a.get(4)));
            })
            .kernel((a, m) -> CrossEntropy.loss(a.tensor(0), a.tensor(1), a.optTensor(2), reduction(a, 3), a.lng(4), a.dbl(5)).contiguous())
            .register();

    public static final OpOverload MSE_LOSS = OpOverload.define("mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor")
            .meta(a -> {
                Tensor self = a.tensor(0), target = a.tensor(1);
                DType d = TypePromotion.resultType(self, target);
                if (!d.isFloatingPoint()) throw new IllegalArgumentException("mse_loss: \"mse_cpu\" not implemented for '" + ReductionOps.scalarTypeName(d) + "'");
                int[] shape = Shapes.broadcast("mse_loss", self.shape(), target.shape());
                return reduction(a, 2) == NllLoss.NONE ? TensorMeta.contiguous(d, shape) : TensorMeta.contiguous(d);
            })
            .kernel((a, m) -> mse(a).contiguous())
            .register();

    // ------------------------------------------------------------------ nll_loss

    /** ATen's nll_loss_forward_meta: 1-d or 2-d input, 0-d or 1-d target, matching batch, weight per class. */
    private static void checkForward(Tensor self, Tensor target, Tensor weight) {
        if (self.dim() < 1 || self.dim() > 2) throw new IllegalArgumentException("nll_loss_forward: input tensor should be 1D or 2D");
        if (target.dim() > 1) throw new IllegalArgumentException("nll_loss_forward: 0D or 1D target tensor expected, multi-target not supported");
        boolean noBatch = self.dim() == 1 && target.dim() == 0;
        if (!noBatch && self.size(0) != target.size(0)) {
            throw new IllegalArgumentException("nll_loss_forward: size mismatch (got input: " + Shapes.format(self.shape()) + ", target: " + Shapes.format(target.shape()) + ")");
        }
        checkWeight(self.size(-1), weight);
        checkTypes(self, target, weight);
    }

    private static void checkWeight(int classes, Tensor weight) {
        if (weight != null && (weight.dim() != 1 || weight.numel() != classes)) {
            throw new IllegalArgumentException("nll_loss: weight tensor should be defined either for all " + classes
                    + " classes or no classes but got weight tensor of shape: " + Shapes.format(weight.shape()));
        }
    }

    /** The kernel is floating only and reads int64 targets and weights of the input's dtype. */
    private static void checkTypes(Tensor self, Tensor target, Tensor weight) {
        String kernel = self.dim() == 4 ? "nll_loss2d_forward_out_frame" : "nll_loss_out_frame";
        if (!self.dtype().isFloatingPoint()) {
            throw new IllegalArgumentException("nll_loss: \"" + kernel + "\" not implemented for '" + ReductionOps.scalarTypeName(self.dtype()) + "'");
        }
        if (target.dtype() != DType.INT64) {
            throw new IllegalArgumentException("nll_loss: expected scalar type Long but found " + ReductionOps.scalarTypeName(target.dtype()));
        }
        if (weight != null && weight.dtype() != self.dtype()) {
            throw new IllegalArgumentException("nll_loss: expected scalar type " + ReductionOps.scalarTypeName(self.dtype()) + " but found "
                    + ReductionOps.scalarTypeName(weight.dtype()));
        }
    }

    /** The per-sample target shape of an (N, C, d1, …) input: (N, d1, …). */
    private static int[] spatialTargetShape(Tensor self) { return without(self.shape(), 1); }

    /** Runs the kernel for nll_loss_forward and nll_loss_nd: every target is checked before anything is computed. */
    private static List<Tensor> nll(Args a, Object metas) {
        List<?> m = (List<?>) metas;
        Tensor self = a.tensor(0), output = Tensor.allocate((TensorMeta) m.get(0)), total = Tensor.allocate((TensorMeta) m.get(1));
        long ignore = a.lng(4);
        int classes = self.dim() == 1 ? self.size(0) : self.size(1);
        long[] targets = a.tensor(1).toLongArray();
        for (long t : targets) {
            if (t != ignore && (t < 0 || t >= classes)) throw new IndexOutOfBoundsException("nll_loss: Target " + t + " is out of bounds.");
        }
        NllLoss.forward(self, targets, a.optTensor(2), reduction(a, 3), ignore, output, total);
        return List.of(output, total);
    }

    // ------------------------------------------------------------------ cross_entropy

    private static void checkProbabilityTargets(Args a) {
        Tensor self = a.tensor(0), target = a.tensor(1), weight = a.optTensor(2);
        if (!target.dtype().isFloatingPoint()) {
            throw new IllegalArgumentException("cross_entropy_loss: Expected floating point type for target with class probabilities, got "
                    + ReductionOps.scalarTypeName(target.dtype()));
        }
        if (a.lng(4) >= 0) throw new IllegalArgumentException("cross_entropy_loss: ignore_index is not supported for floating point target");
        int classes = self.dim() == 0 ? 1 : self.size(self.dim() == 1 ? 0 : 1);
        if (weight != null && (weight.dim() != 1 || weight.numel() != classes)) {
            throw new IllegalArgumentException("cross_entropy_loss: cross_entropy: weight tensor should be defined either for all " + classes
                    + " classes or no classes but got weight tensor of shape: " + Shapes.format(weight.shape()));
        }
        double smoothing = a.dbl(5);
        if (smoothing > 1.0) throw new IllegalArgumentException("cross_entropy_loss: label_smoothing must be between 0.0 and 1.0. Got: " + smoothing);
    }

    // ------------------------------------------------------------------ mse_loss

    /** ATen's mse_loss: the squared difference (broadcast, promoted), then the reduction. */
    private static Tensor mse(Args a) {
        Tensor diff = a.tensor(0).sub(a.tensor(1)), squared = diff.mul(diff);
        return switch (reduction(a, 2)) {
            case NllLoss.MEAN -> squared.mean();
            case NllLoss.SUM -> squared.sum();
            default -> squared;
        };
    }

    // ------------------------------------------------------------------ helpers

    /** The reduction code: 0 none, 1 mean, 2 sum (ATen would treat any other code as none; Ember refuses it). */
    static int reduction(Args a, int i) {
        int r = a.integer(i);
        if (r < NllLoss.NONE || r > NllLoss.SUM) {
            throw new IllegalArgumentException(a.op().schema().name() + ": reduction must be 0 (none), 1 (mean) or 2 (sum), got " + r);
        }
        return r;
    }

    static int[] without(int[] a, int d) {
        int[] out = new int[a.length - 1];
        for (int i = 0, j = 0; i < a.length; i++) if (i != d) out[j++] = a[i];
        return out;
    }
}
