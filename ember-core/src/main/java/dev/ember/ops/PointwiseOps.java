package dev.ember.ops;

import dev.ember.kernels.BinaryOp;
import dev.ember.kernels.UnaryOp;
import dev.ember.ops.eager.Copy;
import dev.ember.ops.eager.Pointwise;
import dev.ember.tensor.DType;
import dev.ember.tensor.Defaults;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;
import java.util.function.Function;

import static dev.ember.kernels.BinaryOp.ADD;
import static dev.ember.kernels.BinaryOp.ADD_SCALED;
import static dev.ember.kernels.BinaryOp.DIV;
import static dev.ember.kernels.BinaryOp.DIV_FLOOR;
import static dev.ember.kernels.BinaryOp.DIV_TRUNC;
import static dev.ember.kernels.BinaryOp.FMOD;
import static dev.ember.kernels.BinaryOp.MAX;
import static dev.ember.kernels.BinaryOp.MIN;
import static dev.ember.kernels.BinaryOp.MUL;
import static dev.ember.kernels.BinaryOp.REMAINDER;
import static dev.ember.kernels.BinaryOp.SUB;
import static dev.ember.tensor.DType.BOOL;

/**
 * The elementwise ops: arithmetic, comparisons, logic, activations, clamp, where, masked_fill,
 * dropout, their in-place forms and, for the common ones, their out= forms ({@code add.out}), with
 * ATen's broadcasting, type promotion (computing in the result dtype) and errors. Each op is a plan
 * (which engine op, in which dtype, on which operands) that the meta function checks and the kernel
 * hands to {@link Pointwise}; one plan serves an op's functional, in-place and out= overloads.
 * addcmul, addcdiv and lerp are composites of these ({@link ComposedOps}).
 */
public final class PointwiseOps {
    private PointwiseOps() {}

    /** A binary op's computation: the engine op, the dtype it computes in, its operands (Tensor or Scalar), alpha. */
    private record Binary(BinaryOp op, DType dtype, Object left, Object right, Object alpha) {}

    /**
     * A unary op's computation: the engine op, its dtype and its two scalar parameters (or null).
     * {@code keepsDtype}: the out op wants an out of exactly this dtype (ATen's {@code unary_op}
     * config, e.g. neg, abs); ops that always give a floating result (exp, sqrt, …) cast into any
     * out their result can be cast to.
     */
    private record Unary(UnaryOp op, DType dtype, Object lo, Object hi, boolean keepsDtype) {
        Unary(UnaryOp op, DType dtype, Object lo, Object hi) { this(op, dtype, lo, hi, true); }
    }

    // ------------------------------------------------------------------ arithmetic

    public static final OpOverload ADD_TENSOR = binary("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", PointwiseOps::add, g -> new Object[] {g.grad(), g.scaled(g.grad(), g.value(2))});
    public static final OpOverload ADD_SCALAR = binary("add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", PointwiseOps::add, g -> new Object[] {g.grad()});
    public static final OpOverload SUB_TENSOR = binary("sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", PointwiseOps::sub, g -> new Object[] {g.grad(), g.neg(g.scaled(g.grad(), g.value(2)))});
    public static final OpOverload SUB_SCALAR = binary("sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", PointwiseOps::sub, g -> new Object[] {g.grad()});
    public static final OpOverload RSUB_SCALAR = binary("rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", PointwiseOps::rsub, g -> new Object[] {g.neg(g.scaled(g.grad(), g.value(2)))});
    /**
     * {@code self + alpha * other} with alpha a 0-d tensor, rounded as add with that alpha: capture
     * turns {@code add(self, other, alpha=s)} (and sub, in place too) with a symbolic Java number
     * {@code s} into this op (a learning rate in {@code p.add_(g, -lr)} stays a graph input instead of
     * a constant that recompiles on each new value), so the compiled step computes eager's
     * {@code fma(alpha, other, self)}, not a multiply then an add, which rounds twice. Floating dtypes only.
     */
    public static final OpOverload ADD_SCALED_BY = addScaledBy("_add_scaled_by(Tensor self, Tensor other, Tensor alpha) -> Tensor");
    public static final OpOverload ADD_SCALED_BY_ = addScaledBy("_add_scaled_by_(Tensor(a!) self, Tensor other, Tensor alpha) -> Tensor(a!)");

