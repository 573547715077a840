package dev.ember.ops;

import static dev.ember.ops.ComposedOps.composed;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

/**
 * The activations of {@code torch.nn.functional} that ATen names as ops (leaky_relu, elu, selu,
 * celu, softplus, hardtanh, relu6, hardsigmoid, hardswish, mish, log_sigmoid, glu), each defined by
 * its decomposition into existing ops ({@link #composed}): eager, aot_eager and the inductor compute
 * one formula, ATen's, and eager autograd differentiates through it. Where autograd through the
 * formula would differ from ATen's derivative (a NaN from a branch {@code where} discards, or a
 * boundary counted on the wrong side), the formula is written so that it does not: the discarded
 * branch reads a clamped input, and bounds compare strictly where ATen's backward does.
 */
public final class ActivationOps {
    private ActivationOps() {}

    /** ATen's {@code SELU_ALPHA} and {@code SELU_SCALE}. */
    static final double SELU_ALPHA = 1.6732632423543772848170429916717;
    static final double SELU_SCALE = 1.0507009873554804934193349852946;

    /** {@code x > 0 ? x : x · negative_slope}. */
    public static final OpOverload LEAKY_RELU = composed("leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
            floatingUnary("leaky_relu_cpu"),
            (e, a) -> e.call(PointwiseOps.WHERE_SELF, e.call(PointwiseOps.GT_SCALAR, a[0], 0L), a[0], e.call(PointwiseOps.MUL_SCALAR, a[0], a[1])))
            .tags(Tag.POINTWISE).register();

    /**
     * {@code x <= 0 ? expm1(x · input_scale) · alpha · scale : x · scale}. The exponential reads
     * {@code min(x, 0)}, so a large positive x, whose branch is discarded, cannot overflow it into a
     * NaN gradient.
     */
    public static final OpOverload ELU = composed("elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor",
            floatingUnary("elu_cpu"),
            (e, a) -> {
                Object x = a[0];
                double alpha = number(a[1]), scale = number(a[2]), inputScale = number(a[3]);
                Object negative = scaled(e, e.call(PointwiseOps.EXPM1, scaled(e, e.call(PointwiseOps.CLAMP, x, null, 0L), inputScale)), alpha * scale);
                return e.call(PointwiseOps.WHERE_SELF, e.call(PointwiseOps.LE_SCALAR, x, 0L), negative, scaled(e, x, scale));
            })
            .tags(Tag.POINTWISE).register();

    /** elu with ATen's SELU constants. */
    public static final OpOverload SELU = composed("selu(Tensor self) -> Tensor", floatingUnary("elu_cpu"),
            (e, a) -> e.call(ELU, a[0], SELU_ALPHA, SELU_SCALE, 1.0))
            .tags(Tag.POINTWISE).register();

    /** elu with {@code input_scale = 1 / alpha}. */
    public static final OpOverload CELU = composed("celu(Tensor self, Scalar alpha=1.0) -> Tensor",
            a -> {
                if (number(a.get(1)) == 0) throw new IllegalArgumentException("celu: ZeroDivisionError: alpha cannot be 0 for CELU");
                return floatingUnary("elu_cpu").infer(a);
            },
            (e, a) -> e.call(ELU, a[0], a[1], 1.0, 1.0 / number(a[1])))
            .tags(Tag.POINTWISE).register();

    /**
     * {@code x · beta > threshold ? x : log1p(exp(x · beta)) / beta}; the exponential reads
     * {@code min(x · beta, threshold)}, so the discarded branch stays finite (and its gradient 0).
     */
    public static final OpOverload SOFTPLUS = composed("softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor",
            floatingUnary("softplus_cpu"),
            (e, a) -> {
                Object x = a[0], scaledX = scaled(e, x, number(a[1]));
                Object exp = e.call(PointwiseOps.EXP, e.call(PointwiseOps.CLAMP, scaledX, null, a[2]));
                Object soft = e.call(PointwiseOps.LOG1P, exp);
                if (number(a[1]) != 1) soft = e.call(PointwiseOps.DIV_SCALAR, soft, a[1]);
                return e.call(PointwiseOps.WHERE_SELF, e.call(PointwiseOps.GT_SCALAR, scaledX, a[2]), x, soft);
            })
            .tags(Tag.POINTWISE).register();

    /**
     * {@code clamp(x, min_val, max_val)}, written so that its gradient is ATen's hardtanh_backward:
     * 0 at the bounds themselves (clamp's passes there).
     */
    public static final OpOverload HARDTANH = composed("hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
            a -> {
                Tensor self = a.tensor(0);
                if (self.dtype() == DType.BOOL) throw new IllegalArgumentException("hardtanh: Bool inputs not supported for hardtanh");
                return TensorMeta.contiguous(self.dtype(), self.shape());
            },
            (e, a) -> {
                Object out = clampStrictly(e, a[0], a[1], a[2]);
                DType dtype = e.meta(a[0]).dtype();
                // an integer input with float bounds: ATen clamps into a tensor of the input's dtype
                return e.meta(out).dtype() == dtype ? out : e.call(ShapeOps.TO_COPY, out, dtype);
            })
            .tags(Tag.POINTWISE).register();

