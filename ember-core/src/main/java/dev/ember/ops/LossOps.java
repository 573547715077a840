package dev.ember.ops;

import dev.ember.ops.eager.NllLoss;
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
 * label smoothing, or class-probability targets), mse_loss, binary cross entropy (of probabilities
 * and of logits), and l1_loss, smooth_l1_loss, huber_loss and kl_div, each with ATen's
 * {@code reduction} codes (0 none, 1 mean, 2 sum), checks and messages. The last ones are defined by
 * their decompositions ({@link ComposedOps#composed}): ATen's formulas, differentiated through.
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
            .derivative(g -> new Object[] {g.call(LossOps.NLL_LOSS_BACKWARD, g.grad(0), g.arg(0), g.arg(1), g.isTensorArg(2) ? g.arg(2) : null,
                    g.value(3), g.value(4), g.result(1))})
            .register();

    /**
     * nll_loss_forward's gradient with respect to self: zero but at each counted target's class,
     * where it is {@code -weight[target] * grad} (divided by total_weight for the mean).
     */
    public static final OpOverload NLL_LOSS_BACKWARD = OpOverload.define("nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, "
                    + "Tensor? weight, int reduction, SymInt ignore_index, Tensor total_weight) -> Tensor")
            .meta(a -> {
                Tensor grad = a.tensor(0), self = a.tensor(1), target = a.tensor(2), weight = a.optTensor(3), total = a.tensor(6);
                String op = "nll_loss_backward";
                if (self.dim() < 1 || self.dim() > 2) throw new IllegalArgumentException(op + ": input tensor should be 1D or 2D");
                if (target.dim() > 1) throw new IllegalArgumentException(op + ": 0D or 1D target tensor expected, multi-target not supported");
                boolean noBatch = self.dim() == 1 && target.dim() == 0;
                if (!noBatch && self.size(0) != target.size(0)) {
                    throw new IllegalArgumentException(op + ": size mismatch (got input: " + Shapes.format(self.shape()) + ", target: " + Shapes.format(target.shape()) + ")");
                }
                if (total.numel() != 1) {
                    throw new IllegalArgumentException(op + ": expected total_weight to be a single element tensor, got: " + Shapes.format(total.shape())
                            + " (" + total.numel() + " elements)");
                }
                int classes = self.size(-1);
                if (weight != null && weight.numel() != classes) {
                    throw new IllegalArgumentException(op + ": weight tensor should be defined either for all or no classes (" + classes
                            + " classes, weight of shape " + Shapes.format(weight.shape()) + ")");
                }
                if (reduction(a, 4) == NllLoss.NONE && self.dim() == 2) {
                    if (grad.dim() != 1 || grad.size(0) != self.size(0)) {
                        throw new IllegalArgumentException(op + ": Expected a tensor of dimension 1 and tensor.size[0] == " + self.size(0) + " but got: dimension "
                                + grad.dim() + " and tensor.size[0] == " + (grad.dim() == 0 ? 1 : grad.size(0)));
                    }
                } else if (grad.dim() > 1 || grad.numel() != 1) {
                    throw new IllegalArgumentException(op + ": Expected a single element grad_output tensor, but got: " + Shapes.format(grad.shape()));
                }
                checkTypes(self, target, weight);
                if (grad.dtype() != self.dtype()) {
                    throw new IllegalArgumentException(op + ": expected scalar type " + self.dtype().scalarTypeName() + " but found "
                            + grad.dtype().scalarTypeName() + " (grad_output)");
                }
                return TensorMeta.contiguous(self.dtype(), self.shape());
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(1), out = Tensor.allocate((TensorMeta) m);
                long ignore = a.lng(5);
                int classes = self.size(-1);
                long[] targets = a.tensor(2).toLongArray();
                for (long t : targets) {
                    if (t != ignore && (t < 0 || t >= classes)) throw new IndexOutOfBoundsException("nll_loss_backward: Target " + t + " is out of bounds.");
                }
                NllLoss.backward(a.tensor(0), targets, a.optTensor(3), reduction(a, 4), ignore, a.tensor(6).item(), out);
                return out;
            })
            // linear in grad_output: its gradient is the loss of grad (per sample, or summed and over total_weight for the mean)
            .derivative(g -> {
                if (!g.needs(0)) return new Object[0];
                int r = g.intValue(4);
                boolean perSample = r == NllLoss.NONE && g.argMeta(1).dim() == 2;
                Object loss = ((List<?>) g.call(LossOps.NLL_LOSS_FORWARD, g.grad(), g.arg(2), g.isTensorArg(3) ? g.arg(3) : null,
                        (long) (perSample ? NllLoss.NONE : NllLoss.SUM), g.value(5))).getFirst();
                if (r == NllLoss.MEAN) loss = g.div(loss, g.arg(6));
                return new Object[] {g.reshape(loss, g.argMeta(0).shape())};
            })
            .register();

    /** nll_loss_forward's output alone; differentiated through it (PyTorch's CompositeImplicitAutograd). */
    public static final OpOverload NLL_LOSS = OpOverload.define(
                    "nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, SymInt ignore_index=-100) -> Tensor")
            .meta(a -> ((List<?>) NLL_LOSS_FORWARD.inferMeta(a)).getFirst())
            .kernel((a, m) -> NLL_LOSS_FORWARD.callList(a.toArray()).getFirst())
            .decomposition((e, a) -> ((List<?>) e.call(LossOps.NLL_LOSS_FORWARD, a)).getFirst())
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
            // (N, C, d1, …) as (N·d1·…, C) rows in the kernel's own sample order (batch-major over
            // positions), so the reduced sums add in the same order: autograd differentiates this
            .decomposition((e, a) -> {
                TensorMeta self = e.meta(a[0]);
                if (self.dim() <= 2) return ((List<?>) e.call(LossOps.NLL_LOSS_FORWARD, a)).getFirst();
                int nd = self.dim(), classes = self.shape()[1];
                int[] toLast = new int[nd];
                toLast[0] = 0;
                for (int d = 2; d < nd; d++) toLast[d - 1] = d;
                toLast[nd - 1] = 1;
                int[] perSample = spatialTargetShape(self.shape());
                Object rows = e.call(ShapeOps.RESHAPE, e.call(ShapeOps.PERMUTE, a[0], toLast), new int[] {Shapes.numel(perSample), classes});
                Object targets = e.call(ShapeOps.RESHAPE, a[1], new int[] {Shapes.numel(perSample)});
                Object out = ((List<?>) e.call(LossOps.NLL_LOSS_FORWARD, rows, targets, a[2], a[3], a[4])).getFirst();
                return ((Number) a[3]).intValue() == NllLoss.NONE ? e.call(ShapeOps.RESHAPE, out, perSample) : out;
            })
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
            .kernel((a, m) -> ((Tensor) CrossEntropy.loss(OpEmitter.EAGER, a.tensor(0), a.tensor(1), a.optTensor(2), reduction(a, 3), a.lng(4), a.dbl(5))).contiguous())
            .decomposition((e, a) -> CrossEntropy.loss(e, a[0], a[1], a[2], ((Number) a[3]).intValue(), ((Number) a[4]).longValue(), ((Number) a[5]).doubleValue()))
            .register();

    public static final OpOverload MSE_LOSS = OpOverload.define("mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor")
            .meta(a -> {
                Tensor self = a.tensor(0), target = a.tensor(1);
                DType d = TypePromotion.resultType(self, target);
                if (!d.isFloatingPoint()) throw new IllegalArgumentException("mse_loss: \"mse_cpu\" not implemented for '" + d.scalarTypeName() + "'");
                int[] shape = Shapes.broadcast("mse_loss", self.shape(), target.shape());
                return reduction(a, 2) == NllLoss.NONE ? TensorMeta.contiguous(d, shape) : TensorMeta.contiguous(d);
            })
            .kernel((a, m) -> mse(a).contiguous())
            // self: 2·(self − target)·grad (over the element count for the mean); target: its negation
            .derivative(g -> {
                Object diff = g.sub(g.arg(0), g.arg(1));
                Object d = g.mul(g.mul(diff, g.grad()), 2.0);
                if (g.intValue(2) == NllLoss.MEAN) d = g.div(d, (double) Shapes.numel(g.meta(diff).shape()));
                return new Object[] {g.needs(0) ? d : null, g.needs(1) ? g.neg(d) : null};
            })
            .register();

    /**
     * ATen's binary_cross_entropy_with_logits: {@code (1 − t)·x − w_pos·log σ(x)} with
     * {@code w_pos = (pos_weight − 1)·t + 1}, times weight, reduced; inputs broadcast together.
     * Its kernel is its decomposition run eagerly (log σ is the log_sigmoid op).
     */
    public static final OpOverload BINARY_CROSS_ENTROPY_WITH_LOGITS = OpOverload.define("binary_cross_entropy_with_logits(Tensor self, Tensor target, "
                    + "Tensor? weight=None, Tensor? pos_weight=None, int reduction=Mean) -> Tensor")
            .meta(a -> {
                Tensor self = a.tensor(0), target = a.tensor(1), weight = a.optTensor(2), posWeight = a.optTensor(3);
                String op = "binary_cross_entropy_with_logits";
                if (!self.dtype().isFloatingPoint()) {
                    throw new IllegalArgumentException(op + ": expected a floating point input (self), got " + self.dtype().scalarTypeName());
                }
                int[] shape = self.shape();
                String[] names = {"self", "target", "weight", "pos_weight"};
                for (int i = 1; i < 4; i++) {
                    Tensor t = a.optTensor(i);
                    if (t == null) continue;
                    if (t.dtype() != self.dtype()) {
                        throw new IllegalArgumentException(op + ": expected " + names[i] + " to have the input's dtype " + self.dtype().scalarTypeName()
                                + ", but got " + t.dtype().scalarTypeName());
                    }
                    shape = Shapes.broadcast(op, shape, t.shape());
                }
                return reduction(a, 4) == NllLoss.NONE ? TensorMeta.contiguous(self.dtype(), shape) : TensorMeta.contiguous(self.dtype());
            })
            .kernel((a, m) -> ((Tensor) bceWithLogits(OpEmitter.EAGER, a.toArray())).contiguous())
            .decomposition(LossOps::bceWithLogits)
            .derivative(LossOps::bceWithLogitsBackward)
            .register();

    /** {@code |self − target|}, reduced; inputs broadcast together. */
    public static final OpOverload L1_LOSS = ComposedOps.composed("l1_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
                    a -> pointwiseLossMeta(a, "l1_cpu"),
                    (e, a) -> reduce(e, e.call(PointwiseOps.ABS, e.call(PointwiseOps.SUB_TENSOR, a[0], a[1])), a[2]))
            .register();

    /**
     * With {@code z = |self − target|}: {@code z < beta ? 0.5·z·z / beta : z − 0.5·beta}, reduced;
     * l1_loss for {@code beta = 0}, as ATen.
     */
    public static final OpOverload SMOOTH_L1_LOSS = ComposedOps.composed("smooth_l1_loss(Tensor self, Tensor target, int reduction=Mean, float beta=1.0) -> Tensor",
                    a -> {
                        if (a.dbl(3) < 0) throw new IllegalArgumentException("smooth_l1_loss: smooth_l1_loss does not support negative values for beta.");
                        return pointwiseLossMeta(a, "smooth_l1_cpu");
                    },
                    (e, a) -> {
                        double beta = ActivationOps.number(a[3]);
                        if (beta == 0) return e.call(L1_LOSS, a[0], a[1], a[2]);
                        Object z = e.call(PointwiseOps.ABS, e.call(PointwiseOps.SUB_TENSOR, a[0], a[1]));
                        Object quadratic = e.call(PointwiseOps.DIV_SCALAR, e.call(PointwiseOps.MUL_TENSOR, e.call(PointwiseOps.MUL_SCALAR, z, 0.5), z), beta);
                        Object linear = e.call(PointwiseOps.SUB_SCALAR, z, 0.5 * beta);
                        return reduce(e, e.call(PointwiseOps.WHERE_SELF, e.call(PointwiseOps.LT_SCALAR, z, beta), quadratic, linear), a[2]);
                    })
            .register();

    /** With {@code z = |self − target|}: {@code z < delta ? 0.5·z·z : delta·(z − 0.5·delta)}, reduced. */
    public static final OpOverload HUBER_LOSS = ComposedOps.composed("huber_loss(Tensor self, Tensor target, int reduction=Mean, float delta=1.0) -> Tensor",
                    a -> {
                        if (!(a.dbl(3) > 0)) throw new IllegalArgumentException("huber_loss: huber_loss does not support non-positive values for delta.");
                        return pointwiseLossMeta(a, "huber_cpu");
                    },
                    (e, a) -> {
                        double delta = ActivationOps.number(a[3]);
                        Object z = e.call(PointwiseOps.ABS, e.call(PointwiseOps.SUB_TENSOR, a[0], a[1]));
                        Object quadratic = e.call(PointwiseOps.MUL_TENSOR, e.call(PointwiseOps.MUL_SCALAR, z, 0.5), z);
                        Object linear = e.call(PointwiseOps.MUL_SCALAR, e.call(PointwiseOps.SUB_SCALAR, z, 0.5 * delta), delta);
                        return reduce(e, e.call(PointwiseOps.WHERE_SELF, e.call(PointwiseOps.LT_SCALAR, z, delta), quadratic, linear), a[2]);
                    })
            .register();

    /**
     * ATen's kl_div: {@code xlogy(target, target) − target·self} (0 where target is 0), or with
     * {@code log_target} {@code e^target·(target − self)}; reduced. xlogy is {@code t·log(t)} with the
     * log read at 1 where t is 0, which keeps the gradient there finite.
     */
    public static final OpOverload KL_DIV = ComposedOps.composed("kl_div(Tensor self, Tensor target, int reduction=Mean, *, bool log_target=False) -> Tensor",
                    a -> {
                        if (!a.tensor(0).dtype().isFloatingPoint() || !a.tensor(1).dtype().isFloatingPoint()) {
                            throw new IllegalArgumentException("kl_div: kl_div: Integral inputs not supported.");
                        }
                        return pointwiseLossMeta(a, "kl_div");
                    },
                    (e, a) -> {
                        Object input = a[0], t = a[1], pointwise;
                        if ((Boolean) a[3]) {
                            pointwise = e.call(PointwiseOps.MUL_TENSOR, e.call(PointwiseOps.EXP, t), e.call(PointwiseOps.SUB_TENSOR, t, input));
                        } else {
                            Object logT = e.call(PointwiseOps.LOG, e.call(PointwiseOps.WHERE_SCALAR_SELF, e.call(PointwiseOps.EQ_SCALAR, t, 0L), 1.0, t));
                            pointwise = e.call(PointwiseOps.SUB_TENSOR, e.call(PointwiseOps.MUL_TENSOR, t, logT), e.call(PointwiseOps.MUL_TENSOR, t, input));
                        }
                        return reduce(e, pointwise, a[2]);
                    })
            .register();

    /**
     * Binary cross entropy of probabilities, ATen's formula with each log clamped at −100:
     * {@code (t − 1)·max(log1p(−x), −100) − t·max(log x, −100)}, times weight, reduced. The eager
     * kernel checks, as ATen's, that input and target lie in [0, 1] (compiled code does not: the
     * values are data). Its derivative is ATen's: {@code (x − t) / max((1 − x)·x, 1e-12)} for self
     * and {@code −logit(x)} for target, finite at 0 and 1 where the formula's would be NaN.
     */
    public static final OpOverload BINARY_CROSS_ENTROPY = ComposedOps.composed(
                    "binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean) -> Tensor",
                    a -> {
                        Tensor self = a.tensor(0), target = a.tensor(1), weight = a.optTensor(2);
                        String op = "binary_cross_entropy";
                        if (!Arrays.equals(self.shape(), target.shape())) {
                            throw new IllegalArgumentException(op + ": Using a target size (" + Shapes.format(target.shape()) + ") that is different to the input size ("
                                    + Shapes.format(self.shape()) + ") is deprecated. Please ensure they have the same size.");
                        }
                        if (weight != null && !Arrays.equals(Shapes.broadcast(op, self.shape(), weight.shape()), self.shape())) {
                            throw new IllegalArgumentException(op + ": weight of shape " + Shapes.format(weight.shape()) + " does not broadcast to the input's shape "
                                    + Shapes.format(self.shape()));
                        }
                        DType d = TypePromotion.resultType(self, target);
                        if (!d.isFloatingPoint() || self.dtype() != target.dtype()) {
                            throw new IllegalArgumentException(op + ": expected input and target of one floating point dtype, got "
                                    + self.dtype().scalarTypeName() + " and " + target.dtype().scalarTypeName());
                        }
                        return reduction(a, 3) == NllLoss.NONE ? TensorMeta.contiguous(d, self.shape()) : TensorMeta.contiguous(d);
                    },
                    LossOps::binaryCrossEntropy)
            .kernel((a, m) -> {
                checkProbabilities(a.tensor(0), "input");
                checkProbabilities(a.tensor(1), "target");
                return ComposedOps.eagerly(LossOps::binaryCrossEntropy, a);
            })
            .derivative(g -> {
                Object x = g.arg(0), weight = g.isTensorArg(2) ? g.arg(2) : null;
                Object[] out = new Object[2];
                if (g.needs(0)) {
                    Object spread = g.call(PointwiseOps.CLAMP, g.mul(g.oneMinus(x), x), 1e-12, null);
                    out[0] = g.div(g.sub(x, g.arg(1)), spread);
                }
                if (g.needs(1)) out[1] = g.sub(g.call(PointwiseOps.LOG1P, g.neg(x)), g.call(PointwiseOps.LOG, x));
                for (int i = 0; i < 2; i++) {
                    if (out[i] == null) continue;
                    out[i] = g.mul(out[i], g.grad());
                    if (weight != null) out[i] = g.mul(out[i], weight);
                    if (g.intValue(3) == NllLoss.MEAN) out[i] = g.div(out[i], (double) Shapes.numel(g.argMeta(0).shape()));
                }
                return out;
            })
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
            throw new IllegalArgumentException("nll_loss: \"" + kernel + "\" not implemented for '" + self.dtype().scalarTypeName() + "'");
        }
        if (target.dtype() != DType.INT64) {
            throw new IllegalArgumentException("nll_loss: expected scalar type Long but found " + target.dtype().scalarTypeName());
        }
        if (weight != null && weight.dtype() != self.dtype()) {
            throw new IllegalArgumentException("nll_loss: expected scalar type " + self.dtype().scalarTypeName() + " but found "
                    + weight.dtype().scalarTypeName());
        }
    }

    /** The per-sample target shape of an (N, C, d1, …) input: (N, d1, …). */
    private static int[] spatialTargetShape(Tensor self) { return spatialTargetShape(self.shape()); }

    private static int[] spatialTargetShape(int[] shape) { return without(shape, 1); }

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
                    + target.dtype().scalarTypeName());
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

    // ------------------------------------------------------------------ binary_cross_entropy_with_logits

    private static Object bceWithLogits(OpEmitter e, Object[] a) {
        Object x = a[0], t = a[1], weight = a[2], posWeight = a[3];
        Object logSigmoid = e.call(ActivationOps.LOG_SIGMOID, x);
        if (posWeight != null) {
            Object logWeight = e.call(PointwiseOps.ADD_SCALAR, e.call(PointwiseOps.MUL_TENSOR, e.call(PointwiseOps.SUB_SCALAR, posWeight, 1L), t), 1L);
            logSigmoid = e.call(PointwiseOps.MUL_TENSOR, logSigmoid, logWeight);
        }
        Object loss = e.call(PointwiseOps.SUB_TENSOR, e.call(PointwiseOps.MUL_TENSOR, e.call(PointwiseOps.RSUB_SCALAR, t, 1L), x), logSigmoid);
        if (weight != null) loss = e.call(PointwiseOps.MUL_TENSOR, loss, weight);
        return reduce(e, loss, a[4]);
    }

    /**
     * derivatives.yaml's binary_cross_entropy_with_logits_backward and _target_backward:
     * self: {@code ((w_pos·t + 1 − t)·σ(x) − w_pos·t)·grad·weight}; target:
     * {@code (log σ(−x) − w_pos·log σ(x))·grad·weight}, or {@code −x·grad·weight} without pos_weight;
     * each over the element count for the mean.
     */
    private static Object[] bceWithLogitsBackward(Grad g) {
        Object x = g.arg(0), t = g.arg(1);
        Object weight = g.isTensorArg(2) ? g.arg(2) : null, posWeight = g.isTensorArg(3) ? g.arg(3) : null;
        int[] shape = g.argMeta(0).shape();
        for (int i = 1; i < 4; i++) if (g.isTensorArg(i)) shape = Shapes.broadcast("binary_cross_entropy_with_logits_backward", shape, g.argMeta(i).shape());
        double count = Shapes.numel(shape);
        Object gradSelf = null, gradTarget = null;
        if (g.needs(0)) {
            Object sig = g.call(PointwiseOps.SIGMOID, x);
            if (posWeight != null) {
                Object pt = g.mul(posWeight, t);
                gradSelf = g.sub(g.mul(g.sub(g.add(pt, 1L), t), sig), pt);
            } else {
                gradSelf = g.sub(sig, t);
            }
        }
        if (g.needs(1)) {
            gradTarget = posWeight != null
                    ? g.sub(g.call(ActivationOps.LOG_SIGMOID, g.neg(x)), g.mul(g.call(ActivationOps.LOG_SIGMOID, x), posWeight))
                    : g.neg(x);
        }
        Object[] out = {gradSelf, gradTarget};
        for (int i = 0; i < 2; i++) {
            if (out[i] == null) continue;
            out[i] = g.mul(out[i], g.grad());
            if (weight != null) out[i] = g.mul(out[i], weight);
            if (g.intValue(4) == NllLoss.MEAN) out[i] = g.div(out[i], count);
        }
        return out;
    }

    // ------------------------------------------------------------------ helpers

    /**
     * The meta function of a loss computed elementwise then reduced: self and target broadcast
     * together, a floating result dtype ({@code kernel} names ATen's kernel in the error), the
     * reduction code checked.
     */
    private static TensorMeta pointwiseLossMeta(Args a, String kernel) {
        Tensor self = a.tensor(0), target = a.tensor(1);
        String op = a.op().schema().name();
        DType d = TypePromotion.resultType(self, target);
        if (!d.isFloatingPoint()) throw new IllegalArgumentException(op + ": \"" + kernel + "\" not implemented for '" + d.scalarTypeName() + "'");
        int[] shape = Shapes.broadcast(op, self.shape(), target.shape());
        return reduction(a, 2) == NllLoss.NONE ? TensorMeta.contiguous(d, shape) : TensorMeta.contiguous(d);
    }

    /** ATen's apply_loss_reduction: the mean, the sum, or the elementwise loss itself, by reduction code. */
    static Object reduce(OpEmitter e, Object loss, Object reduction) {
        return switch (((Number) reduction).intValue()) {
            case NllLoss.MEAN -> e.call(ReductionOps.MEAN, loss);
            case NllLoss.SUM -> e.call(ReductionOps.SUM, loss);
            default -> loss;
        };
    }

    private static Object binaryCrossEntropy(OpEmitter e, Object[] a) {
        Object x = a[0], t = a[1];
        Object logOneMinus = e.call(PointwiseOps.CLAMP, e.call(PointwiseOps.LOG1P, e.call(PointwiseOps.NEG, x)), -100L, null);
        Object log = e.call(PointwiseOps.CLAMP, e.call(PointwiseOps.LOG, x), -100L, null);
        Object loss = e.call(PointwiseOps.SUB_TENSOR, e.call(PointwiseOps.MUL_TENSOR, e.call(PointwiseOps.SUB_SCALAR, t, 1L), logOneMinus),
                e.call(PointwiseOps.MUL_TENSOR, t, log));
        if (a[2] != null) loss = e.call(PointwiseOps.MUL_TENSOR, loss, a[2]);
        return reduce(e, loss, a[3]);
    }

    /** ATen's binary_cross_entropy check, on the data: every element in [0, 1] (NaN is not). */
    private static void checkProbabilities(Tensor t, String what) {
        for (double v : t.toDoubleArray()) {
            if (!(v >= 0 && v <= 1)) throw new IllegalArgumentException("binary_cross_entropy: all elements of " + what + " should be between 0 and 1");
        }
    }

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