    public static final OpOverload MUL_TENSOR = binary("mul.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOps::mul, g -> new Object[] {g.needs(0) ? g.mul(g.grad(), g.arg(1)) : null, g.needs(1) ? g.mul(g.grad(), g.arg(0)) : null});
    public static final OpOverload MUL_SCALAR = binary("mul.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOps::mul, g -> new Object[] {g.mul(g.grad(), g.value(1))});
    public static final OpOverload DIV_TENSOR = binary("div.Tensor(Tensor self, Tensor other) -> Tensor", a -> div(a, null), PointwiseOps::divBackward);
    public static final OpOverload DIV_SCALAR = binary("div.Scalar(Tensor self, Scalar other) -> Tensor", a -> div(a, null), g -> new Object[] {g.div(g.grad(), g.value(1))});
    public static final OpOverload DIV_TENSOR_MODE = binary("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor", a -> div(a, optStr(a, 2)), g -> g.value(2) == null ? divBackward(g) : Derivative.ZERO.apply(g));
    public static final OpOverload DIV_SCALAR_MODE = binary("div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor", a -> div(a, optStr(a, 2)), g -> g.value(2) == null ? new Object[] {g.div(g.grad(), g.value(1))} : Derivative.ZERO.apply(g));
    public static final OpOverload FLOOR_DIVIDE = binary("floor_divide(Tensor self, Tensor other) -> Tensor", a -> div(a, "floor"), Derivative.ZERO);
    public static final OpOverload FLOOR_DIVIDE_SCALAR = binary("floor_divide.Scalar(Tensor self, Scalar other) -> Tensor", a -> div(a, "floor"), Derivative.ZERO);
    public static final OpOverload REMAINDER_TENSOR = binary("remainder.Tensor(Tensor self, Tensor other) -> Tensor", a -> modulo(a, REMAINDER), g -> new Object[] {g.grad(), g.needs(1) ? g.neg(g.mul(g.grad(), g.call(PointwiseOps.DIV_TENSOR_MODE, g.arg(0), g.arg(1), "floor"))) : null});
    public static final OpOverload REMAINDER_SCALAR = binary("remainder.Scalar(Tensor self, Scalar other) -> Tensor", a -> modulo(a, REMAINDER), g -> new Object[] {g.grad()});
    // other: −grad · floor(self / other), self as a 0-d tensor of the result's dtype
    public static final OpOverload REMAINDER_SCALAR_TENSOR = binary("remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor", a -> modulo(a, REMAINDER),
            g -> new Object[] {null, g.neg(g.mul(g.grad(), g.call(PointwiseOps.DIV_TENSOR_MODE,
                    g.call(CreationOps.FULL, new int[0], g.value(0), g.resultMeta().dtype()), g.arg(1), "floor")))});
    public static final OpOverload FMOD_TENSOR = binary("fmod.Tensor(Tensor self, Tensor other) -> Tensor", a -> modulo(a, FMOD), g -> new Object[] {g.grad(), g.needs(1) ? g.neg(g.mul(g.grad(), g.call(PointwiseOps.DIV_TENSOR_MODE, g.arg(0), g.arg(1), "trunc"))) : null});
    public static final OpOverload FMOD_SCALAR = binary("fmod.Scalar(Tensor self, Scalar other) -> Tensor", a -> modulo(a, FMOD), g -> new Object[] {g.grad()});
    public static final OpOverload POW_TENSOR_TENSOR = binary("pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", PointwiseOps::pow, PointwiseOps::powBackward);
    public static final OpOverload MAXIMUM = binary("maximum(Tensor self, Tensor other) -> Tensor", a -> promoted(a, MAX), g -> extremumBackward(g, PointwiseOps.GT_TENSOR));
    public static final OpOverload MINIMUM = binary("minimum(Tensor self, Tensor other) -> Tensor", a -> promoted(a, MIN), g -> extremumBackward(g, PointwiseOps.LT_TENSOR));

    public static final OpOverload POW_TENSOR_SCALAR = OpOverload.define("pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor")
            .tags(Tag.POINTWISE)
            .meta(a -> TensorMeta.contiguous(powScalarType(a), a.tensor(0).shape()))
            .kernel((a, m) -> {
                Tensor out = Tensor.allocate((TensorMeta) m), self = a.tensor(0);
                Object e = a.scalar(1);
                double ev = toDouble(e);
                DType d = out.dtype();
                if (ev == 0) Copy.fill(out, 1L);
                else if (ev == 1) Copy.copy(self, out);
                else if (d.isFloatingPoint()) Pointwise.unary(floatPowOp(ev), d, out, self, e, null);
                else Pointwise.unary(UnaryOp.POW, d, out, self, e, null);
                return out;
            })
            .derivative(PointwiseOps::powScalarBackward)
            .register();

    // ------------------------------------------------------------------ unary

    public static final OpOverload NEG = unary("neg(Tensor self) -> Tensor", PointwiseOps::neg, g -> new Object[] {g.neg(g.grad())});
    public static final OpOverload ABS = unary("abs(Tensor self) -> Tensor", PointwiseOps::abs, g -> new Object[] {g.mul(g.grad(), g.sign(g.arg(0)))});
    public static final OpOverload EXP = unary("exp(Tensor self) -> Tensor", a -> floating(a, UnaryOp.EXP), g -> new Object[] {g.mul(g.grad(), g.result())});
    public static final OpOverload LOG = unary("log(Tensor self) -> Tensor", a -> floating(a, UnaryOp.LOG), g -> new Object[] {g.div(g.grad(), g.arg(0))});
    public static final OpOverload LOG1P = unary("log1p(Tensor self) -> Tensor", a -> floating(a, UnaryOp.LOG1P), g -> new Object[] {g.div(g.grad(), g.add(g.arg(0), 1.0))});
    public static final OpOverload SQRT = unary("sqrt(Tensor self) -> Tensor", a -> floating(a, UnaryOp.SQRT), g -> new Object[] {g.div(g.grad(), g.mul(g.result(), 2.0))});
    public static final OpOverload RSQRT = unary("rsqrt(Tensor self) -> Tensor", a -> floating(a, UnaryOp.RSQRT), g -> new Object[] {g.mul(g.grad(), g.mul(g.call(PointwiseOps.POW_TENSOR_SCALAR, g.result(), 3L), -0.5))});
    public static final OpOverload SIN = unary("sin(Tensor self) -> Tensor", a -> floating(a, UnaryOp.SIN), g -> new Object[] {g.mul(g.grad(), g.call(PointwiseOps.COS, g.arg(0)))});
    public static final OpOverload COS = unary("cos(Tensor self) -> Tensor", a -> floating(a, UnaryOp.COS), g -> new Object[] {g.mul(g.grad(), g.neg(g.call(PointwiseOps.SIN, g.arg(0))))});
    public static final OpOverload TANH = unary("tanh(Tensor self) -> Tensor", a -> floating(a, UnaryOp.TANH), g -> new Object[] {g.mul(g.grad(), g.oneMinus(g.mul(g.result(), g.result())))});
    /** The error function; d/dx erf(x) = 2/√π · e^(−x²). */
    public static final OpOverload ERF = unary("erf(Tensor self) -> Tensor", a -> floating(a, UnaryOp.ERF),
            g -> new Object[] {g.mul(g.grad(), g.mul(g.call(PointwiseOps.EXP, g.neg(g.mul(g.arg(0), g.arg(0)))), 2 / Math.sqrt(Math.PI)))});
    /** Integral values: integers come back unchanged (ATen clones them), floats round; nothing to differentiate (ATen's zero gradient). */
    public static final OpOverload FLOOR = unary("floor(Tensor self) -> Tensor", a -> rounding(a, UnaryOp.FLOOR, "floor_vml_cpu"), Derivative.ZERO);
    public static final OpOverload CEIL = unary("ceil(Tensor self) -> Tensor", a -> rounding(a, UnaryOp.CEIL, "ceil_vml_cpu"), Derivative.ZERO);
    /** Half to even (C's nearbyint), as ATen: 0.5 → 0, 1.5 → 2, 2.5 → 2. */
    public static final OpOverload ROUND = unary("round(Tensor self) -> Tensor", a -> rounding(a, UnaryOp.ROUND, "round_vml_cpu"), Derivative.ZERO);
    /**
     * Rounded to {@code decimals} places, as ATen's kernel: scaled by 10^|decimals| (in the
     * tensor's dtype), rounded half to even, scaled back.
     */
    public static final OpOverload ROUND_DECIMALS = composedPointwise("round.decimals(Tensor self, *, int decimals) -> Tensor",
            a -> TensorMeta.contiguous(a.lng(1) == 0 ? roundingDtype(a, "round_vml_cpu") : floatingOnlyDtype(a, "round_cpu"), a.tensor(0).shape()),
            PointwiseOps::roundDecimals)
            .derivative(Derivative.ZERO).register();
    public static final OpOverload TRUNC = unary("trunc(Tensor self) -> Tensor", a -> rounding(a, UnaryOp.TRUNC, "trunc_vml_cpu"), Derivative.ZERO);
    /** {@code x − trunc(x)}, the sign of x kept (ATen's frac); its gradient passes through. */
    public static final OpOverload FRAC = composedPointwise("frac(Tensor self) -> Tensor",
            a -> TensorMeta.contiguous(floatingOnlyDtype(a, "frac_cpu"), a.tensor(0).shape()),
            (e, a) -> e.call(PointwiseOps.SUB_TENSOR, a[0], e.call(PointwiseOps.TRUNC, a[0])))
            .derivative(g -> new Object[] {g.grad()}).register();
    /**
     * −1, 0 or 1 in the input's dtype: {@code (x > 0) − (x < 0)}, so NaN and −0.0 give 0 (ATen's
     * sign); a bool comes back unchanged. Its gradient is zero.
     */
    public static final OpOverload SIGN = composedPointwise("sign(Tensor self) -> Tensor",
            a -> TensorMeta.contiguous(a.tensor(0).dtype(), a.tensor(0).shape()), PointwiseOps::sign)
            .derivative(Derivative.ZERO).register();
    public static final OpOverload RECIPROCAL = unary("reciprocal(Tensor self) -> Tensor", a -> floating(a, UnaryOp.RECIPROCAL),
            g -> new Object[] {g.neg(g.mul(g.grad(), g.mul(g.result(), g.result())))});
    /** {@code pow(x, 2)}, as ATen defines it (so a bool squares to int64, like pow). */
    public static final OpOverload SQUARE = composedPointwise("square(Tensor self) -> Tensor",
            a -> PointwiseOps.POW_TENSOR_SCALAR.inferMeta(PointwiseOps.POW_TENSOR_SCALAR.bind(a.tensor(0), 2L)),
            (e, a) -> e.call(PointwiseOps.POW_TENSOR_SCALAR, a[0], 2L)).register();
    public static final OpOverload TAN = unary("tan(Tensor self) -> Tensor", a -> floating(a, UnaryOp.TAN),
            g -> new Object[] {g.mul(g.grad(), g.add(g.mul(g.result(), g.result()), 1.0))});
    public static final OpOverload ATAN = unary("atan(Tensor self) -> Tensor", a -> floating(a, UnaryOp.ATAN),
            g -> new Object[] {g.div(g.grad(), g.add(g.mul(g.arg(0), g.arg(0)), 1.0))});
    /** d/dx asin x = 1/√(1 − x²); acos is its negative. */
    public static final OpOverload ASIN = unary("asin(Tensor self) -> Tensor", a -> floating(a, UnaryOp.ASIN),
            g -> new Object[] {g.mul(g.grad(), g.call(PointwiseOps.RSQRT, g.oneMinus(g.mul(g.arg(0), g.arg(0)))))});
    public static final OpOverload ACOS = unary("acos(Tensor self) -> Tensor", a -> floating(a, UnaryOp.ACOS),
            g -> new Object[] {g.neg(g.mul(g.grad(), g.call(PointwiseOps.RSQRT, g.oneMinus(g.mul(g.arg(0), g.arg(0))))))});
    public static final OpOverload SINH = unary("sinh(Tensor self) -> Tensor", a -> floating(a, UnaryOp.SINH),
            g -> new Object[] {g.mul(g.grad(), g.call(PointwiseOps.COSH, g.arg(0)))});
    public static final OpOverload COSH = unary("cosh(Tensor self) -> Tensor", a -> floating(a, UnaryOp.COSH),
            g -> new Object[] {g.mul(g.grad(), g.call(PointwiseOps.SINH, g.arg(0)))});
    /** derivatives.yaml: asinh' = 1/√(x² + 1), acosh' = 1/√(x² − 1), atanh' = 1/(1 − x²). */
    public static final OpOverload ASINH = unary("asinh(Tensor self) -> Tensor", a -> floating(a, UnaryOp.ASINH),
            g -> new Object[] {g.mul(g.grad(), g.call(PointwiseOps.RSQRT, g.add(g.mul(g.arg(0), g.arg(0)), 1.0)))});
    public static final OpOverload ACOSH = unary("acosh(Tensor self) -> Tensor", a -> floating(a, UnaryOp.ACOSH),
            g -> new Object[] {g.mul(g.grad(), g.call(PointwiseOps.RSQRT, g.sub(g.mul(g.arg(0), g.arg(0)), 1.0)))});
    public static final OpOverload ATANH = unary("atanh(Tensor self) -> Tensor", a -> floating(a, UnaryOp.ATANH),
            g -> new Object[] {g.div(g.grad(), g.oneMinus(g.mul(g.arg(0), g.arg(0))))});
    public static final OpOverload EXPM1 = unary("expm1(Tensor self) -> Tensor", a -> floating(a, UnaryOp.EXPM1),
            g -> new Object[] {g.mul(g.grad(), g.add(g.result(), 1.0))});
    public static final OpOverload EXP2 = unary("exp2(Tensor self) -> Tensor", a -> floating(a, UnaryOp.EXP2),
            g -> new Object[] {g.mul(g.grad(), g.mul(g.result(), Math.log(2)))});
    public static final OpOverload LOG2 = unary("log2(Tensor self) -> Tensor", a -> floating(a, UnaryOp.LOG2),
            g -> new Object[] {g.div(g.grad(), g.mul(g.arg(0), Math.log(2)))});
    public static final OpOverload LOG10 = unary("log10(Tensor self) -> Tensor", a -> floating(a, UnaryOp.LOG10),
            g -> new Object[] {g.div(g.grad(), g.mul(g.arg(0), Math.log(10)))});
    /** The angle of (other, self), in floating point; ATen's gradient: (grad·other, −grad·self) / (self² + other²). */
    public static final OpOverload ATAN2 = binary("atan2(Tensor self, Tensor other) -> Tensor",
            a -> { Binary p = promoted(a, BinaryOp.ATAN2); return new Binary(p.op(), TypePromotion.toFloating(p.dtype()), p.left(), p.right(), null); },
            g -> {
                Object recip = g.call(PointwiseOps.RECIPROCAL, g.add(g.mul(g.arg(0), g.arg(0)), g.mul(g.arg(1), g.arg(1))));
                return new Object[] {g.needs(0) ? g.mul(g.mul(g.grad(), g.arg(1)), recip) : null,
                        g.needs(1) ? g.mul(g.mul(g.grad(), g.neg(g.arg(0))), recip) : null};
            });

    // ------------------------------------------------------------------ floating-point classification

    /** {@code x != x}: true at NaN only. */
    public static final OpOverload ISNAN = composedPointwise("isnan(Tensor self) -> Tensor", PointwiseOps::boolLike,
            (e, a) -> e.call(PointwiseOps.NE_TENSOR, a[0], a[0])).register();
    /** {@code |x| == inf} for floats; integers and bools are never infinite. */
    public static final OpOverload ISINF = composedPointwise("isinf(Tensor self) -> Tensor", PointwiseOps::boolLike,
            (e, a) -> e.meta(a[0]).dtype().isFloatingPoint() ? e.call(PointwiseOps.EQ_SCALAR, e.call(PointwiseOps.ABS, a[0]), Double.POSITIVE_INFINITY)
                    : e.call(PointwiseOps.NE_TENSOR, a[0], a[0])).register();   // false everywhere, in the input's shape
    public static final OpOverload ISPOSINF = composedPointwise("isposinf(Tensor self) -> Tensor", PointwiseOps::boolLike,
            (e, a) -> e.call(PointwiseOps.EQ_SCALAR, a[0], Double.POSITIVE_INFINITY)).register();
    public static final OpOverload ISNEGINF = composedPointwise("isneginf(Tensor self) -> Tensor", PointwiseOps::boolLike,
            (e, a) -> e.call(PointwiseOps.EQ_SCALAR, a[0], Double.NEGATIVE_INFINITY)).register();
    /** Neither NaN nor infinite: {@code (x == x) & (|x| != inf)}; integers and bools always are. */
    public static final OpOverload ISFINITE = composedPointwise("isfinite(Tensor self) -> Tensor", PointwiseOps::boolLike,
            (e, a) -> !e.meta(a[0]).dtype().isFloatingPoint() ? e.call(PointwiseOps.EQ_TENSOR, a[0], a[0])
                    : e.call(PointwiseOps.LOGICAL_AND, e.call(PointwiseOps.EQ_TENSOR, a[0], a[0]), e.call(PointwiseOps.NE_SCALAR, e.call(PointwiseOps.ABS, a[0]), Double.POSITIVE_INFINITY))).register();
    /**
     * NaN, +inf and −inf replaced by {@code nan} (0 by default), {@code posinf} and {@code neginf}
     * (by default the dtype's largest and lowest finite values); integers and bools come back unchanged.
     * The gradient flows where the input was finite (through the decomposition's wheres).
     */
    public static final OpOverload NAN_TO_NUM = composedPointwise("nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
            a -> TensorMeta.contiguous(a.tensor(0).dtype(), a.tensor(0).shape()), PointwiseOps::nanToNum).register();
    /** {@code bool(self) != bool(other)}, broadcast. */
    public static final OpOverload LOGICAL_XOR = composedPointwise("logical_xor(Tensor self, Tensor other) -> Tensor",
            a -> TensorMeta.contiguous(BOOL, Shapes.broadcast(name(a), a.tensor(0).shape(), a.tensor(1).shape())),
            (e, a) -> e.call(PointwiseOps.NE_TENSOR, e.call(PointwiseOps.NE_SCALAR, a[0], 0L), e.call(PointwiseOps.NE_SCALAR, a[1], 0L))).register();
    public static final OpOverload SIGMOID = unary("sigmoid(Tensor self) -> Tensor", a -> floating(a, UnaryOp.SIGMOID), g -> new Object[] {g.mul(g.grad(), g.mul(g.result(), g.oneMinus(g.result())))});
    public static final OpOverload RELU = unary("relu(Tensor self) -> Tensor", PointwiseOps::relu, g -> new Object[] {g.where(g.call(PointwiseOps.GT_SCALAR, g.result(), 0L), g.grad(), 0.0)});
    public static final OpOverload GELU = unary("gelu(Tensor self, *, str approximate='none') -> Tensor", PointwiseOps::gelu,
            g -> new Object[] {g.call(PointwiseOps.GELU_BACKWARD, g.grad(), g.arg(0), g.value(1))});
    /** GELU's gradient: {@code grad_output * gelu'(self)}, broadcast together, in the erf form or the tanh approximation. */
    public static final OpOverload GELU_BACKWARD = binary("gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> Tensor", PointwiseOps::geluBackward,
            PointwiseOps::geluDoubleBackward);
    public static final OpOverload SILU = unaryOp("silu(Tensor self) -> Tensor", a -> floatingOnly(a, UnaryOp.SILU, "silu_cpu"))
            .decomposition((e, a) -> e.call(PointwiseOps.MUL_TENSOR, a[0], e.call(PointwiseOps.SIGMOID, a[0])))
            // d/dx x·σ(x) = σ(x)·(1 + x·(1 − σ(x)))
            .derivative(g -> {
                Object sig = g.call(SIGMOID, g.arg(0));
                return new Object[] {g.mul(g.grad(), g.mul(sig, g.add(g.mul(g.arg(0), g.oneMinus(sig)), 1.0)))};
            })
            .register();
    public static final OpOverload CLAMP = unary("clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", a -> clamp(a, false), PointwiseOps::clampBackward);

    public static final OpOverload CLAMP_TENSOR = clampTensor("clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", PointwiseOps::clampTensorBackward);

    // ------------------------------------------------------------------ composites: addcmul, addcdiv, lerp

    /** {@code self + value * tensor1 * tensor2} in ATen's order, in the three tensors' promoted dtype (value cast to it). */
    public static final OpOverload ADDCMUL = ComposedOps.define("addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
            a -> checkAddc(a, false), (e, a) -> addc(e, a, PointwiseOps.MUL_TENSOR));

    /** {@code self + value * tensor1 / tensor2}; integer tensors are refused, as ATen does (it once divided them with truncation). */
    public static final OpOverload ADDCDIV = ComposedOps.define("addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
            a -> checkAddc(a, true), (e, a) -> addc(e, a, PointwiseOps.DIV_TENSOR));

    /**
     * {@code self + weight * (end - self)} where |weight| < 0.5, else {@code end - (end - self) * (1 - weight)}:
     * ATen's two branches, each exact at its end of the interval (weight 0 gives self, weight 1 gives end).
     */
    public static final OpOverload LERP_SCALAR = ComposedOps.define("lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor",
            a -> checkLerp(a, "lerp_kernel_scalar"), PointwiseOps::lerpScalar);

    /** lerp with a weight per element (broadcast with self and end), the branch chosen per element. */
    public static final OpOverload LERP_TENSOR = ComposedOps.define("lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor",
            a -> checkLerp(a, "lerp_kernel_tensor"), (e, a) -> {
                Object self = a[0], end = a[1], weight = a[2];
                Object diff = e.call(PointwiseOps.SUB_TENSOR, end, self);
                Object small = e.call(PointwiseOps.LT_SCALAR, e.call(PointwiseOps.ABS, weight), 0.5);
                Object fromSelf = e.call(PointwiseOps.ADD_TENSOR, self, e.call(PointwiseOps.MUL_TENSOR, weight, diff));
                Object fromEnd = e.call(PointwiseOps.SUB_TENSOR, end, e.call(PointwiseOps.MUL_TENSOR, diff, e.call(PointwiseOps.RSUB_SCALAR, weight, 1L)));
                return e.call(PointwiseOps.WHERE_SELF, small, fromSelf, fromEnd);
            });

    // ------------------------------------------------------------------ selection

    public static final OpOverload WHERE_SELF = where("where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", g -> new Object[] {null, g.needs(1) ? g.where(g.arg(0), g.grad(), 0.0) : null, g.needs(2) ? g.where(g.arg(0), 0.0, g.grad()) : null});
    public static final OpOverload WHERE_SCALAR_OTHER = where("where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor", g -> new Object[] {null, g.where(g.arg(0), g.grad(), 0.0)});
    public static final OpOverload WHERE_SCALAR_SELF = where("where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor", g -> new Object[] {null, null, g.where(g.arg(0), 0.0, g.grad())});
    public static final OpOverload WHERE_SCALAR = where("where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor", null);
    public static final OpOverload MASKED_FILL_SCALAR = maskedFill("masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor", g -> new Object[] {g.where(g.arg(1), 0.0, g.grad())});
    public static final OpOverload MASKED_FILL_TENSOR = maskedFill("masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor", g -> new Object[] {g.needs(0) ? g.where(g.arg(1), 0.0, g.grad()) : null, null, g.needs(2) ? g.sumDims(g.where(g.arg(1), g.grad(), 0.0), null, false) : null});

    // ------------------------------------------------------------------ comparison and logic

    public static final OpOverload EQ_TENSOR = compare("eq.Tensor(Tensor self, Tensor other) -> Tensor", BinaryOp.EQ);
    public static final OpOverload EQ_SCALAR = compare("eq.Scalar(Tensor self, Scalar other) -> Tensor", BinaryOp.EQ);
    public static final OpOverload NE_TENSOR = compare("ne.Tensor(Tensor self, Tensor other) -> Tensor", BinaryOp.NE);
    public static final OpOverload NE_SCALAR = compare("ne.Scalar(Tensor self, Scalar other) -> Tensor", BinaryOp.NE);
    public static final OpOverload LT_TENSOR = compare("lt.Tensor(Tensor self, Tensor other) -> Tensor", BinaryOp.LT);
    public static final OpOverload LT_SCALAR = compare("lt.Scalar(Tensor self, Scalar other) -> Tensor", BinaryOp.LT);
    public static final OpOverload LE_TENSOR = compare("le.Tensor(Tensor self, Tensor other) -> Tensor", BinaryOp.LE);
    public static final OpOverload LE_SCALAR = compare("le.Scalar(Tensor self, Scalar other) -> Tensor", BinaryOp.LE);
    public static final OpOverload GT_TENSOR = compare("gt.Tensor(Tensor self, Tensor other) -> Tensor", BinaryOp.GT);
    public static final OpOverload GT_SCALAR = compare("gt.Scalar(Tensor self, Scalar other) -> Tensor", BinaryOp.GT);
    public static final OpOverload GE_TENSOR = compare("ge.Tensor(Tensor self, Tensor other) -> Tensor", BinaryOp.GE);
    public static final OpOverload GE_SCALAR = compare("ge.Scalar(Tensor self, Scalar other) -> Tensor", BinaryOp.GE);
    public static final OpOverload LOGICAL_AND = logical("logical_and(Tensor self, Tensor other) -> Tensor", BinaryOp.AND);
    public static final OpOverload LOGICAL_OR = logical("logical_or(Tensor self, Tensor other) -> Tensor", BinaryOp.OR);
    public static final OpOverload LOGICAL_NOT = logicalNot("logical_not(Tensor self) -> Tensor");
    /** Bitwise on integers and bools (for bools, the logical op), in the promoted dtype; floats are refused, as ATen; not differentiable. */
    public static final OpOverload BITWISE_AND_TENSOR = binary("bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor", a -> bitwise(a, BinaryOp.BITWISE_AND, "bitwise_and_cpu"));
    public static final OpOverload BITWISE_AND_SCALAR = binary("bitwise_and.Scalar(Tensor self, Scalar other) -> Tensor", a -> bitwise(a, BinaryOp.BITWISE_AND, "bitwise_and_cpu"));
    public static final OpOverload BITWISE_OR_TENSOR = binary("bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor", a -> bitwise(a, BinaryOp.BITWISE_OR, "bitwise_or_cpu"));
    public static final OpOverload BITWISE_OR_SCALAR = binary("bitwise_or.Scalar(Tensor self, Scalar other) -> Tensor", a -> bitwise(a, BinaryOp.BITWISE_OR, "bitwise_or_cpu"));
    public static final OpOverload BITWISE_XOR_TENSOR = binary("bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor", a -> bitwise(a, BinaryOp.BITWISE_XOR, "bitwise_xor_cpu"));
    public static final OpOverload BITWISE_XOR_SCALAR = binary("bitwise_xor.Scalar(Tensor self, Scalar other) -> Tensor", a -> bitwise(a, BinaryOp.BITWISE_XOR, "bitwise_xor_cpu"));
    /** {@code ~x} for integers, logical not for bools; floats are refused. */
    public static final OpOverload BITWISE_NOT = unary("bitwise_not(Tensor self) -> Tensor", PointwiseOps::bitwiseNot);

    // ------------------------------------------------------------------ dropout

    /** Randomly zeroes elements with probability p and scales the rest by 1/(1-p); the identity when not training. */
    public static final OpOverload DROPOUT = OpOverload.define("dropout(Tensor input, float p, bool train) -> Tensor")
            .tags(Tag.POINTWISE, Tag.NONDETERMINISTIC)
            .meta(a -> {
                Tensor in = a.tensor(0);
                double p = a.dbl(1);
                String op = name(a);
                if (!(p >= 0 && p <= 1)) throw new IllegalArgumentException(op + ": dropout probability has to be between 0 and 1, but got " + p);
                if (dropsSome(a) && p < 1 && !in.dtype().isFloatingPoint()) {
                    throw new IllegalArgumentException(op + ": result type " + Defaults.dtype().scalarTypeName() + " can't be cast to the desired output type " + in.dtype().scalarTypeName());
                }
                return TensorMeta.contiguous(in.dtype(), in.shape());
            })
            .kernel((a, m) -> {
                Tensor out = Tensor.allocate((TensorMeta) m), in = a.tensor(0);
                double p = a.dbl(1);
                if (!dropsSome(a)) Copy.copy(in, out);
                else if (p == 1) Pointwise.binary(MUL, out.dtype(), out, in, Pointwise.scalar(0L, out.dtype()), null);   // x * 0, as ATen (NaN stays NaN)
                else Pointwise.dropout(out, in, p, Generator.global().split());
                return out;
            })
            // recorded for autograd as native_dropout, which keeps the mask: the same draws from the
            // same generator, so a dropout under grad drops what it would have dropped without
            .decomposition((e, a) -> {
                TensorMeta in = e.meta(a[0]);
                double p = ((Number) a[1]).doubleValue();
                if (!(Boolean) a[2] || p == 0 || in.numel() == 0) return e.call(ShapeOps.CLONE, a[0]);
                if (!in.dtype().isFloatingPoint()) return null;
                return ((java.util.List<?>) e.call(PointwiseOps.NATIVE_DROPOUT, a[0], p, true)).getFirst();
            })
            .register();

    /**
     * Dropout that also returns its bool keep mask (ATen's native_dropout): in training
     * (train true or None) the output is dropout's, draw for draw; otherwise the input's copy and an all-true mask.
     */
    public static final OpOverload NATIVE_DROPOUT = OpOverload.define("native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)")
            .tags(Tag.POINTWISE, Tag.NONDETERMINISTIC)
            .meta(a -> {
                Tensor in = a.tensor(0);
                double p = a.dbl(1);
                String op = name(a);
                if (!(p >= 0 && p <= 1)) throw new IllegalArgumentException(op + ": dropout probability has to be between 0 and 1, but got " + p);
                if (nativeDropsSome(a) && !in.dtype().isFloatingPoint()) {
                    throw new IllegalArgumentException(op + ": \"native_dropout\" not implemented for '" + in.dtype().scalarTypeName() + "' (the input must be floating point in training)");
                }
                return java.util.List.of(TensorMeta.contiguous(in.dtype(), in.shape()), TensorMeta.contiguous(BOOL, in.shape()));
            })
            .kernel((a, m) -> {
                java.util.List<?> metas = (java.util.List<?>) m;
                Tensor out = Tensor.allocate((TensorMeta) metas.get(0)), mask = Tensor.allocate((TensorMeta) metas.get(1)), in = a.tensor(0);
                double p = a.dbl(1);
                if (!nativeDropsSome(a)) {
                    Copy.copy(in, out);
                    Copy.fill(mask, true);
                } else if (p == 1) {
                    Pointwise.binary(MUL, out.dtype(), out, in, Pointwise.scalar(0L, out.dtype()), null);   // mask all false
                } else {
                    Pointwise.dropout(out, mask, in, p, Generator.global().split());
                }
                return java.util.List.of(out, mask);
            })
            .derivative(g -> {
                boolean train = g.value(2) == null || (Boolean) g.value(2);
                if (!train) return new Object[] {g.grad(0)};
                double p = g.doubleValue(1);
                return new Object[] {g.call(PointwiseOps.NATIVE_DROPOUT_BACKWARD, g.grad(0), g.result(1), p == 1 ? 0.0 : 1 / (1 - p))};
            })
            .register();

    /** native_dropout's gradient: {@code grad_output · mask · scale}. */
    public static final OpOverload NATIVE_DROPOUT_BACKWARD = OpOverload.define("native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor")
            .tags(Tag.POINTWISE)
            .meta(a -> {
                Tensor grad = a.tensor(0), mask = a.tensor(1);
                String op = name(a);
                if (mask.dtype() != BOOL) throw new IllegalArgumentException(op + ": Mask should be Bool Scalar Type" + " (got " + mask.dtype().scalarTypeName() + ")");
                if (!grad.dtype().isFloatingPoint()) throw notImplemented(op, "masked_scale", grad.dtype());
                return TensorMeta.contiguous(grad.dtype(), Shapes.broadcast(op, grad.shape(), mask.shape()));
            })
            .kernel((a, m) -> {
                Tensor out = Tensor.allocate((TensorMeta) m);
                DType d = out.dtype();
                Pointwise.binary(MUL, d, out, a.tensor(0), a.tensor(1), null);
                Pointwise.binary(MUL, d, out, out, Pointwise.scalar(a.dbl(2), d), null);
                return out;
            })
            .derivative(g -> new Object[] {g.call(PointwiseOps.NATIVE_DROPOUT_BACKWARD, g.grad(), g.arg(1), g.value(2))})
            .register();

    // ------------------------------------------------------------------ in place

    public static final OpOverload ADD__TENSOR = binary("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", PointwiseOps::add);
    public static final OpOverload ADD__SCALAR = binary("add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)", PointwiseOps::add);
    public static final OpOverload SUB__TENSOR = binary("sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", PointwiseOps::sub);
    public static final OpOverload SUB__SCALAR = binary("sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)", PointwiseOps::sub);
    public static final OpOverload MUL__TENSOR = binary("mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", PointwiseOps::mul);
    public static final OpOverload MUL__SCALAR = binary("mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", PointwiseOps::mul);
    public static final OpOverload DIV__TENSOR = binary("div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", a -> div(a, null));
    public static final OpOverload DIV__SCALAR = binary("div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", a -> div(a, null));
    public static final OpOverload FLOOR_DIVIDE__TENSOR = binary("floor_divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", a -> div(a, "floor"));
    public static final OpOverload FLOOR_DIVIDE__SCALAR = binary("floor_divide_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", a -> div(a, "floor"));
    public static final OpOverload REMAINDER__TENSOR = binary("remainder_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", a -> modulo(a, REMAINDER));
    public static final OpOverload REMAINDER__SCALAR = binary("remainder_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", a -> modulo(a, REMAINDER));
    public static final OpOverload FMOD__TENSOR = binary("fmod_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", a -> modulo(a, FMOD));
    public static final OpOverload FMOD__SCALAR = binary("fmod_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", a -> modulo(a, FMOD));
    public static final OpOverload POW__TENSOR = binary("pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)", PointwiseOps::pow);
    /** pow.Tensor_Scalar's kernel (its special cases for exponents 0 and 1 included), its result written into self. */
    public static final OpOverload POW__SCALAR = OpOverload.define("pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)")
            .tags(Tag.POINTWISE, Tag.INPLACE)
            .meta(a -> {
                TensorMeta result = (TensorMeta) POW_TENSOR_SCALAR.inferMeta(POW_TENSOR_SCALAR.bind(a.toArray()));
                return checkInplace(name(a), a.tensor(0), result.dtype(), result.shape());
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0);
                Args functional = POW_TENSOR_SCALAR.bind(a.toArray());
                Copy.copy((Tensor) POW_TENSOR_SCALAR.runKernel(functional, POW_TENSOR_SCALAR.inferMeta(functional)), self);
                return written(self);
            })
            .register();
    public static final OpOverload NEG_ = unary("neg_(Tensor(a!) self) -> Tensor(a!)", PointwiseOps::neg);
    public static final OpOverload ABS_ = unary("abs_(Tensor(a!) self) -> Tensor(a!)", PointwiseOps::abs);
    public static final OpOverload EXP_ = unary("exp_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.EXP));
    public static final OpOverload FLOOR_ = unary("floor_(Tensor(a!) self) -> Tensor(a!)", a -> rounding(a, UnaryOp.FLOOR, "floor_vml_cpu"));
    public static final OpOverload CEIL_ = unary("ceil_(Tensor(a!) self) -> Tensor(a!)", a -> rounding(a, UnaryOp.CEIL, "ceil_vml_cpu"));
    public static final OpOverload ROUND_ = unary("round_(Tensor(a!) self) -> Tensor(a!)", a -> rounding(a, UnaryOp.ROUND, "round_vml_cpu"));
    public static final OpOverload TRUNC_ = unary("trunc_(Tensor(a!) self) -> Tensor(a!)", a -> rounding(a, UnaryOp.TRUNC, "trunc_vml_cpu"));
    public static final OpOverload RECIPROCAL_ = unary("reciprocal_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.RECIPROCAL));
    /** sign keeps the dtype, so its result always fits self. */
    public static final OpOverload SIGN_ = composedInPlace("sign_(Tensor(a!) self) -> Tensor(a!)", SIGN);
    public static final OpOverload SQRT_ = unary("sqrt_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.SQRT));
    public static final OpOverload TANH_ = unary("tanh_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.TANH));
    public static final OpOverload SIGMOID_ = unary("sigmoid_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.SIGMOID));
    public static final OpOverload RELU_ = unary("relu_(Tensor(a!) self) -> Tensor(a!)", PointwiseOps::relu);
    public static final OpOverload CLAMP_ = unary("clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)", a -> clamp(a, true));
    public static final OpOverload CLAMP__TENSOR = clampTensor("clamp_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)");
    // the in-place forms of the remaining unary math ops, as ATen has them: the same plans, written into self
    // (a floating result into an integer self is refused, as ATen's "result type Float can't be cast to ... Long")
    public static final OpOverload LOG_ = unary("log_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.LOG));
    public static final OpOverload LOG1P_ = unary("log1p_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.LOG1P));
    public static final OpOverload LOG2_ = unary("log2_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.LOG2));
    public static final OpOverload LOG10_ = unary("log10_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.LOG10));
    public static final OpOverload EXP2_ = unary("exp2_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.EXP2));
    public static final OpOverload EXPM1_ = unary("expm1_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.EXPM1));
    public static final OpOverload RSQRT_ = unary("rsqrt_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.RSQRT));
    public static final OpOverload SIN_ = unary("sin_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.SIN));
    public static final OpOverload COS_ = unary("cos_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.COS));
    public static final OpOverload TAN_ = unary("tan_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.TAN));
    public static final OpOverload ASIN_ = unary("asin_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.ASIN));
    public static final OpOverload ACOS_ = unary("acos_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.ACOS));
    public static final OpOverload ATAN_ = unary("atan_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.ATAN));
    public static final OpOverload SINH_ = unary("sinh_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.SINH));
    public static final OpOverload COSH_ = unary("cosh_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.COSH));
    public static final OpOverload ASINH_ = unary("asinh_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.ASINH));
    public static final OpOverload ACOSH_ = unary("acosh_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.ACOSH));
    public static final OpOverload ATANH_ = unary("atanh_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.ATANH));
    public static final OpOverload ERF_ = unary("erf_(Tensor(a!) self) -> Tensor(a!)", a -> floating(a, UnaryOp.ERF));
    public static final OpOverload BITWISE_NOT_ = unary("bitwise_not_(Tensor(a!) self) -> Tensor(a!)", PointwiseOps::bitwiseNot);
    public static final OpOverload BITWISE_AND__TENSOR = binary("bitwise_and_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", a -> bitwise(a, BinaryOp.BITWISE_AND, "bitwise_and_cpu"));
    public static final OpOverload BITWISE_AND__SCALAR = binary("bitwise_and_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", a -> bitwise(a, BinaryOp.BITWISE_AND, "bitwise_and_cpu"));
    public static final OpOverload BITWISE_OR__TENSOR = binary("bitwise_or_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", a -> bitwise(a, BinaryOp.BITWISE_OR, "bitwise_or_cpu"));
    public static final OpOverload BITWISE_OR__SCALAR = binary("bitwise_or_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", a -> bitwise(a, BinaryOp.BITWISE_OR, "bitwise_or_cpu"));
    public static final OpOverload BITWISE_XOR__TENSOR = binary("bitwise_xor_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", a -> bitwise(a, BinaryOp.BITWISE_XOR, "bitwise_xor_cpu"));
    public static final OpOverload BITWISE_XOR__SCALAR = binary("bitwise_xor_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", a -> bitwise(a, BinaryOp.BITWISE_XOR, "bitwise_xor_cpu"));
    /** The composites' in-place forms: the decomposition computed, then copied into self. */
    public static final OpOverload SQUARE_ = composedInPlace("square_(Tensor(a!) self) -> Tensor(a!)", SQUARE);
    public static final OpOverload ADDCMUL_ = composedInPlace("addcmul_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)", ADDCMUL);
    public static final OpOverload ADDCDIV_ = composedInPlace("addcdiv_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)", ADDCDIV);
    public static final OpOverload LERP__SCALAR = composedInPlace("lerp_.Scalar(Tensor(a!) self, Tensor end, Scalar weight) -> Tensor(a!)", LERP_SCALAR);
    public static final OpOverload LERP__TENSOR = composedInPlace("lerp_.Tensor(Tensor(a!) self, Tensor end, Tensor weight) -> Tensor(a!)", LERP_TENSOR);

    public static final OpOverload FILL_SCALAR = OpOverload.define("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)")
            .tags(Tag.POINTWISE, Tag.INPLACE)
            .meta(a -> a.tensor(0).meta())
            .kernel((a, m) -> written(fill(a.tensor(0), a.scalar(1))))
            .register();

    /** A new tensor of {@code self}'s shape and dtype holding {@code value}: what functionalization makes of fill_. */
    public static final OpOverload FILL = OpOverload.define("fill.Scalar(Tensor self, Scalar value) -> Tensor")
            .tags(Tag.POINTWISE)
            .meta(a -> TensorMeta.contiguous(a.tensor(0).dtype(), a.tensor(0).shape()))
            .kernel((a, m) -> fill(Tensor.allocate((TensorMeta) m), a.scalar(1)))
            .derivative(Derivative.ZERO)
            .register();

    /** A new tensor of zeros of {@code self}'s shape and dtype: what functionalization makes of zero_. */
    public static final OpOverload ZERO = OpOverload.define("zero(Tensor self) -> Tensor")
            .tags(Tag.POINTWISE)
            .meta(a -> TensorMeta.contiguous(a.tensor(0).dtype(), a.tensor(0).shape()))
            .kernel((a, m) -> Tensor.allocate((TensorMeta) m))
            .derivative(Derivative.ZERO)
            .register();

    public static final OpOverload ZERO_ = OpOverload.define("zero_(Tensor(a!) self) -> Tensor(a!)")
            .tags(Tag.POINTWISE, Tag.INPLACE)
            .meta(a -> a.tensor(0).meta())
            .kernel((a, m) -> written(fill(a.tensor(0), 0L)))
            .register();

    public static final OpOverload MASKED_FILL__SCALAR = OpOverload.define("masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)")
            .tags(Tag.POINTWISE, Tag.INPLACE)
            .meta(a -> {
                Tensor self = a.tensor(0);
                checkMask(a);
                checkOutputShape(name(a), self, Shapes.broadcast(name(a), self.shape(), a.tensor(1).shape()));
                return self.meta();
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0);
                Pointwise.where(self, a.tensor(1), Pointwise.scalar(a.scalar(2), self.dtype()), self);
                return written(self);
            })
            .register();

    // ------------------------------------------------------------------ out= (the same plans, written into a given tensor)

    public static final OpOverload ADD_OUT = binary("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)", PointwiseOps::add);
    public static final OpOverload SUB_OUT = binary("sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)", PointwiseOps::sub);
    public static final OpOverload MUL_OUT = binary("mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", PointwiseOps::mul);
    public static final OpOverload DIV_OUT = binary("div.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", a -> div(a, null));
    public static final OpOverload DIV_OUT_MODE = binary("div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out) -> Tensor(a!)", a -> div(a, optStr(a, 2)));
    public static final OpOverload FLOOR_DIVIDE_OUT = binary("floor_divide.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", a -> div(a, "floor"));
    public static final OpOverload REMAINDER_TENSOR_OUT = binary("remainder.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", a -> modulo(a, REMAINDER));
    public static final OpOverload REMAINDER_SCALAR_OUT = binary("remainder.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)", a -> modulo(a, REMAINDER));
    public static final OpOverload FMOD_TENSOR_OUT = binary("fmod.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", a -> modulo(a, FMOD));
    public static final OpOverload FMOD_SCALAR_OUT = binary("fmod.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)", a -> modulo(a, FMOD));
    public static final OpOverload NEG_OUT = unary("neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", PointwiseOps::neg);
    public static final OpOverload ABS_OUT = unary("abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", PointwiseOps::abs);
    public static final OpOverload EXP_OUT = unary("exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", a -> floating(a, UnaryOp.EXP));
    public static final OpOverload SQRT_OUT = unary("sqrt.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", a -> floating(a, UnaryOp.SQRT));
    public static final OpOverload TANH_OUT = unary("tanh.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", a -> floating(a, UnaryOp.TANH));
    public static final OpOverload SIGMOID_OUT = unary("sigmoid.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", a -> floating(a, UnaryOp.SIGMOID));
    public static final OpOverload LOG_OUT = unary("log.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", a -> floating(a, UnaryOp.LOG));
    public static final OpOverload LOG1P_OUT = unary("log1p.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", a -> floating(a, UnaryOp.LOG1P));
    public static final OpOverload RSQRT_OUT = unary("rsqrt.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", a -> floating(a, UnaryOp.RSQRT));
    public static final OpOverload SIN_OUT = unary("sin.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", a -> floating(a, UnaryOp.SIN));
    public static final OpOverload COS_OUT = unary("cos.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", a -> floating(a, UnaryOp.COS));
    public static final OpOverload CLAMP_OUT = unary("clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out) -> Tensor(a!)", a -> clamp(a, false));
    public static final OpOverload CLAMP_TENSOR_OUT = clampTensor("clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out) -> Tensor(a!)");
    public static final OpOverload MAXIMUM_OUT = binary("maximum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", a -> promoted(a, MAX));
    public static final OpOverload MINIMUM_OUT = binary("minimum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", a -> promoted(a, MIN));

    // ------------------------------------------------------------------ derivatives (derivatives.yaml's formulas)

    /** self: grad / other; other: −grad · self / other². */
    private static Object[] divBackward(Grad g) {
        Object other = g.arg(1);
        Object gSelf = g.needs(0) ? g.div(g.grad(), other) : null;
        Object gOther = g.needs(1) ? g.neg(g.div(g.mul(g.grad(), g.arg(0)), g.mul(other, other))) : null;
        return new Object[] {gSelf, gOther};
    }

    /** self: grad · e · x^(e−1) (0 where e = 0); exponent: grad · x^e · log x (0 where x = 0 and e ≥ 0, as ATen). */
    private static Object[] powBackward(Grad g) {
        Object x = g.arg(0), e = g.arg(1);
        Object gSelf = null, gExp = null;
        if (g.needs(0)) {
            Object d = g.mul(e, g.call(POW_TENSOR_TENSOR, x, g.sub(e, 1.0)));
            gSelf = g.mul(g.grad(), g.where(g.call(EQ_SCALAR, e, 0L), 0.0, d));
        }
        if (g.needs(1)) {
            Object zeroBase = g.call(LOGICAL_AND, g.call(EQ_SCALAR, x, 0L), g.call(GE_SCALAR, e, 0L));
            gExp = g.mul(g.grad(), g.where(zeroBase, 0.0, g.mul(g.result(), g.call(LOG, x))));
        }
        return new Object[] {gSelf, gExp};
    }

    private static Object[] powScalarBackward(Grad g) {
        double e = g.doubleValue(1);
        if (e == 0) return new Object[] {g.zeros(g.argMeta(0))};
        Object d = e == 1 ? g.grad() : g.mul(g.grad(), g.mul(g.call(POW_TENSOR_SCALAR, g.arg(0), e - 1), e));
        return new Object[] {d};
    }

    /**
     * gelu_backward's: grad_output gets {@code gelu_backward(grad, self)} (it is linear in it); self
     * gets {@code grad · grad_output · gelu''(self)}, with {@code gelu'' = φ(x)(2 − x²)} for the erf
     * form and, for the tanh form with {@code t = tanh(u)}, {@code u = β(x + κx³)}:
     * {@code (1 − t²)u' + ½x(1 − t²)(u'' − 2t·u'²)}.
     */
    private static Object[] geluDoubleBackward(Grad g) {
        Object dy = g.arg(0), x = g.arg(1), grad = g.grad();
        String approximate = (String) g.value(2);
        Object gDy = g.needs(0) ? g.call(GELU_BACKWARD, grad, x, approximate) : null;
        Object gX = null;
        if (g.needs(1)) {
            Object x2 = g.mul(x, x), second;
            if (approximate.equals("tanh")) {
                double beta = 0.7978845608028654, kappa = 0.044715;
                Object t = g.call(TANH, g.mul(g.add(x, g.mul(g.mul(x2, x), kappa)), beta));
                Object s = g.oneMinus(g.mul(t, t));
                Object up = g.mul(g.add(g.mul(x2, 3 * kappa), 1.0), beta), upp = g.mul(x, 6 * beta * kappa);
                second = g.add(g.mul(s, up), g.mul(g.mul(g.mul(x, 0.5), s), g.sub(upp, g.mul(g.mul(t, 2.0), g.mul(up, up)))));
            } else {
                Object pdf = g.mul(g.call(EXP, g.mul(x2, -0.5)), 0.3989422804014327);
                second = g.mul(pdf, g.call(RSUB_SCALAR, x2, 2.0));
            }
            gX = g.mul(g.mul(grad, dy), second);
        }
        return new Object[] {gDy, gX};
    }

    /** maximum/minimum: the winner gets the gradient, a tie splits it in half (ATen's rule). */
    private static Object[] extremumBackward(Grad g, OpOverload wins) {
        Object x = g.arg(0), y = g.arg(1);
        Object tie = g.call(EQ_TENSOR, x, y);
        Object half = g.where(tie, g.mul(g.grad(), 0.5), g.grad());
        Object gSelf = g.needs(0) ? g.where(g.call(LOGICAL_OR, g.call(wins, x, y), tie), half, 0.0) : null;
        Object gOther = g.needs(1) ? g.where(g.call(LOGICAL_OR, g.call(wins, y, x), tie), half, 0.0) : null;
        return new Object[] {gSelf, gOther};
    }

    /** The gradient passes where min ≤ x ≤ max. */
    private static Object[] clampBackward(Grad g) {
        Object x = g.arg(0), lo = g.value(1), hi = g.value(2);
        Object pass = null;
        if (lo != null) pass = g.call(GE_SCALAR, x, lo);
        if (hi != null) pass = pass == null ? g.call(LE_SCALAR, x, hi) : g.call(LOGICAL_AND, pass, g.call(LE_SCALAR, x, hi));
        return new Object[] {pass == null ? g.grad() : g.where(pass, g.grad(), 0.0)};
    }

    /**
     * ATen's clamp_backward_min_max, from comparisons of the inputs alone: self where min ≤ x ≤ max;
     * min where x < min (and min < max); max where x > max, or everywhere max < min (clamp then
     * returns max). Never from the result: a compiled graph may compute x once to save it and again
     * inside the fused clamp, and a test of the result's equality with x would make the gradient
     * depend on those two agreeing to the last bit (seed 290306).
     */
    private static Object[] clampTensorBackward(Grad g) {
        Object x = g.arg(0), lo = g.isTensorArg(1) ? g.arg(1) : null, hi = g.isTensorArg(2) ? g.arg(2) : null;
        Object gSelf = null, gLo = null, gHi = null;
        if (g.needs(0)) {
            Object pass = lo == null ? null : g.call(GE_TENSOR, x, lo);
            if (hi != null) pass = pass == null ? g.call(LE_TENSOR, x, hi) : g.call(LOGICAL_AND, pass, g.call(LE_TENSOR, x, hi));
            gSelf = pass == null ? g.grad() : g.where(pass, g.grad(), 0.0);
        }
        if (lo != null && g.needs(1)) {
            Object won = g.call(LT_TENSOR, x, lo);
            if (hi != null) won = g.call(LOGICAL_AND, won, g.call(LT_TENSOR, lo, hi));
            gLo = g.where(won, g.grad(), 0.0);
        }
        if (hi != null && g.needs(2)) {
            Object won = g.call(GT_TENSOR, x, hi);
            if (lo != null) won = g.call(LOGICAL_OR, won, g.call(LT_TENSOR, hi, lo));
            gHi = g.where(won, g.grad(), 0.0);
        }
        return new Object[] {gSelf, gLo, gHi};
    }

    // ------------------------------------------------------------------ plans

    private static Binary add(Args a) {
        Object left = a.tensor(0), right = operand(a, 1), alpha = a.scalar(2);
        DType d = TypePromotion.resultType(left, right);
        checkAlpha(name(a), d, alpha);
        return isOne(alpha) ? new Binary(ADD, d, left, right, null) : new Binary(ADD_SCALED, d, left, right, alpha);
    }

    private static Binary sub(Args a) {
        Object left = a.tensor(0), right = operand(a, 1), alpha = a.scalar(2);
        return subtract(a, left, right, alpha);
    }

    /** {@code other - alpha * self}. */
    private static Binary rsub(Args a) {
        return subtract(a, a.scalar(1), a.tensor(0), a.scalar(2));
    }

    private static Binary subtract(Args a, Object left, Object right, Object alpha) {
        String op = name(a);
        DType l = dtypeOf(left), r = dtypeOf(right);
        if (l == BOOL && r == BOOL) {
            throw new IllegalArgumentException(op + ": Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.");
        }
        if (l == BOOL || r == BOOL) {
            throw new IllegalArgumentException(op + ": Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
        }
        DType d = TypePromotion.resultType(left, right);
        checkAlpha(op, d, alpha);
        return isOne(alpha) ? new Binary(SUB, d, left, right, null) : new Binary(ADD_SCALED, d, left, right, negate(alpha));
    }

    private static Binary mul(Args a) {
        return promoted(a, MUL);
    }

    private static Binary promoted(Args a, BinaryOp op) {
        Object left = a.tensor(0), right = operand(a, 1);
        return new Binary(op, TypePromotion.resultType(left, right), left, right, null);
    }

    /** True division (mode null) computes in floating point; "trunc" and "floor" keep integer dtypes. */
    private static Binary div(Args a, String mode) {
        Object left = a.tensor(0), right = operand(a, 1);
        DType d = TypePromotion.resultType(left, right);
        if (mode == null) return new Binary(DIV, TypePromotion.toFloating(d), left, right, null);
        BinaryOp op = switch (mode) {
            case "trunc" -> DIV_TRUNC;
            case "floor" -> DIV_FLOOR;
            default -> throw new IllegalArgumentException(name(a) + ": div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '" + mode + "'");
        };
        if (d == BOOL) throw notImplemented(name(a), op == DIV_TRUNC ? "div_trunc_cpu" : "div_floor_cpu", d);
        return new Binary(op, d, left, right, null);
    }

    /**
     * remainder (the divisor's sign, Python's {@code %}) and fmod (the dividend's sign, C's): in the
     * promoted dtype, where an integer zero divisor raises and a floating one gives NaN; no bool kernel.
     * Either operand may be a Scalar ({@code remainder.Scalar_Tensor} has a Scalar self).
     */
    private static Binary modulo(Args a, BinaryOp op) {
        Object left = operand(a, 0), right = operand(a, 1);
        DType d = TypePromotion.resultType(left, right);
        if (d == BOOL) throw notImplemented(name(a), op == REMAINDER ? "remainder_cpu" : "fmod_cpu", d);
        return new Binary(op, d, left, right, null);
    }

    private static Binary pow(Args a) {
        Object left = a.tensor(0), right = a.tensor(1);
        DType d = TypePromotion.resultType(left, right);
        if (d == BOOL) throw notImplemented(name(a), "pow", d);
        return new Binary(BinaryOp.POW, d, left, right, null);
    }

    private static DType powScalarType(Args a) {
        Tensor self = a.tensor(0);
        Object e = a.scalar(1);
        if (!self.dtype().isFloatingPoint() && !(e instanceof Double) && toDouble(e) < 0) {
            throw new IllegalArgumentException(name(a) + ": Integers to negative integer powers are not allowed.");
        }
        return TypePromotion.resultType(self, e);
    }

    /** ATen's fast paths for common floating exponents. */
    private static UnaryOp floatPowOp(double e) {
        if (e == 2) return UnaryOp.SQUARE;
        if (e == 3) return UnaryOp.CUBE;
        if (e == 0.5) return UnaryOp.SQRT;
        if (e == -0.5) return UnaryOp.RSQRT;
        if (e == -1) return UnaryOp.RECIPROCAL;
        if (e == -2) return UnaryOp.INV_SQUARE;
        return UnaryOp.POW;
    }

    private static Unary neg(Args a) {
        DType d = a.tensor(0).dtype();
        if (d == BOOL) {
            throw new IllegalArgumentException(name(a) + ": Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
        }
        return new Unary(UnaryOp.NEG, d, null, null);
    }

    private static Unary abs(Args a) {
        DType d = a.tensor(0).dtype();
        if (d == BOOL) throw notImplemented(name(a), "abs_cpu", d);
        return new Unary(UnaryOp.ABS, d, null, null);
    }

    private static Unary relu(Args a) {
        DType d = a.tensor(0).dtype();
        if (d == BOOL) throw new IllegalArgumentException(name(a) + ": Boolean inputs not supported for relu");
        return new Unary(UnaryOp.RELU, d, null, null);
    }

    /** Ops that always give a floating result: integral and bool inputs compute in the default dtype. */
    private static Unary floating(Args a, UnaryOp op) {
        return new Unary(op, TypePromotion.toFloating(a.tensor(0).dtype()), null, null, false);
    }

    /** Ops ATen implements for floating dtypes only. */
    private static Unary floatingOnly(Args a, UnaryOp op, String kernelName) {
        DType d = a.tensor(0).dtype();
        if (!d.isFloatingPoint()) throw notImplemented(name(a), kernelName, d);
        return new Unary(op, d, null, null);
    }

    /** floor, ceil, round, trunc: integers keep their dtype (and value), floats round; no bool kernel. */
    private static Unary rounding(Args a, UnaryOp op, String kernelName) {
        return new Unary(op, roundingDtype(a, kernelName), null, null);
    }

    private static DType roundingDtype(Args a, String kernelName) {
        DType d = a.tensor(0).dtype();
        if (d == BOOL) throw notImplemented(name(a), kernelName, d);
        return d;
    }

    private static DType floatingOnlyDtype(Args a, String kernelName) {
        DType d = a.tensor(0).dtype();
        if (!d.isFloatingPoint()) throw notImplemented(name(a), kernelName, d);
        return d;
    }

    /** bitwise and/or/xor: integers and bools only, in their promoted dtype (a bool with an integer computes in the integer). */
    private static Binary bitwise(Args a, BinaryOp op, String kernelName) {
        Object left = a.tensor(0), right = operand(a, 1);
        DType d = TypePromotion.resultType(left, right);
        if (d.isFloatingPoint()) throw notImplemented(name(a), kernelName, d);
        return new Binary(op, d, left, right, null);
    }

    private static Unary bitwiseNot(Args a) {
        DType d = a.tensor(0).dtype();
        if (d.isFloatingPoint()) throw notImplemented(name(a), "bitwise_not_cpu", d);
        return new Unary(d == BOOL ? UnaryOp.NOT : UnaryOp.BITWISE_NOT, d, null, null);
    }

    /** A bool result in the input's shape (the classification ops). */
    private static TensorMeta boolLike(Args a) { return TensorMeta.contiguous(BOOL, a.tensor(0).shape()); }

    /** ATen's round_decimals kernel: {@code nearbyint(x·10^d) / 10^d}, or {@code nearbyint(x / 10^−d) · 10^−d} for d < 0. */
    private static Object roundDecimals(OpEmitter e, Object[] a) {
        long decimals = ((Number) a[1]).longValue();
        if (decimals == 0) return e.call(ROUND, a[0]);
        double tenPow = Math.pow(10, Math.abs(decimals));
        return decimals > 0 ? e.call(DIV_SCALAR, e.call(ROUND, e.call(MUL_SCALAR, a[0], tenPow)), tenPow)
                : e.call(MUL_SCALAR, e.call(ROUND, e.call(DIV_SCALAR, a[0], tenPow)), tenPow);
    }

    private static Object sign(OpEmitter e, Object[] a) {
        DType d = e.meta(a[0]).dtype();
        if (d == BOOL) return e.call(ShapeOps.CLONE, a[0]);
        Object pos = e.call(GT_SCALAR, a[0], 0L), neg = e.call(LT_SCALAR, a[0], 0L);
        return e.call(SUB_TENSOR, e.call(ShapeOps.TO_COPY, pos, d), e.call(ShapeOps.TO_COPY, neg, d));
    }

    private static Object nanToNum(OpEmitter e, Object[] a) {
        DType d = e.meta(a[0]).dtype();
        if (!d.isFloatingPoint()) return e.call(ShapeOps.CLONE, a[0]);
        double largest = d == DType.FLOAT32 ? Float.MAX_VALUE : Double.MAX_VALUE;
        double nan = a[1] == null ? 0 : ((Number) a[1]).doubleValue();
        double posinf = a[2] == null ? largest : ((Number) a[2]).doubleValue();
        double neginf = a[3] == null ? -largest : ((Number) a[3]).doubleValue();
        Object x = e.call(WHERE_SCALAR_SELF, e.call(EQ_SCALAR, a[0], Double.NEGATIVE_INFINITY), neginf, a[0]);
        x = e.call(WHERE_SCALAR_SELF, e.call(EQ_SCALAR, a[0], Double.POSITIVE_INFINITY), posinf, x);
        return e.call(WHERE_SCALAR_SELF, e.call(NE_TENSOR, a[0], a[0]), nan, x);
    }

    private static Unary gelu(Args a) {
        String approximate = a.str(1);
        UnaryOp op = switch (approximate) {
            case "none" -> UnaryOp.GELU;
            case "tanh" -> UnaryOp.GELU_TANH;
            default -> throw new IllegalArgumentException(name(a) + ": approximate argument must be either none or tanh.");
        };
        return floatingOnly(a, op, "GeluKernelImpl");
    }

    private static Binary geluBackward(Args a) {
        Tensor grad = a.tensor(0), self = a.tensor(1);
        BinaryOp op = switch (a.str(2)) {
            case "none" -> BinaryOp.GELU_BACKWARD;
            case "tanh" -> BinaryOp.GELU_TANH_BACKWARD;
            default -> throw new IllegalArgumentException(name(a) + ": approximate argument must be either none or tanh.");
        };
        DType d = TypePromotion.resultType(grad, self);
        if (!d.isFloatingPoint()) throw notImplemented(name(a), "GeluBackwardKernelImpl", d);
        return new Binary(op, d, grad, self, null);
    }

    /**
     * Scalar bounds take part in type promotion unless self is floating. As in ATen, a NaN bound
     * alone is ignored, while a NaN with both bounds given makes every element NaN.
     */
    private static Unary clamp(Args a, boolean inplace) {
        Tensor self = a.tensor(0);
        Object lo = a.get(1) == null ? null : a.scalar(1), hi = a.get(2) == null ? null : a.scalar(2);
        String op = name(a);
        if (lo == null && hi == null) throw new IllegalArgumentException(op + ": torch.clamp: At least one of 'min' or 'max' must not be None");
        DType d = self.dtype().isFloatingPoint() ? self.dtype() : TypePromotion.resultType(self, lo, hi);
        if (inplace && d != self.dtype()) {
            throw new IllegalArgumentException(op + ": result type " + d.scalarTypeName() + " can't be cast to the desired output type " + typeMetaName(self.dtype()));
        }
        if (d == BOOL) throw notImplemented(op, lo == null ? "clamp_max_scalar_cpu" : hi == null ? "clamp_min_scalar_cpu" : "clamp_scalar_cpu", d);
        if (lo != null && hi != null && (isNaN(lo) || isNaN(hi))) return new Unary(UnaryOp.CLAMP, d, Double.NaN, Double.NaN);
        return new Unary(UnaryOp.CLAMP, d, isNaN(lo) ? null : lo, isNaN(hi) ? null : hi);
    }

    // ------------------------------------------------------------------ op builders

    /** An elementwise op defined by its decomposition ({@link ComposedOps#composed}). */
    private static OpOverload.Builder composedPointwise(String schema, OpOverload.MetaFn meta, Decomposition decomposition) {
        return ComposedOps.composed(schema, meta, decomposition).tags(Tag.POINTWISE);
    }



    /** The tags of a binary or unary op in each {@link Schema.Kind}: an out op is pointwise, like ATen's. */
    private static Tag[] tags(Schema.Kind kind) {
        return kind == Schema.Kind.INPLACE ? new Tag[] {Tag.POINTWISE, Tag.INPLACE} : new Tag[] {Tag.POINTWISE};
    }

    /**
     * One binary op from its plan, in the schema's {@link Schema.Kind}: functional (a new tensor),
     * in place (into self) or out ({@code add.out}: into the keyword-only {@code out}, which it returns).
     */
    private static OpOverload binary(String schema, Function<Args, Binary> plan) { return binary(schema, plan, null); }

    private static OpOverload binary(String schema, Function<Args, Binary> plan, Derivative derivative) {
        Schema.Kind kind = Schema.parse(schema).kind();
        return OpOverload.define(schema)
                .derivative(derivative)
                .tags(tags(kind))
                .meta(a -> {
                    Binary p = plan.apply(a);
                    String op = name(a);
                    return switch (kind) {
                        case FUNCTIONAL -> TensorMeta.contiguous(p.dtype(), Shapes.broadcast(op, shapeOf(p.left()), shapeOf(p.right())));
                        case INPLACE -> checkInplace(op, a.tensor(0), p.dtype(), Shapes.broadcast(op, shapeOf(p.left()), shapeOf(p.right())));
                        case OUT -> checkOut(a, p.dtype(), false, p.left(), p.right());
                    };
                })
                .kernel((a, m) -> {
                    Binary p = plan.apply(a);
                    Tensor out = target(a, kind, m);
                    Pointwise.binary(p.op(), p.dtype(), out, tensorOf(p.left(), p.dtype()), tensorOf(p.right(), p.dtype()), p.alpha());
                    return kind == Schema.Kind.FUNCTIONAL ? out : written(out);
                })
                .register();
    }

    /** {@link #ADD_SCALED_BY} (or its in-place form): the alpha's value is read by the kernel only, never by the meta function. */
    private static OpOverload addScaledBy(String schema) {
        Schema.Kind kind = Schema.parse(schema).kind();
        return OpOverload.define(schema)
                .derivative(kind != Schema.Kind.FUNCTIONAL ? null
                        : g -> new Object[] {g.grad(), g.needs(1) ? g.mul(g.grad(), g.arg(2)) : null, g.needs(2) ? g.mul(g.grad(), g.arg(1)) : null})
                .tags(tags(kind))
                .meta(a -> {
                    String op = name(a);
                    Tensor self = a.tensor(0), other = a.tensor(1), alpha = a.tensor(2);
                    DType d = TypePromotion.resultType(self, other);
                    if (!d.isFloatingPoint()) throw new IllegalArgumentException(op + ": computes in a floating dtype only, got " + d);
                    if (alpha.dim() != 0) throw new IllegalArgumentException(op + ": alpha must be a 0-d tensor, got shape " + Shapes.format(alpha.shape()));
                    int[] shape = Shapes.broadcast(op, self.shape(), other.shape());
                    return kind == Schema.Kind.INPLACE ? checkInplace(op, self, d, shape) : TensorMeta.contiguous(d, shape);
                })
                .kernel((a, m) -> {
                    Tensor self = a.tensor(0), other = a.tensor(1);
                    DType d = TypePromotion.resultType(self, other);
                    Tensor out = target(a, kind, m);
                    Pointwise.binary(ADD_SCALED, d, out, tensorOf(self, d), tensorOf(other, d), a.tensor(2).to(DType.FLOAT64).item());
                    return kind == Schema.Kind.FUNCTIONAL ? out : written(out);
                })
                .register();
    }

    /** One unary op from its plan, in the schema's {@link Schema.Kind}, as {@link #binary}. */
    private static OpOverload unary(String schema, Function<Args, Unary> plan) { return unaryOp(schema, plan).register(); }

    private static OpOverload unary(String schema, Function<Args, Unary> plan, Derivative derivative) {
        return unaryOp(schema, plan).derivative(derivative).register();
    }

    private static OpOverload.Builder unaryOp(String schema, Function<Args, Unary> plan) {
        Schema.Kind kind = Schema.parse(schema).kind();
        return OpOverload.define(schema)
                .tags(tags(kind))
                .meta(a -> {
                    Unary p = plan.apply(a);
                    Tensor self = a.tensor(0);
                    return switch (kind) {
                        case FUNCTIONAL -> TensorMeta.contiguous(p.dtype(), self.shape());
                        case INPLACE -> checkInplace(name(a), self, p.dtype(), self.shape());
                        case OUT -> checkOut(a, p.dtype(), p.keepsDtype(), self);
                    };
                })
                .kernel((a, m) -> {
                    Unary p = plan.apply(a);
                    Tensor out = target(a, kind, m);
                    Pointwise.unary(p.op(), p.dtype(), out, a.tensor(0), p.lo(), p.hi());
                    return kind == Schema.Kind.FUNCTIONAL ? out : written(out);
                });
    }

    /**
     * clamp with tensor bounds (either may be absent), in the schema's {@link Schema.Kind}: self and
     * the bounds broadcast and promote together; the in-place and out= forms cast the result into
     * the written tensor, as ATen's TensorIterator does.
     */
    private static OpOverload clampTensor(String schema) { return clampTensor(schema, null); }

    private static OpOverload clampTensor(String schema, Derivative derivative) {
        Schema.Kind kind = Schema.parse(schema).kind();
        return OpOverload.define(schema)
                .derivative(derivative)
                .tags(tags(kind))
                .meta(a -> {
                    Tensor self = a.tensor(0), lo = a.optTensor(1), hi = a.optTensor(2);
                    String op = name(a);
                    if (lo == null && hi == null) throw new IllegalArgumentException(op + ": torch.clamp: At least one of 'min' or 'max' must not be None");
                    DType d = TypePromotion.resultType(self, lo, hi);
                    if (d == BOOL && lo != null && hi != null) throw notImplemented(op, "clamp_cpu", d);
                    int[] shape = self.shape();
                    if (lo != null) shape = Shapes.broadcast(op, shape, lo.shape());
                    if (hi != null) shape = Shapes.broadcast(op, shape, hi.shape());
                    return switch (kind) {
                        case FUNCTIONAL -> TensorMeta.contiguous(d, shape);
                        case INPLACE -> checkInplace(op, self, d, shape);
                        case OUT -> checkOut(a, d, false, self, lo, hi);
                    };
                })
                .kernel((a, m) -> {
                    Tensor self = a.tensor(0), lo = a.optTensor(1), hi = a.optTensor(2);
                    Tensor target = target(a, kind, m);
                    // a written tensor may be a bound itself, so the result is made whole before it lands there
                    Tensor out = kind == Schema.Kind.FUNCTIONAL ? target
                            : Tensor.allocate(TypePromotion.resultType(self, lo, hi), target.shape());
                    DType d = out.dtype();
                    // min(max(x, lo), hi) in two passes; the second reads out in place, element for element
                    if (lo != null) Pointwise.binary(MAX, d, out, self, lo, null);
                    if (hi != null) Pointwise.binary(MIN, d, out, lo != null ? out : self, hi, null);
                    if (kind == Schema.Kind.FUNCTIONAL) return out;
                    Copy.copy(out, target);
                    return written(target);
                })
                .register();
    }

    /**
     * The in-place form of an op defined by its decomposition whose result has self's dtype and
     * shape: the decomposition computed, then written into self. Autograd and functionalization
     * take the functional op ({@link OpRegistry#functionalOf}), its derivative and decomposition.
     */
    static OpOverload composedInPlace(String schema, OpOverload functional) {
        return composedInPlace(schema, functional, a -> {});
    }

    /** {@link #composedInPlace(String, OpOverload)} with a check of its own run first (an op's own refusal text). */
    static OpOverload composedInPlace(String schema, OpOverload functional, java.util.function.Consumer<Args> check) {
        return OpOverload.define(schema)
                .tags(Tag.POINTWISE, Tag.INPLACE)
                .meta(a -> {
                    check.accept(a);
                    TensorMeta result = (TensorMeta) functional.inferMeta(functional.bind(a.toArray()));
                    return checkInplace(name(a), a.tensor(0), result.dtype(), result.shape());
                })
                .kernel((a, m) -> {
                    Tensor self = a.tensor(0);
                    Copy.copy(ComposedOps.eagerly(functional.decomposition(), a), self);
                    return written(self);
                })
                .register();
    }

    /** Where a kernel writes: a fresh tensor, self, or out. */
    private static Tensor target(Args a, Schema.Kind kind, Object meta) {
        return switch (kind) {
            case FUNCTIONAL -> Tensor.allocateUninitialized((TensorMeta) meta);   // every kernel through here writes each element
            case INPLACE -> a.tensor(0);
            case OUT -> a.tensor(a.op().schema().outIndex());
        };
    }

    private static OpOverload compare(String schema, BinaryOp op) {
        return OpOverload.define(schema)
                .tags(Tag.POINTWISE)
                .meta(a -> TensorMeta.contiguous(BOOL, Shapes.broadcast(name(a), a.tensor(0).shape(), shapeOf(operand(a, 1)))))
                .kernel((a, m) -> {
                    Tensor out = Tensor.allocate((TensorMeta) m), self = a.tensor(0);
                    Object other = operand(a, 1);
                    DType d = TypePromotion.resultType(self, other);
                    Pointwise.compare(op, d, out, self, tensorOf(other, d));
                    return out;
                })
                .register();
    }

    private static OpOverload logical(String schema, BinaryOp op) {
        return OpOverload.define(schema)
                .tags(Tag.POINTWISE)
                .meta(a -> TensorMeta.contiguous(BOOL, Shapes.broadcast(name(a), a.tensor(0).shape(), a.tensor(1).shape())))
                .kernel((a, m) -> {
                    Tensor out = Tensor.allocate((TensorMeta) m);
                    Pointwise.logical(op, out, a.tensor(0), a.tensor(1));
                    return out;
                })
                .register();
    }

    private static OpOverload logicalNot(String schema) {
        return OpOverload.define(schema)
                .tags(Tag.POINTWISE)
                .meta(a -> TensorMeta.contiguous(BOOL, a.tensor(0).shape()))
                .kernel((a, m) -> {
                    Tensor out = Tensor.allocate((TensorMeta) m);
                    Pointwise.logicalNot(out, a.tensor(0));
                    return out;
                })
                .register();
    }

    private static OpOverload where(String schema, Derivative derivative) {
        return OpOverload.define(schema)
                .derivative(derivative)
                .tags(Tag.POINTWISE)
                .meta(a -> {
                    Tensor c = a.tensor(0);
                    String op = name(a);
                    if (c.dtype() != BOOL) throw new IllegalArgumentException(op + ": where expected condition to be a boolean tensor, but got a tensor with dtype " + c.dtype().scalarTypeName());
                    Object self = operand(a, 1), other = operand(a, 2);
                    int[] shape = Shapes.broadcast(op, Shapes.broadcast(op, c.shape(), shapeOf(self)), shapeOf(other));
                    return TensorMeta.contiguous(TypePromotion.resultType(self, other), shape);
                })
                .kernel((a, m) -> {
                    Tensor out = Tensor.allocate((TensorMeta) m);
                    Pointwise.where(out, a.tensor(0), tensorOf(operand(a, 1), out.dtype()), tensorOf(operand(a, 2), out.dtype()));
                    return out;
                })
                .register();
    }

    /** Out of place, self and mask broadcast together; the result keeps self's dtype. */
    private static OpOverload maskedFill(String schema, Derivative derivative) {
        return OpOverload.define(schema)
                .derivative(derivative)
                .tags(Tag.POINTWISE)
                .meta(a -> {
                    Tensor self = a.tensor(0);
                    checkMask(a);
                    if (a.get(2) instanceof Tensor v && v.dim() != 0) {
                        throw new IllegalArgumentException(name(a) + ": masked_fill_ only supports a 0-dimensional value tensor, but got tensor with " + v.dim() + " dimension(s).");
                    }
                    return TensorMeta.contiguous(self.dtype(), Shapes.broadcast(name(a), self.shape(), a.tensor(1).shape()));
                })
                .kernel((a, m) -> {
                    Tensor out = Tensor.allocate((TensorMeta) m);
                    Pointwise.where(out, a.tensor(1), tensorOf(operand(a, 2), out.dtype()), a.tensor(0));
                    return out;
                })
                .register();
    }

    // ------------------------------------------------------------------ addcmul, addcdiv, lerp

    private static void checkAddc(Args a, boolean divide) {
        String op = name(a);
        Tensor self = a.tensor(0), t1 = a.tensor(1), t2 = a.tensor(2);
        if (divide && !t1.dtype().isFloatingPoint() && !t2.dtype().isFloatingPoint()) {
            throw new IllegalArgumentException(op + ": Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform a true division "
                    + "of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) "
                    + "for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: "
                    + "(input + value * tensor1 / tensor2), for all dtypes.");
        }
        Shapes.broadcast(op, Shapes.broadcast(op, self.shape(), t1.shape()), t2.shape());
        DType d = TypePromotion.resultType(self, t1, t2);
        if (d == BOOL) throw notImplemented(op, op + "_cpu_out", d);
    }

    /** addcmul or addcdiv: the operands in their common dtype, then {@code self + (value * t1) ⊗ t2}. */
    private static Object addc(OpEmitter e, Object[] a, OpOverload product) {
        DType d = TypePromotion.resultType(fake(e, a[0]), fake(e, a[1]), fake(e, a[2]));
        Object t1 = convert(e, a[1], d);
        // ATen casts value to the computation's type: 0.5 is 0 for integers
        Object value = d.isFloatingPoint() ? a[3] : (Object) (long) toDouble(a[3]);
        if (!isOne(value)) t1 = e.call(MUL_SCALAR, t1, value);
        return e.call(ADD_TENSOR, convert(e, a[0], d), e.call(product, t1, convert(e, a[2], d)));
    }

    private static void checkLerp(Args a, String kernel) {
        String op = name(a);
        Tensor self = a.tensor(0), end = a.tensor(1);
        if (end.dtype() != self.dtype()) {
            throw new IllegalArgumentException(op + ": expected dtype " + typeMetaName(self.dtype()) + " for `end` but got dtype " + typeMetaName(end.dtype()));
        }
        int[] shape = Shapes.broadcast(op, self.shape(), end.shape());
        if (a.get(2) instanceof Tensor weight) {
            if (weight.dtype() != self.dtype()) {
                throw new IllegalArgumentException(op + ": expected dtype " + typeMetaName(self.dtype()) + " for `weight` but got dtype " + typeMetaName(weight.dtype()));
            }
            Shapes.broadcast(op, shape, weight.shape());
        }
        if (!self.dtype().isFloatingPoint()) throw notImplemented(op, kernel, self.dtype());
    }

    private static Object lerpScalar(OpEmitter e, Object[] a) {
        Object self = a[0], end = a[1];
        boolean single = e.meta(self).dtype() == DType.FLOAT32;
        // the weight in the computation's type, as ATen's kernel holds it: 1 - w rounds in float for float32
        double w = single ? (float) toDouble(a[2]) : toDouble(a[2]);
        double oneMinus = single ? 1f - (float) w : 1 - w;
        Object diff = e.call(SUB_TENSOR, end, self);
        if (Math.abs(w) < 0.5) return e.call(ADD_TENSOR, self, e.call(MUL_SCALAR, diff, w));
        return e.call(SUB_TENSOR, end, e.call(MUL_SCALAR, diff, oneMinus));
    }

    /** A tensor value's metadata as a fake tensor, for {@link TypePromotion} in decompositions (where tensors are opaque). */
    private static Tensor fake(OpEmitter e, Object x) { return new dev.ember.tensor.FakeTensor(e.meta(x)); }

    private static Object convert(OpEmitter e, Object x, DType d) { return e.meta(x).dtype() == d ? x : e.call(ShapeOps.TO_COPY, x, d); }

    // ------------------------------------------------------------------ checks

    private static void checkMask(Args a) {
        Tensor mask = a.tensor(1);
        if (mask.dtype() != BOOL) {
            throw new IllegalArgumentException(name(a) + ": masked_fill_ only supports boolean masks, but got mask with dtype " + typeMetaName(mask.dtype()));
        }
    }

    /** ATen's alpha_check. */
    private static void checkAlpha(String op, DType result, Object alpha) {
        if (alpha instanceof Boolean && result != BOOL) throw new IllegalArgumentException(op + ": Boolean alpha only supported for Boolean results.");
        if (!result.isFloatingPoint() && alpha instanceof Double) {
            throw new IllegalArgumentException(op + ": For integral input tensors, argument alpha must not be a floating point number.");
        }
    }

    /** What TensorIterator checks before writing into self: no self-overlap, the broadcast shape is self's, the result type casts to self's. */
    static TensorMeta checkInplace(String op, Tensor self, DType result, int[] shape) {
        checkNoInternalOverlap(op, self);
        checkOutputShape(op, self, shape);
        if (!canCast(result, self.dtype())) {
            throw new IllegalArgumentException(op + ": result type " + result.scalarTypeName() + " can't be cast to the desired output type " + self.dtype().scalarTypeName());
        }
        return self.meta();
    }

    /**
     * What ATen checks before an out op writes (TensorIterator's memory-overlap, shape and dtype
     * checks), in its order: out has no element twice; out and each input tensor are either the
     * same memory seen the same way or disjoint; out has the broadcast shape (ATen would resize a
     * mismatched out with a warning; Ember refuses); the result dtype fits out's dtype. Returns
     * out's metadata. Fake tensors have no memory, so the overlap checks wait for real ones.
     */
    private static TensorMeta checkOut(Args a, DType result, boolean sameDtype, Object... operands) {
        String op = name(a);
        Tensor out = a.tensor(a.op().schema().outIndex());
        checkNoInternalOverlap(op, out);
        for (Object x : operands) if (x instanceof Tensor t) checkNoPartialOverlap(op, out, t);
        int[] shape = new int[0];
        for (Object x : operands) shape = Shapes.broadcast(op, shape, shapeOf(x));
        if (!Arrays.equals(shape, out.shape())) {
            throw new IllegalArgumentException(op + ": the out tensor has shape " + Shapes.format(out.shape()) + " but the result has shape "
                    + Shapes.format(shape) + "; Ember does not resize out (ATen would, with a warning): pass an out of shape " + Shapes.format(shape));
        }
        if (sameDtype && result != out.dtype()) {
            throw new IllegalArgumentException(op + ": Found dtype " + out.dtype().scalarTypeName() + " but expected " + result.scalarTypeName());
        }
        if (!canCast(result, out.dtype())) {
            throw new IllegalArgumentException(op + ": result type " + result.scalarTypeName() + " can't be cast to the desired output type " + out.dtype().scalarTypeName());
        }
        return out.meta();
    }

    /** ATen's assert_no_internal_overlap: a written tensor may not hold one element at two indices (an expanded dimension). */
    private static void checkNoInternalOverlap(String op, Tensor written) {
        int[] size = written.shape(), strides = written.strides();
        for (int d = 0; d < size.length; d++) {
            if (size[d] > 1 && strides[d] == 0) {
                throw new IllegalArgumentException(op + ": unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.");
            }
        }
    }

    /**
     * ATen's assert_no_partial_overlap: out may be the very input (same storage, offset, shape and
     * strides) but may not share only some of its memory. Ember judges by the spans of storage the
     * two reach, so it also refuses interleaved views that ATen cannot judge and lets through.
     */
    private static void checkNoPartialOverlap(String op, Tensor out, Tensor input) {
        if (out.storage() == null || out.storage() != input.storage() || out.numel() == 0 || input.numel() == 0) return;
        boolean same = out.storageOffset() == input.storageOffset() && Arrays.equals(out.shape(), input.shape())
                && Arrays.equals(out.strides(), input.strides());
        if (same) return;
        if (out.storageOffset() <= spanEnd(input) && input.storageOffset() <= spanEnd(out)) {
            throw new IllegalArgumentException(op + ": unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.");
        }
    }

    /** The last storage index {@code t} reaches (its first is its offset: strides are not negative). */
    private static long spanEnd(Tensor t) {
        long e = t.storageOffset();
        int[] size = t.shape(), strides = t.strides();
        for (int d = 0; d < size.length; d++) e += (long) (size[d] - 1) * strides[d];
        return e;
    }

    private static void checkOutputShape(String op, Tensor self, int[] broadcast) {
        if (!Arrays.equals(broadcast, self.shape())) {
            throw new IllegalArgumentException(op + ": output with shape " + Shapes.format(self.shape()) + " doesn't match the broadcast shape " + Shapes.format(broadcast));
        }
    }

    /** ATen's canCast: floating never goes to integral or bool, and nothing but bool goes to bool. */
    private static boolean canCast(DType from, DType to) {
        if (from.isFloatingPoint() && !to.isFloatingPoint()) return false;
        return from == BOOL || to != BOOL;
    }

    static IllegalArgumentException notImplemented(String op, String kernelName, DType d) {
        return new IllegalArgumentException(op + ": \"" + kernelName + "\" not implemented for '" + d.scalarTypeName() + "'");
    }


    /** The dtype as ATen's TypeMeta prints (some messages use it): float, double, int, long int, bool. */
    static String typeMetaName(DType d) {
        return switch (d) {
            case FLOAT32 -> "float";
            case FLOAT64 -> "double";
            case INT32 -> "int";
            case INT64 -> "long int";
            case BOOL -> "bool";
        };
    }

    // ------------------------------------------------------------------ small helpers

    private static String name(Args a) { return a.op().schema().name(); }

    private static String optStr(Args a, int i) { return a.get(i) == null ? null : a.str(i); }

    /** Argument {@code i} of a Tensor-or-Scalar overload: the Tensor, or the Scalar as a Double, Long or Boolean. */
    private static Object operand(Args a, int i) {
        return a.get(i) instanceof Tensor t ? t : a.scalar(i);
    }

    private static int[] shapeOf(Object operand) {
        return operand instanceof Tensor t ? t.shape() : new int[0];
    }

    private static DType dtypeOf(Object operand) {
        return operand instanceof Tensor t ? t.dtype() : TypePromotion.scalarType(operand);
    }

    /** A Scalar operand as a 0-d tensor of the compute dtype; tensors pass through. */
    private static Tensor tensorOf(Object operand, DType dtype) {
        return operand instanceof Tensor t ? t : Pointwise.scalar(operand, dtype);
    }

    private static double toDouble(Object scalar) {
        return scalar instanceof Boolean b ? (b ? 1 : 0) : ((Number) scalar).doubleValue();
    }

    private static boolean isOne(Object alpha) {
        return toDouble(alpha) == 1;
    }

    private static boolean isNaN(Object scalar) {
        return scalar instanceof Double d && d.isNaN();
    }

    private static Object negate(Object alpha) {
        return alpha instanceof Double d ? (Object) (-d) : (Object) (-(long) (alpha instanceof Boolean b ? (b ? 1L : 0L) : (Long) alpha));
    }

    private static boolean nativeDropsSome(Args a) {
        return (a.get(2) == null || a.bool(2)) && a.dbl(1) > 0 && a.tensor(0).numel() > 0;
    }

    private static boolean dropsSome(Args a) {
        return a.bool(2) && a.dbl(1) > 0 && a.tensor(0).numel() > 0;
    }

    private static Tensor fill(Tensor self, Object value) {
        Copy.fill(self, value);
        return self;
    }

    /** In-place and out= ops count their write in the storage's version. */
    private static Tensor written(Tensor self) {
        self.bumpVersion();
        return self;
    }
}