    /** {@code hardtanh(x, 0, 6)}. */
    public static final OpOverload RELU6 = composed("relu6(Tensor self) -> Tensor", a -> HARDTANH.inferMeta(HARDTANH.bind(a.tensor(0))),
            (e, a) -> e.call(HARDTANH, a[0], 0L, 6L))
            .tags(Tag.POINTWISE).register();

    /** {@code min(max(x + 3, 0), 6) / 6}, with ATen's gradient: {@code 1/6} strictly inside (−3, 3), 0 elsewhere. */
    public static final OpOverload HARDSIGMOID = composed("hardsigmoid(Tensor self) -> Tensor", floatingUnary("hardsigmoid_cpu"),
            (e, a) -> e.call(PointwiseOps.DIV_SCALAR, clampStrictly(e, e.call(PointwiseOps.ADD_SCALAR, a[0], 3L), 0L, 6L), 6L))
            .tags(Tag.POINTWISE).register();

    /**
     * {@code x · min(max(x + 3, 0), 6) / 6}; clamp's gradient, which counts the bounds as inside, gives
     * ATen's hardswish_backward there ({@code x / 3 + 1/2} at −3 and 3).
     */
    public static final OpOverload HARDSWISH = composed("hardswish(Tensor self) -> Tensor", floatingUnary("hardswish_cpu"),
            (e, a) -> {
                Object gate = e.call(PointwiseOps.CLAMP, e.call(PointwiseOps.ADD_SCALAR, a[0], 3L), 0L, 6L);
                return e.call(PointwiseOps.DIV_SCALAR, e.call(PointwiseOps.MUL_TENSOR, a[0], gate), 6L);
            })
            .tags(Tag.POINTWISE).register();

    /**
     * {@code x · tanh(softplus(x))}. ATen's kernel has no threshold, but past softplus's (20) both give
     * {@code tanh = 1} exactly in float32 and float64. Its derivative is ATen's mish_backward,
     * {@code tanh(sp) + x·σ(x)·(1 − tanh(sp)²)}: through the product, a huge x times the output
     * gradient overflows before it meets the zero {@code 1 − tanh²}, and gives NaN.
     */
    public static final OpOverload MISH = composed("mish(Tensor self) -> Tensor", floatingUnary("mish_cpu"),
            (e, a) -> e.call(PointwiseOps.MUL_TENSOR, a[0], e.call(PointwiseOps.TANH, e.call(SOFTPLUS, a[0], 1L, 20L))))
            .derivative(g -> {
                Object x = g.arg(0), tanh = g.call(PointwiseOps.TANH, g.call(SOFTPLUS, x, 1L, 20L));
                Object slope = g.mul(g.mul(x, g.call(PointwiseOps.SIGMOID, x)), g.oneMinus(g.mul(tanh, tanh)));
                return new Object[] {g.mul(g.grad(), g.add(tanh, slope))};
            })
            .tags(Tag.POINTWISE).register();

    /**
     * {@code log σ(x) = min(x, 0) − log1p(exp(−|x|))}, ATen's formula. Its derivative is ATen's,
     * {@code σ(−x)}: through the formula it would be 1 at 0, where min's and |x|'s gradients both break.
     */
    public static final OpOverload LOG_SIGMOID = composed("log_sigmoid(Tensor self) -> Tensor", floatingUnary("log_sigmoid_cpu"),
            (e, a) -> {
                Object negAbs = e.call(PointwiseOps.NEG, e.call(PointwiseOps.ABS, a[0]));
                return e.call(PointwiseOps.SUB_TENSOR, e.call(PointwiseOps.CLAMP, a[0], null, 0L), e.call(PointwiseOps.LOG1P, e.call(PointwiseOps.EXP, negAbs)));
            })
            .derivative(g -> new Object[] {g.mul(g.grad(), g.call(PointwiseOps.SIGMOID, g.neg(g.arg(0))))})
            .tags(Tag.POINTWISE).register();

    /** The first half of {@code dim} times the sigmoid of the second: {@code a · σ(b)}. */
    public static final OpOverload GLU = composed("glu(Tensor self, int dim=-1) -> Tensor",
            a -> {
                Tensor self = a.tensor(0);
                if (self.dim() == 0) throw new IllegalArgumentException("glu: glu does not support scalars because halving size must be even");
                int dim = Shapes.wrapDim("glu", a.integer(1), self.dim());
                if (self.size(dim) % 2 != 0) {
                    throw new IllegalArgumentException("glu: Halving dimension must be even, but dimension " + dim + " is size " + self.size(dim));
                }
                floatingUnary("glu_cpu").infer(a);
                int[] shape = self.shape();
                shape[dim] /= 2;
                return TensorMeta.contiguous(self.dtype(), shape);
            },
            (e, a) -> {
                int dim = Composites.wrap(e, a[0], a[1]);
                long half = e.meta(a[0]).shape()[dim] / 2;
                Object first = e.call(ShapeOps.NARROW, a[0], (long) dim, 0L, half), second = e.call(ShapeOps.NARROW, a[0], (long) dim, half, half);
                return e.call(PointwiseOps.MUL_TENSOR, first, e.call(PointwiseOps.SIGMOID, second));
            })
            .register();

    /**
     * {@code x <= threshold ? value : x}, as ATen's threshold (a NaN is kept: the comparison is
     * false); the gradient flows where {@code x > threshold}, ATen's threshold_backward.
     */
    public static final OpOverload THRESHOLD = composed("threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor",
            a -> {
                Tensor self = a.tensor(0);
                if (self.dtype() == DType.BOOL) throw new IllegalArgumentException("threshold: \"threshold_cpu\" not implemented for 'Bool'");
                return TensorMeta.contiguous(self.dtype(), self.shape());
            },
            (e, a) -> {
                Object out = e.call(PointwiseOps.WHERE_SCALAR_SELF, e.call(PointwiseOps.LE_SCALAR, a[0], a[1]), a[2], a[0]);
                DType dtype = e.meta(a[0]).dtype();
                return e.meta(out).dtype() == dtype ? out : e.call(ShapeOps.TO_COPY, out, dtype);
            })
            .tags(Tag.POINTWISE).register();

    /** {@code −lambd <= x <= lambd ? 0 : x}, as ATen's hardshrink; the gradient is 0 on that interval (bounds included). */
    public static final OpOverload HARDSHRINK = composed("hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor", floatingUnary("hardshrink_cpu"),
            (e, a) -> {
                double lambd = number(a[1]);
                Object inside = e.call(PointwiseOps.LOGICAL_AND, e.call(PointwiseOps.GE_SCALAR, a[0], -lambd), e.call(PointwiseOps.LE_SCALAR, a[0], lambd));
                return e.call(PointwiseOps.WHERE_SCALAR_SELF, inside, 0.0, a[0]);
            })
            .tags(Tag.POINTWISE).register();

    /**
     * {@code x > lambd ? x − lambd : x < −lambd ? x + lambd : 0}, as ATen's softshrink, whose middle
     * branch is {@code x · 0} so a NaN stays NaN; lambd must be at least 0 (ATen's check).
     */
    public static final OpOverload SOFTSHRINK = composed("softshrink(Tensor self, Scalar lambd=0.5) -> Tensor",
            a -> {
                double lambd = number(a.get(1));
                if (!(lambd >= 0)) throw new IllegalArgumentException("softshrink: lambda must be greater or equal to 0, but found to be " + a.get(1) + ".");
                return floatingUnary("softshrink_cpu").infer(a);
            },
            (e, a) -> {
                double lambd = number(a[1]);
                Object below = e.call(PointwiseOps.WHERE_SELF, e.call(PointwiseOps.LT_SCALAR, a[0], -lambd), e.call(PointwiseOps.ADD_SCALAR, a[0], lambd),
                        e.call(PointwiseOps.MUL_SCALAR, a[0], 0.0));
                return e.call(PointwiseOps.WHERE_SELF, e.call(PointwiseOps.GT_SCALAR, a[0], lambd), e.call(PointwiseOps.SUB_SCALAR, a[0], lambd), below);
            })
            .tags(Tag.POINTWISE).register();

    // ------------------------------------------------------------------ the builder

    /** A meta function for an elementwise op ATen implements for floating dtypes only ({@code kernel} names its kernel in the error). */
    static OpOverload.MetaFn floatingUnary(String kernel) {
        return a -> {
            Tensor self = a.tensor(0);
            if (!self.dtype().isFloatingPoint()) {
                throw new IllegalArgumentException(a.op().schema().name() + ": \"" + kernel + "\" not implemented for '" + self.dtype().scalarTypeName() + "'");
            }
            return TensorMeta.contiguous(self.dtype(), self.shape());
        };
    }

    // ------------------------------------------------------------------ formulas

    /**
     * {@code clamp(x, lo, hi)} whose gradient is 0 at the bounds: {@code x <= lo ? lo : x >= hi ? hi : x}.
     * Bounds given the wrong way round give {@code hi} everywhere, as clamp does.
     */
    private static Object clampStrictly(OpEmitter e, Object x, Object lo, Object hi) {
        Object low = number(lo) > number(hi) ? hi : lo;
        Object upper = e.call(PointwiseOps.WHERE_SCALAR_SELF, e.call(PointwiseOps.GE_SCALAR, x, hi), hi, x);
        return e.call(PointwiseOps.WHERE_SCALAR_SELF, e.call(PointwiseOps.LE_SCALAR, x, low), low, upper);
    }

    /** {@code x · factor}; x itself for 1 (exact either way, one node fewer). */
    private static Object scaled(OpEmitter e, Object x, double factor) { return factor == 1 ? x : e.call(PointwiseOps.MUL_SCALAR, x, factor); }

    static double number(Object scalar) { return ((Number) scalar).doubleValue(); }
}
