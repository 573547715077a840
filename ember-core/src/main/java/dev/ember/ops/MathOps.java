package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Defaults;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Numerical ops users reach for that are other ops put together (PyTorch's CompositeImplicitAutograd
 * ops, or ATen kernels whose formula is a few pointwise steps): logaddexp, logaddexp2, hypot, xlogy,
 * isclose, diff, linalg_cross, meshgrid, nansum, nanmean, var_mean, std_mean and tensordot. Each is
 * one definition whose eager kernel runs its decomposition ({@link ComposedOps}), so eager, autograd
 * and the compiler compute one formula; hypot and xlogy have ATen's derivatives (their decompositions
 * select between branches, whose derivatives differ from the function's at x = 0). Also the everyday
 * pointwise ops copysign, signbit, logit, sinc, heaviside, fmax, fmin, gcd and lcm.
 */
public final class MathOps {
    private MathOps() {}

    // ------------------------------------------------------------------ pointwise

    // ------------------------------------------------------------------ special functions

    /**
     * The complementary error function {@code 1 − erf(x)}, accurate where erf is close to 1 (erfc(10)
     * is 2.1e-45, not 0); d/dx = −2/√π · e^(−x²).
     */
    public static final OpOverload ERFC = special("erfc(Tensor self) -> Tensor", dev.ember.ops.eager.Special::erfc,
            g -> new Object[] {g.mul(g.grad(), g.mul(g.call(PointwiseOps.EXP, g.neg(g.mul(g.arg(0), g.arg(0)))), -2 / Math.sqrt(Math.PI)))});

    /** The inverse of erf on [−1, 1] (±inf at ±1, NaN outside); d/dy = √π/2 · e^(erfinv(y)²). */
    public static final OpOverload ERFINV = special("erfinv(Tensor self) -> Tensor", dev.ember.ops.eager.Special::erfinv,
            g -> new Object[] {g.mul(g.grad(), g.mul(g.call(PointwiseOps.EXP, g.mul(g.result(), g.result())), Math.sqrt(Math.PI) / 2))});

    /**
     * The scaled complementary error function {@code e^(x²)·erfc(x)} (torch.special.erfcx), finite
     * where erfc underflows: {@code 1/(x√π)} times its asymptotic series beyond x = 26; +inf below
     * x ≈ −26.6 as the product overflows. d/dx = {@code 2x·erfcx(x) − 2/√π}, ATen's.
     */
    public static final OpOverload SPECIAL_ERFCX = special("special_erfcx(Tensor self) -> Tensor", MathOps::erfcx,
            g -> new Object[] {g.mul(g.grad(), g.sub(g.mul(g.mul(g.arg(0), g.result()), 2.0), 2 / Math.sqrt(Math.PI)))});

    /**
     * {@code log} of the standard normal distribution function (torch.special.log_ndtr), as ATen's
     * calc_log_ndtr: {@code log(erfcx(−t)/2) − t²} with t = x/√2 below x = −1 (finite far into the
     * left tail), {@code log1p(−erfc(t)/2)} above. d/dx = {@code e^(−x²/2 − result)/√(2π)}, ATen's.
     */
    public static final OpOverload SPECIAL_LOG_NDTR = special("special_log_ndtr(Tensor self) -> Tensor", MathOps::logNdtr,
            g -> new Object[] {g.mul(g.grad(), g.div(g.call(PointwiseOps.EXP, g.neg(g.add(g.result(), g.div(g.mul(g.arg(0), g.arg(0)), 2.0)))), Math.sqrt(2 * Math.PI)))});

    /** The modified Bessel function of the first kind, order 0 (torch.i0); d/dx = i1(x). */
    public static final OpOverload I0 = special("i0(Tensor self) -> Tensor", x -> besselI(0, x, false),
            g -> new Object[] {g.mul(g.grad(), g.call(MathOps.SPECIAL_I1, g.arg(0)))});

    /** {@code e^(−|x|)·I₀(x)}, finite where I₀ overflows (torch.special.i0e); d/dx = i1e(x) − sgn(x)·i0e(x), ATen's. */
    public static final OpOverload SPECIAL_I0E = special("special_i0e(Tensor self) -> Tensor", x -> besselI(0, x, true),
            g -> new Object[] {g.mul(g.grad(), g.sub(g.call(MathOps.SPECIAL_I1E, g.arg(0)), g.mul(g.call(PointwiseOps.SIGN, g.arg(0)), g.result())))});

    /** The modified Bessel function of the first kind, order 1 (torch.special.i1); d/dx = i0(x) − i1(x)/x (½ at 0), ATen's i1_backward. */
    public static final OpOverload SPECIAL_I1 = special("special_i1(Tensor self) -> Tensor", x -> besselI(1, x, false),
            g -> new Object[] {g.mul(g.grad(), g.where(g.call(PointwiseOps.EQ_SCALAR, g.arg(0), 0L), 0.5,
                    g.sub(g.call(MathOps.I0, g.arg(0)), g.div(g.result(), g.arg(0)))))});

    /** {@code e^(−|x|)·I₁(x)} (torch.special.i1e); d/dx = i0e(x) − i1e(x)·(sgn(x) + 1/x) (½ at 0), ATen's i1e_backward. */
    public static final OpOverload SPECIAL_I1E = special("special_i1e(Tensor self) -> Tensor", x -> besselI(1, x, true),
            g -> new Object[] {g.mul(g.grad(), g.where(g.call(PointwiseOps.EQ_SCALAR, g.arg(0), 0L), 0.5,
                    g.sub(g.call(MathOps.SPECIAL_I0E, g.arg(0)), g.mul(g.result(), g.add(g.call(PointwiseOps.SIGN, g.arg(0)), g.call(PointwiseOps.RECIPROCAL, g.arg(0)))))))});

    /**
     * {@code I_ν(x)} for ν = 0 or 1 (odd in x for ν = 1), or {@code e^(−|x|)·I_ν(x)} when {@code scaled}:
     * the power series {@code Σ (x/2)^(2k+ν) / (k!·(k+ν)!)} (positive terms, so no cancellation) up to
     * |x| = 30, beyond it the asymptotic series {@code e^x/√(2πx) · Σ (−1)^k ∏(4ν² − (2j−1)²) / (k!·(8x)^k)}
     * summed while its terms fall (unscaled, e^x times it: +inf where e^x overflows, as ATen's).
     */
    private static double besselI(int nu, double x, boolean scaled) {
        if (Double.isNaN(x)) return x;
        double ax = Math.abs(x), sign = nu == 1 && x < 0 ? -1 : 1;
        // ATen's Chebyshev form e^x · c / √x is inf / inf there: NaN unscaled, ±0 scaled
        if (Double.isInfinite(ax)) return scaled ? sign * 0.0 : Double.NaN;
        double value;
        if (ax <= 30) {
            double q = ax * ax / 4, term = nu == 0 ? 1 : ax / 2, sum = term;
            for (int k = 1; term > 1e-17 * sum; k++) {
                term *= q / (k * (double) (k + nu));
                sum += term;
            }
            value = scaled ? sum * Math.exp(-ax) : sum;
        } else {
            double term = 1, sum = 1, mu = 4.0 * nu * nu;
            for (int k = 1; k < 200; k++) {
                double next = -term * (mu - (2 * k - 1) * (2.0 * k - 1)) / (8.0 * k * ax);
                if (Math.abs(next) >= Math.abs(term) || Math.abs(next) < 1e-17 * Math.abs(sum)) break;
                term = next;
                sum += term;
            }
            double base = sum / (Math.sqrt(2 * Math.PI) * Math.sqrt(ax));   // √(2π·x) would overflow for x near the largest double
            // e^x first, as ATen's: +inf from x ≈ 709.8, where e^x overflows (I(x) itself would last to ≈ 713.9)
            value = scaled ? base : Math.exp(ax) * base;
        }
        return sign * value;
    }

    private static double erfcx(double x) {
        if (Double.isNaN(x)) return x;
        if (x < 26) return Math.exp(x * x) * dev.ember.ops.eager.Special.erfc(x);
        if (Double.isInfinite(x)) return 0;
        // e^(x²)·erfc(x) ~ 1/(x√π) · Σ (−1)^k (2k−1)!! / (2x²)^k, whose terms fall below 1e-16 of the first by k = 7 at x ≥ 26
        double inverse = 1 / (2 * x * x), term = 1, sum = 1;
        for (int k = 1; k <= 8; k++) {
            term *= -(2 * k - 1) * inverse;
            sum += term;
        }
        return sum / (x * Math.sqrt(Math.PI));
    }

    private static double logNdtr(double x) {
        double t = x * Math.sqrt(0.5);
        return x < -1 ? Math.log(erfcx(-t) / 2) - t * t : Math.log1p(-dev.ember.ops.eager.Special.erfc(t) / 2);
    }

    /** {@code log|Γ(x)|} (+inf at the poles); d/dx = digamma(x). */
    public static final OpOverload LGAMMA = special("lgamma(Tensor self) -> Tensor", dev.ember.ops.eager.Special::lgamma,
            g -> new Object[] {g.mul(g.grad(), g.call(MathOps.DIGAMMA, g.arg(0)))});

    /** ψ(x) = d/dx log Γ(x) (∓inf at ±0, NaN at the negative integers, as ATen's); d/dx = polygamma(1, x). */
    public static final OpOverload DIGAMMA = special("digamma(Tensor self) -> Tensor", dev.ember.ops.eager.Special::digamma,
            g -> new Object[] {g.mul(g.grad(), g.call(MathOps.POLYGAMMA, 1L, g.arg(0)))});

    /**
     * The n-th derivative of digamma: digamma (n = 0), trigamma (n = 1), and beyond, as ATen's,
     * {@code (−1)^(n+1)·n!·ζ(n + 1, x)} (the Hurwitz zeta); d/dx = polygamma(n + 1, x).
     */
    public static final OpOverload POLYGAMMA = OpOverload.define("polygamma(int n, Tensor self) -> Tensor")
            .meta(a -> {
                if (a.lng(0) < 0) throw new IllegalArgumentException("polygamma(n, x) does not support negative n.");
                Tensor self = a.tensor(1);
                return TensorMeta.contiguous(TypePromotion.toFloating(self.dtype()), self.shape());
            })
            .kernel((a, m) -> elementwise(a.tensor(1), (TensorMeta) m, polygamma(a.lng(0))))
            .derivative(g -> new Object[] {null, g.mul(g.grad(), g.call(MathOps.POLYGAMMA, ((Number) g.value(0)).longValue() + 1, g.arg(1)))})
            .register();

    private static java.util.function.DoubleUnaryOperator polygamma(long n) {
        if (n == 0) return dev.ember.ops.eager.Special::digamma;
        if (n == 1) return dev.ember.ops.eager.Special::trigamma;
        double factor = (n % 2 == 1 ? 1 : -1) * Math.exp(dev.ember.ops.eager.Special.lgamma(n + 1.0));
        return x -> factor * dev.ember.ops.eager.CephesFunctions.zeta(n + 1.0, x);
    }

    /** An elementwise special function of one tensor, computed in double and rounded to the result dtype (self's, or the default float for integers). */
    static OpOverload special(String schema, java.util.function.DoubleUnaryOperator fn, Derivative derivative) {
        return OpOverload.define(schema)
                .meta(a -> TensorMeta.contiguous(TypePromotion.toFloating(a.tensor(0).dtype()), a.tensor(0).shape()))
                .kernel((a, m) -> elementwise(a.tensor(0), (TensorMeta) m, fn))
                .derivative(derivative)
                .register();
    }

    static Tensor elementwise(Tensor self, TensorMeta meta, java.util.function.DoubleUnaryOperator fn) {
        // the input in the result's dtype first, as ATen's TensorIterator casts it: an int64 is rounded to float32 before f sees it
        double[] v = self.to(meta.dtype()).toDoubleArray();
        for (int i = 0; i < v.length; i++) v[i] = fn.applyAsDouble(v[i]);
        Tensor out = Tensor.allocate(meta);
        dev.ember.ops.eager.Copy.copy(Tensor.of(v, self.shape()), out);
        return out;
    }

    /**
     * {@code log(exp(a) + exp(b))} without overflow, ATen's formula: {@code max + log1p(exp(-|a - b|))},
     * and {@code a} itself where both are the same infinity (where the formula would give NaN).
     */
    public static final OpOverload LOGADDEXP = ComposedOps.define("logaddexp(Tensor self, Tensor other) -> Tensor",
            a -> floatingBinary(a, "logaddexp_cpu"), (e, a) -> logAddExp(e, a, false));

    /** {@code log2(2^a + 2^b)}: {@code max + log1p(2^-|a - b|) / ln 2}, and {@code a} where both are the same infinity. */
    public static final OpOverload LOGADDEXP2 = ComposedOps.define("logaddexp2(Tensor self, Tensor other) -> Tensor",
            a -> floatingBinary(a, "logaddexp2_cpu"), (e, a) -> logAddExp(e, a, true));

    /**
     * {@code sqrt(a² + b²)} without overflow or underflow in between, as C's hypot: float32 inputs
     * are squared and summed in float64 and rounded once; float64 ones are scaled by the larger
     * magnitude first ({@code m · sqrt(1 + (n / m)²)}), and an infinite side gives +inf even beside
     * NaN, as C's. Its gradient is ATen's {@code grad · a / hypot} (NaN at the origin, as ATen's),
     * not its decomposition's (which goes through float64 and selects).
     */
    public static final OpOverload HYPOT = ComposedOps.composed("hypot(Tensor self, Tensor other) -> Tensor",
                    a -> {
                        floatingBinary(a, "hypot_cpu");
                        return TensorMeta.contiguous(TypePromotion.resultType(a.tensor(0), a.tensor(1)),
                                Shapes.broadcast("hypot", a.tensor(0).shape(), a.tensor(1).shape()));
                    },
                    MathOps::hypot)
            .tags(Tag.POINTWISE)
            .derivative(g -> new Object[] {
                    g.needs(0) ? g.div(g.mul(g.grad(), g.arg(0)), g.result()) : null,
                    g.needs(1) ? g.div(g.mul(g.grad(), g.arg(1)), g.result()) : null})
            .register();

    /**
     * {@code self · log(other)}, 0 where {@code self} is 0 (even where other is 0 or inf), NaN where
     * {@code other} is NaN: ATen's xlogy. Integers and bools are computed in the default float dtype.
     * Its derivative is ATen's: {@code log(other)} for self (x·log y is linear in x, so at x = 0 too,
     * except where other ≤ 0, where it is 0) and {@code self / other} for other.
     */
    public static final OpOverload XLOGY = ComposedOps.composed("xlogy.Tensor(Tensor self, Tensor other) -> Tensor",
                    a -> TensorMeta.contiguous(TypePromotion.toFloating(TypePromotion.resultType(a.tensor(0), a.tensor(1))),
                            Shapes.broadcast("xlogy", a.tensor(0).shape(), a.tensor(1).shape())),
                    (e, a) -> xlogy(e, a[0], a[1], TypePromotion.resultType(new FakeTensor(e.meta(a[0])), new FakeTensor(e.meta(a[1])))))
            .tags(Tag.POINTWISE)
            .derivative(g -> new Object[] {
                    g.needs(0) ? xlogySelfGrad(g, g.call(PointwiseOps.LE_SCALAR, g.arg(1), 0L), g.call(MathOps.XLOGY, g.grad(), g.arg(1))) : null,
                    g.needs(1) ? g.div(g.mul(g.grad(), g.arg(0)), g.arg(1)) : null})
            .register();

    /** xlogy with a number for {@code other}; the number promotes as a Python scalar does and is made in the result's dtype. */
    public static final OpOverload XLOGY_SCALAR_OTHER = ComposedOps.composed("xlogy.Scalar_Other(Tensor self, Scalar other) -> Tensor",
                    a -> TensorMeta.contiguous(TypePromotion.toFloating(TypePromotion.resultType(a.tensor(0), a.scalar(1))), a.tensor(0).shape()),
                    (e, a) -> {
                        DType common = TypePromotion.toFloating(TypePromotion.resultType(new FakeTensor(e.meta(a[0])), a[1]));
                        return xlogy(e, a[0], e.call(CreationOps.FULL, new int[0], a[1], common), common);
                    })
            .tags(Tag.POINTWISE)
            .derivative(g -> new Object[] {xlogySelfGrad(g, ((Number) g.value(1)).doubleValue() <= 0 ? Boolean.TRUE : null,
                    g.call(MathOps.XLOGY_SCALAR_OTHER, g.grad(), g.value(1)))})
            .register();

    /**
     * {@code self · log1p(other)}, 0 where self is 0, NaN where other is NaN: torch.special.xlog1py
     * (xlogy's sibling). Its derivative is ATen's: {@code log1p(other)} for self (0 where self is 0
     * and other ≤ −1), {@code self / (other + 1)} for other.
     */
    public static final OpOverload SPECIAL_XLOG1PY = ComposedOps.composed("special_xlog1py(Tensor self, Tensor other) -> Tensor",
                    a -> TensorMeta.contiguous(TypePromotion.toFloating(TypePromotion.resultType(a.tensor(0), a.tensor(1))),
                            Shapes.broadcast("special_xlog1py", a.tensor(0).shape(), a.tensor(1).shape())),
                    (e, a) -> {
                        DType common = TypePromotion.toFloating(TypePromotion.resultType(new FakeTensor(e.meta(a[0])), new FakeTensor(e.meta(a[1]))));
                        Object x = converted(e, a[0], common), y = converted(e, a[1], common);
                        Object product = e.call(PointwiseOps.MUL_TENSOR, x, e.call(PointwiseOps.LOG1P, y));
                        Object atZero = e.call(PointwiseOps.WHERE_SCALAR_SELF, e.call(PointwiseOps.EQ_SCALAR, x, 0L), 0.0, product);
                        return e.call(PointwiseOps.WHERE_SCALAR_SELF, e.call(PointwiseOps.ISNAN, y), Double.NaN, atZero);
                    })
            .tags(Tag.POINTWISE)
            .derivative(g -> new Object[] {
                    g.needs(0) ? xlogySelfGrad(g, g.call(PointwiseOps.LE_SCALAR, g.arg(1), -1L), g.call(MathOps.SPECIAL_XLOG1PY, g.grad(), g.arg(1))) : null,
                    g.needs(1) ? g.div(g.mul(g.grad(), g.arg(0)), g.add(g.arg(1), 1.0)) : null})
            .register();

    /**
     * The entropy term {@code −x·log(x)}: 0 at 0, −inf below 0, NaN at NaN (torch.special.entr);
     * integers in the default float. Its derivative is ATen's {@code −(1 + log x)} (+inf at 0).
     */
    public static final OpOverload SPECIAL_ENTR = ComposedOps.composed("special_entr(Tensor self) -> Tensor",
                    a -> TensorMeta.contiguous(TypePromotion.toFloating(a.tensor(0).dtype()), a.tensor(0).shape()),
                    (e, a) -> {
                        Object x = converted(e, a[0], TypePromotion.toFloating(e.meta(a[0]).dtype()));
                        Object positive = e.call(PointwiseOps.NEG, e.call(PointwiseOps.MUL_TENSOR, x, e.call(PointwiseOps.LOG, x)));
                        Object nonPositive = e.call(PointwiseOps.WHERE_SCALAR_SELF, e.call(PointwiseOps.EQ_SCALAR, x, 0L), 0.0,
                                e.call(PointwiseOps.WHERE_SCALAR_SELF, e.call(PointwiseOps.LT_SCALAR, x, 0L), Double.NEGATIVE_INFINITY, x));
                        return e.call(PointwiseOps.WHERE_SELF, e.call(PointwiseOps.GT_SCALAR, x, 0L), positive, nonPositive);
                    })
            .tags(Tag.POINTWISE)
            .derivative(g -> new Object[] {g.mul(g.grad(), g.neg(g.add(g.call(PointwiseOps.LOG, g.arg(0)), 1.0)))})
            .register();

    /** The standard normal's distribution function {@code ½·erfc(−x/√2)} (torch.special.ndtr; accurate in both tails). */
    public static final OpOverload SPECIAL_NDTR = ComposedOps.composed("special_ndtr(Tensor self) -> Tensor",
                    a -> TensorMeta.contiguous(TypePromotion.toFloating(a.tensor(0).dtype()), a.tensor(0).shape()),
                    (e, a) -> {
                        Object x = converted(e, a[0], TypePromotion.toFloating(e.meta(a[0]).dtype()));
                        return e.call(PointwiseOps.MUL_SCALAR, e.call(MathOps.ERFC, e.call(PointwiseOps.MUL_SCALAR, x, -Math.sqrt(0.5))), 0.5);
                    })
            .tags(Tag.POINTWISE)
            .register();

    /** ATen's {@code xlogy(grad, other).masked_fill((self == 0) & (other <= 0), 0)}; {@code otherNotPositive} a bool tensor, TRUE, or null for never. */
    private static Object xlogySelfGrad(Grad g, Object otherNotPositive, Object grad) {
        if (otherNotPositive == null) return grad;
        Object selfZero = g.call(PointwiseOps.EQ_SCALAR, g.arg(0), 0L);
        Object mask = otherNotPositive == Boolean.TRUE ? selfZero : g.call(PointwiseOps.LOGICAL_AND, selfZero, otherNotPositive);
        return g.where(mask, 0.0, grad);
    }

    /**
     * Elementwise {@code |self - other| <= atol + rtol·|other|}, or equal (infinities equal only to
     * themselves), or both NaN with {@code equal_nan}: ATen's isclose, its checks and its arithmetic
     * (bools compared in the default float dtype).
     */
    public static final OpOverload ISCLOSE = ComposedOps.define("isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> Tensor",
            a -> {
                if (a.tensor(0).dtype() != a.tensor(1).dtype()) {
                    throw new IllegalArgumentException("isclose: " + a.tensor(0).dtype().scalarTypeName() + " did not match "
                            + a.tensor(1).dtype().scalarTypeName());
                }
                if (!(a.dbl(2) >= 0)) throw new IllegalArgumentException("isclose: rtol must be greater than or equal to zero, but got " + cppDouble(a.dbl(2)));
                if (!(a.dbl(3) >= 0)) throw new IllegalArgumentException("isclose: atol must be greater than or equal to zero, but got " + cppDouble(a.dbl(3)));
            },
            MathOps::isclose);

    // ------------------------------------------------------------------ everyday pointwise ops (session 34, ops8)

    /**
     * {@code |self|} with the sign of {@code other}, in the promoted floating dtype (integers and
     * bools computed in the default float): ATen's copysign, -0.0 counting as negative. (A NaN's own
     * sign bit is not read: a NaN {@code other} counts as positive, as the NaNs ATen makes are.)
     * Its gradient is ATen's: {@code grad · result / self}, 0 where self is 0, and zeros for other.
     */
    public static final OpOverload COPYSIGN = ComposedOps.composed("copysign.Tensor(Tensor self, Tensor other) -> Tensor",
                    a -> TensorMeta.contiguous(TypePromotion.toFloating(TypePromotion.resultType(a.tensor(0), a.tensor(1))),
                            Shapes.broadcast("copysign", a.tensor(0).shape(), a.tensor(1).shape())),
                    (e, a) -> {
                        DType dtype = TypePromotion.toFloating(TypePromotion.resultType(new FakeTensor(e.meta(a[0])), new FakeTensor(e.meta(a[1]))));
                        Object magnitude = e.call(PointwiseOps.ABS, cast(e, a[0], dtype));
                        return e.call(PointwiseOps.WHERE_SELF, signBit(e, cast(e, a[1], dtype)), e.call(PointwiseOps.NEG, magnitude), magnitude);
                    })
            .tags(Tag.POINTWISE)
            .derivative(g -> new Object[] {g.needs(0) ? copysignSelfGrad(g) : null, g.needs(1) ? g.zeros(g.argMeta(1)) : null})
            .register();

    /** copysign with a number for {@code other}, which promotes as a Python scalar: {@code |self|} or {@code -|self|}. */
    public static final OpOverload COPYSIGN_SCALAR = ComposedOps.composed("copysign.Scalar(Tensor self, Scalar other) -> Tensor",
                    a -> TensorMeta.contiguous(TypePromotion.toFloating(TypePromotion.resultType(a.tensor(0), a.scalar(1))), a.tensor(0).shape()),
                    (e, a) -> {
                        DType dtype = TypePromotion.toFloating(TypePromotion.resultType(new FakeTensor(e.meta(a[0])), a[1]));
                        Object magnitude = e.call(PointwiseOps.ABS, cast(e, a[0], dtype));
                        double sign = a[1] instanceof Boolean ? 1 : ((Number) a[1]).doubleValue();
                        return sign < 0 || sign == 0 && 1 / sign < 0 ? e.call(PointwiseOps.NEG, magnitude) : magnitude;
                    })
            .tags(Tag.POINTWISE)
            .derivative(g -> new Object[] {copysignSelfGrad(g)})
            .register();

    /** ATen's copysign_tensor_self_backward: {@code grad · result / self}, 0 where self is 0. */
    private static Object copysignSelfGrad(Grad g) {
        return g.where(g.call(PointwiseOps.EQ_SCALAR, g.arg(0), 0L), 0.0, g.mul(g.grad(), g.div(g.result(), g.arg(0))));
    }

    /**
     * Whether the sign bit is set: {@code x < 0}, and -0.0 (a bool: never). Read arithmetically
     * ({@code 1 / -0.0 = -inf}), so a NaN counts as positive whatever its bit.
     */
    public static final OpOverload SIGNBIT = ComposedOps.composed("signbit(Tensor self) -> Tensor",
                    a -> TensorMeta.contiguous(DType.BOOL, a.tensor(0).shape()), (e, a) -> signBit(e, a[0]))
            .tags(Tag.POINTWISE).register();

    private static Object signBit(OpEmitter e, Object x) {
        DType dtype = e.meta(x).dtype();
        if (dtype == DType.BOOL) return e.call(PointwiseOps.NE_TENSOR, x, x);
        Object negative = e.call(PointwiseOps.LT_SCALAR, x, 0L);
        if (!dtype.isFloatingPoint()) return negative;
        Object negativeZero = e.call(PointwiseOps.LOGICAL_AND, e.call(PointwiseOps.EQ_SCALAR, x, 0L), e.call(PointwiseOps.LT_SCALAR, e.call(PointwiseOps.RECIPROCAL, x), 0L));
        return e.call(PointwiseOps.LOGICAL_OR, negative, negativeZero);
    }

    /** The sign of a number (ATen's sgn: the complex-aware sign; for real dtypes it is sign, whose gradient is zero). */
    public static final OpOverload SGN = ComposedOps.define("sgn(Tensor self) -> Tensor", (e, a) -> e.call(PointwiseOps.SIGN, a[0]));

    /** Unary plus: the tensor itself (ATen returns self), bools refused as ATen refuses {@code +} on them. */
    public static final OpOverload POSITIVE = ComposedOps.define("positive(Tensor(a) self) -> Tensor(a)",
            a -> {
                if (a.tensor(0).dtype() == DType.BOOL) throw new IllegalArgumentException("positive: The `+` operator, on a bool tensor is not supported.");
            },
            (e, a) -> a[0]);

    /** torch.true_divide, ATen's alias of div without a rounding mode (integers divide to the default float). */
    public static final OpOverload TRUE_DIVIDE_TENSOR = ComposedOps.define("true_divide.Tensor(Tensor self, Tensor other) -> Tensor",
            (e, a) -> e.call(PointwiseOps.DIV_TENSOR, a[0], a[1]));

    /** {@link #TRUE_DIVIDE_TENSOR} by a number. */
    public static final OpOverload TRUE_DIVIDE_SCALAR = ComposedOps.define("true_divide.Scalar(Tensor self, Scalar other) -> Tensor",
            (e, a) -> e.call(PointwiseOps.DIV_SCALAR, a[0], a[1]));

    private static Object cast(OpEmitter e, Object x, DType dtype) { return e.meta(x).dtype() == dtype ? x : e.call(ShapeOps.TO_COPY, x, dtype); }

    /**
     * {@code log(z / (1 - z))} with {@code z} = self clamped to [eps, 1 − eps] (not clamped when eps
     * is None or negative), in the floating dtype. ATen's derivative: {@code grad / (x (1 − x))},
     * 0 outside [eps, 1 − eps], or NaN outside [0, 1] without eps.
     */
    public static final OpOverload LOGIT = ComposedOps.composed("logit(Tensor self, float? eps=None) -> Tensor",
                    a -> TensorMeta.contiguous(TypePromotion.toFloating(a.tensor(0).dtype()), a.tensor(0).shape()),
                    (e, a) -> {
                        Object x = cast(e, a[0], TypePromotion.toFloating(e.meta(a[0]).dtype()));
                        Double eps = a[1] == null ? null : ((Number) a[1]).doubleValue();
                        Object z = eps == null || eps < 0 ? x : e.call(PointwiseOps.CLAMP, x, eps, 1 - eps);
                        return e.call(PointwiseOps.LOG, e.call(PointwiseOps.DIV_TENSOR, z, e.call(PointwiseOps.RSUB_SCALAR, z, 1L)));
                    })
            .tags(Tag.POINTWISE)
            .derivative(g -> {
                Object x = g.arg(0);
                Double eps = g.value(1) == null ? null : ((Number) g.value(1)).doubleValue();
                boolean clamped = eps != null && eps >= 0;
                double lo = clamped ? eps : 0, hi = clamped ? 1 - eps : 1;
                Object outside = g.call(PointwiseOps.LOGICAL_OR, g.call(PointwiseOps.LT_SCALAR, x, lo), g.call(PointwiseOps.GT_SCALAR, x, hi));
                return new Object[] {g.where(outside, clamped ? 0.0 : Double.NaN, g.div(g.grad(), g.mul(x, g.oneMinus(x))))};
            })
            .register();

    /**
     * The normalized sinc, {@code sin(πx) / (πx)}, and 1 at 0, in the floating dtype. Its derivative
     * is ATen's: {@code (πx cos(πx) − sin(πx)) / (πx²)}, 0 at 0 (where the decomposition's unused
     * branch would give 0/0).
     */
    public static final OpOverload SINC = ComposedOps.composed("sinc(Tensor self) -> Tensor",
                    a -> TensorMeta.contiguous(TypePromotion.toFloating(a.tensor(0).dtype()), a.tensor(0).shape()),
                    (e, a) -> {
                        Object x = cast(e, a[0], TypePromotion.toFloating(e.meta(a[0]).dtype()));
                        Object px = e.call(PointwiseOps.MUL_SCALAR, x, Math.PI);
                        return e.call(PointwiseOps.WHERE_SCALAR_SELF, e.call(PointwiseOps.EQ_SCALAR, x, 0L), 1.0,
                                e.call(PointwiseOps.DIV_TENSOR, e.call(PointwiseOps.SIN, px), px));
                    })
            .tags(Tag.POINTWISE)
            .derivative(g -> {
                Object x = g.arg(0), px = g.mul(x, Math.PI);
                Object slope = g.div(g.sub(g.mul(px, g.call(PointwiseOps.COS, px)), g.call(PointwiseOps.SIN, px)), g.mul(px, x));
                return new Object[] {g.where(g.call(PointwiseOps.EQ_SCALAR, x, 0L), 0.0, g.mul(g.grad(), slope))};
            })
            .register();

    /**
     * The Heaviside step: 0 where self < 0 (and at NaN), 1 where self > 0, {@code values} where self
     * is 0; both of one dtype, as ATen requires. Not differentiable, as ATen's.
     */
    public static final OpOverload HEAVISIDE = ComposedOps.composed("heaviside(Tensor self, Tensor values) -> Tensor",
                    a -> {
                        if (a.tensor(0).dtype() != a.tensor(1).dtype()) {
                            throw new IllegalArgumentException("heaviside: heaviside is not yet implemented for tensors with different dtypes");
                        }
                        return TensorMeta.contiguous(a.tensor(0).dtype(), Shapes.broadcast("heaviside", a.tensor(0).shape(), a.tensor(1).shape()));
                    },
                    (e, a) -> {
                        DType dtype = e.meta(a[0]).dtype();
                        Object step = cast(e, e.call(PointwiseOps.GT_SCALAR, a[0], 0L), dtype);
                        return e.call(PointwiseOps.WHERE_SELF, e.call(PointwiseOps.EQ_SCALAR, a[0], 0L), a[1], step);
                    })
            .tags(Tag.POINTWISE)
            // ATen has no derivative for heaviside; differentiating through the decomposition would give values gradients PyTorch refuses
            .derivative(g -> { throw new UnsupportedOperationException("heaviside: derivative for aten::heaviside is not implemented"); })
            .register();

    /** The larger of two numbers, NaN only where both are (C's fmax); integers and bools as maximum. */
    public static final OpOverload FMAX = nanIgnoringExtremum("fmax(Tensor self, Tensor other) -> Tensor", true);

    /** The smaller of two numbers, NaN only where both are (C's fmin); integers and bools as minimum. */
    public static final OpOverload FMIN = nanIgnoringExtremum("fmin(Tensor self, Tensor other) -> Tensor", false);

    /**
     * fmax or fmin: maximum/minimum with a NaN side ignored. ATen's derivative, not the
     * decomposition's: the whole gradient goes to self where self wins or ties (or other is NaN),
     * to other elsewhere.
     */
    private static OpOverload nanIgnoringExtremum(String schema, boolean max) {
        String op = max ? "fmax" : "fmin";
        return ComposedOps.composed(schema,
                        a -> {
                            DType dtype = TypePromotion.resultType(a.tensor(0), a.tensor(1));
                            return TensorMeta.contiguous(dtype, Shapes.broadcast(op, a.tensor(0).shape(), a.tensor(1).shape()));
                        },
                        (e, a) -> {
                            DType dtype = TypePromotion.resultType(new FakeTensor(e.meta(a[0])), new FakeTensor(e.meta(a[1])));
                            Object x = cast(e, a[0], dtype), y = cast(e, a[1], dtype);
                            Object extremum = e.call(max ? PointwiseOps.MAXIMUM : PointwiseOps.MINIMUM, x, y);
                            if (!dtype.isFloatingPoint()) return extremum;
                            Object unlessXNan = e.call(PointwiseOps.WHERE_SELF, e.call(PointwiseOps.ISNAN, x), y, extremum);
                            return e.call(PointwiseOps.WHERE_SELF, e.call(PointwiseOps.ISNAN, y), x, unlessXNan);
                        })
                .tags(Tag.POINTWISE)
                .derivative(g -> {
                    Object selfWins = g.call(PointwiseOps.LOGICAL_OR, g.call(max ? PointwiseOps.GE_TENSOR : PointwiseOps.LE_TENSOR, g.arg(0), g.arg(1)),
                            g.call(PointwiseOps.ISNAN, g.arg(1)));
                    return new Object[] {g.needs(0) ? g.where(selfWins, g.grad(), 0.0) : null, g.needs(1) ? g.where(selfWins, 0.0, g.grad()) : null};
                })
                .register();
    }

    // in-place forms: the functional op's decomposition written into self (its dtype must hold the result, as ATen's)
    public static final OpOverload COPYSIGN__TENSOR = PointwiseOps.composedInPlace("copysign_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", COPYSIGN);
    public static final OpOverload COPYSIGN__SCALAR = PointwiseOps.composedInPlace("copysign_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", COPYSIGN_SCALAR);
    public static final OpOverload LOGIT_ = PointwiseOps.composedInPlace("logit_(Tensor(a!) self, float? eps=None) -> Tensor(a!)", LOGIT);
    public static final OpOverload SINC_ = PointwiseOps.composedInPlace("sinc_(Tensor(a!) self) -> Tensor(a!)", SINC);
    public static final OpOverload HEAVISIDE_ = PointwiseOps.composedInPlace("heaviside_(Tensor(a!) self, Tensor values) -> Tensor(a!)", HEAVISIDE);

    /** The greatest common divisor of integers, always ≥ 0 (gcd(0, 0) = 0), by Euclid's algorithm as ATen's. */
    public static final OpOverload GCD = integerBinary("gcd(Tensor self, Tensor other) -> Tensor", MathOps::gcd, (x, y) -> (int) gcd(x, y));

    /** The least common multiple of integers, {@code |a / gcd · b|}, 0 where either is 0; it wraps on overflow in the dtype, as ATen's. */
    public static final OpOverload LCM = integerBinary("lcm(Tensor self, Tensor other) -> Tensor",
            (x, y) -> { long g = gcd(x, y); return g == 0 ? 0 : Math.abs(x / g * y); },
            (x, y) -> { int g = (int) gcd(x, y); return g == 0 ? 0 : Math.abs(x / g * y); });

    /**
     * {@code self << other} in the dtype's bits, ATen's lshift: 0 where the shift is negative or at
     * least the width (C++ would leave it undefined), the bits shifted out dropped (it wraps).
     * Integers only; floats and bools are refused as ATen's "lshift_cpu" refuses them.
     */
    public static final OpOverload BITWISE_LEFT_SHIFT_TENSOR = shift("bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor", true);
    public static final OpOverload BITWISE_LEFT_SHIFT_TENSOR_SCALAR = shift("bitwise_left_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor", true);
    public static final OpOverload BITWISE_LEFT_SHIFT_SCALAR_TENSOR = shift("bitwise_left_shift.Scalar_Tensor(Scalar self, Tensor other) -> Tensor", true);

    /**
     * {@code self >> other}, arithmetic (the sign bit fills), ATen's rshift: a negative shift or one
     * of at least the width less one shifts by the width less one (0 or −1).
     */
    public static final OpOverload BITWISE_RIGHT_SHIFT_TENSOR = shift("bitwise_right_shift.Tensor(Tensor self, Tensor other) -> Tensor", false);
    public static final OpOverload BITWISE_RIGHT_SHIFT_TENSOR_SCALAR = shift("bitwise_right_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor", false);
    public static final OpOverload BITWISE_RIGHT_SHIFT_SCALAR_TENSOR = shift("bitwise_right_shift.Scalar_Tensor(Scalar self, Tensor other) -> Tensor", false);

    /** ATen's lshift_kernel / rshift_kernel for a signed integer of {@code bits} bits. */
    private static long shifted(long x, long by, int bits, boolean left) {
        if (left) {
            if (by < 0 || by >= bits) return 0;
            long v = x << by;
            return bits == 32 ? (int) v : v;
        }
        return by < 0 || by >= bits - 1 ? x >> (bits - 1) : x >> by;
    }

    private static OpOverload shift(String schema, boolean left) {
        return OpOverload.define(schema)
                .tags(Tag.POINTWISE)
                .meta(a -> {
                    String op = a.op().schema().name();
                    DType dtype = TypePromotion.resultType(a.get(0), a.get(1));
                    if (!dtype.isIntegral()) {
                        throw new IllegalArgumentException(op + ": \"" + (left ? "lshift" : "rshift") + "_cpu\" not implemented for '" + dtype.scalarTypeName() + "'");
                    }
                    return TensorMeta.contiguous(dtype, Shapes.broadcast(op, shapeOf(a.get(0)), shapeOf(a.get(1))));
                })
                .kernel((a, m) -> {
                    TensorMeta meta = (TensorMeta) m;
                    int bits = meta.dtype() == DType.INT32 ? 32 : 64;
                    long[] x = longsIn(a.get(0), meta), y = longsIn(a.get(1), meta);
                    long[] v = new long[meta.numel()];
                    for (int i = 0; i < v.length; i++) v[i] = shifted(x[i], y[i], bits, left);
                    Tensor out = Tensor.allocate(meta);
                    dev.ember.ops.eager.Copy.copy(Tensor.of(v, meta.shape()), out);
                    return out;
                })
                .register();
    }

    private static int[] shapeOf(Object operand) { return operand instanceof Tensor t ? t.shape() : new int[0]; }

    /** A tensor or a number, cast to the result's dtype as ATen casts its operands (a number wraps), then broadcast to its shape. */
    private static long[] longsIn(Object operand, TensorMeta meta) {
        long[] v;
        if (operand instanceof Tensor t) {
            v = t.expand(meta.shape()).toLongArray();
        } else {
            v = new long[meta.numel()];
            java.util.Arrays.fill(v, operand instanceof Boolean b ? (b ? 1 : 0) : ((Number) operand).longValue());
        }
        if (meta.dtype() == DType.INT32) for (int i = 0; i < v.length; i++) v[i] = (int) v[i];
        return v;
    }

    /**
     * The next float after {@code self} towards {@code other} (C's nextafter, in the promoted
     * floating dtype: float32 steps by a float32 ulp); {@code other} itself where the two are
     * equal, NaN where either is. Floats only, as ATen's "nextafter_cpu"; no derivative (ATen's
     * derivatives.yaml: not implemented).
     */
    public static final OpOverload NEXTAFTER = OpOverload.define("nextafter(Tensor self, Tensor other) -> Tensor")
            .tags(Tag.POINTWISE)
            .meta(a -> {
                floatingBinary(a, "nextafter_cpu");
                return TensorMeta.contiguous(TypePromotion.resultType(a.tensor(0), a.tensor(1)),
                        Shapes.broadcast("nextafter", a.tensor(0).shape(), a.tensor(1).shape()));
            })
            .kernel((a, m) -> {
                TensorMeta meta = (TensorMeta) m;
                double[] x = a.tensor(0).expand(meta.shape()).toDoubleArray(), y = a.tensor(1).expand(meta.shape()).toDoubleArray();
                // float32 steps from and towards float32 values (ATen casts both operands to the common dtype first)
                for (int i = 0; i < x.length; i++) x[i] = meta.dtype() == DType.FLOAT32 ? Math.nextAfter((float) x[i], (float) y[i]) : Math.nextAfter(x[i], y[i]);
                Tensor out = Tensor.allocate(meta);
                dev.ember.ops.eager.Copy.copy(Tensor.of(x, meta.shape()), out);
                return out;
            })
            .derivative(g -> { throw new UnsupportedOperationException("nextafter: the derivative for 'nextafter' is not implemented."); })
            .register();

    /** ATen's calc_gcd: both made non-negative, then Euclid. */
    private static long gcd(long a, long b) {
        a = Math.abs(a);
        b = Math.abs(b);
        while (a != 0) {
            long c = a;
            a = b % a;
            b = c;
        }
        return b;
    }

    /**
     * A pointwise op of two integer tensors (ints and longs only, as ATen's integral dispatch),
     * computed element by element in the promoted dtype's own arithmetic. Its loop has no form in
     * inductor's expressions, so inductor calls this kernel (a declared fallback); it has no gradient.
     */
    private static OpOverload integerBinary(String schema, java.util.function.LongBinaryOperator longs, java.util.function.IntBinaryOperator ints) {
        return OpOverload.define(schema)
                .tags(Tag.POINTWISE)
                .meta(a -> {
                    String op = a.op().schema().name();
                    DType dtype = TypePromotion.resultType(a.tensor(0), a.tensor(1));
                    if (!dtype.isIntegral()) throw new IllegalArgumentException(op + ": \"" + op + "_cpu\" not implemented for '" + dtype.scalarTypeName() + "'");
                    return TensorMeta.contiguous(dtype, Shapes.broadcast(op, a.tensor(0).shape(), a.tensor(1).shape()));
                })
                .kernel((a, m) -> {
                    TensorMeta meta = (TensorMeta) m;
                    long[] x = a.tensor(0).expand(meta.shape()).toLongArray(), y = a.tensor(1).expand(meta.shape()).toLongArray();
                    Tensor out = Tensor.allocate(meta);
                    if (meta.dtype() == DType.INT32) {
                        int[] v = new int[x.length];
                        for (int i = 0; i < v.length; i++) v[i] = ints.applyAsInt((int) x[i], (int) y[i]);
                        dev.ember.ops.eager.Copy.copy(Tensor.of(v, meta.shape()), out);
                    } else {
                        long[] v = new long[x.length];
                        for (int i = 0; i < v.length; i++) v[i] = longs.applyAsLong(x[i], y[i]);
                        dev.ember.ops.eager.Copy.copy(Tensor.of(v, meta.shape()), out);
                    }
                    return out;
                })
                .register();
    }

    // ------------------------------------------------------------------ differences and products

    /**
     * The {@code n}-th forward difference along {@code dim}, after {@code prepend} and {@code append}
     * are concatenated on that dim: {@code out[i] = x[i + 1] - x[i]}, {@code n} times (bools:
     * {@code !=}, as ATen's logical_xor). Each pass is one element shorter; past the length, empty.
     */
    public static final OpOverload DIFF = ComposedOps.define("diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor",
            a -> {
                if (a.tensor(0).dim() == 0) throw new IllegalArgumentException("diff: diff expects input to be at least one-dimensional");
                if (a.integer(1) < 0) throw new IllegalArgumentException("diff: order must be non-negative but got " + a.integer(1));
                Shapes.wrapDim("diff", a.integer(2), a.tensor(0).dim());
                for (int i = 3; i <= 4; i++) {
                    Tensor extra = a.optTensor(i);
                    if (extra != null && extra.dim() != a.tensor(0).dim()) {
                        throw new IllegalArgumentException("diff: diff expects prepend or append to be the same dimension as input");
                    }
                }
            },
            MathOps::diff);

    /**
     * The cross product of 3-vectors along {@code dim} (the inputs broadcast together, that dim of
     * length 3 in both), as torch.linalg.cross: {@code (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0)}.
     */
    public static final OpOverload LINALG_CROSS = ComposedOps.define("linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor",
            a -> {
                Tensor x = a.tensor(0), y = a.tensor(1);
                if (x.dim() != y.dim()) {
                    throw new IllegalArgumentException("linalg.cross: inputs must have the same number of dimensions.");
                }
                int d = Shapes.wrapDim("linalg.cross", a.integer(2), x.dim());
                if (x.size(d) != 3 || y.size(d) != 3) {
                    throw new IllegalArgumentException("linalg.cross: inputs dimension " + a.integer(2) + " must have length 3. Got " + x.size(d) + " and " + y.size(d));
                }
            },
            MathOps::cross);

    /**
     * torch.cross: linalg_cross along {@code dim}, or, without one, along the first dim of self of
     * size 3 (ATen's deprecated default, read from self's sizes, not the broadcast ones).
     */
    public static final OpOverload CROSS = ComposedOps.define("cross(Tensor self, Tensor other, int? dim=None) -> Tensor",
            a -> crossDim(a.tensor(0).shape(), a.get(2)),
            (e, a) -> e.call(LINALG_CROSS, a[0], a[1], (long) crossDim(e.meta(a[0]).shape(), a[2])));

    private static int crossDim(int[] selfShape, Object dim) {
        if (dim != null) return ((Number) dim).intValue();
        for (int d = 0; d < selfShape.length; d++) if (selfShape[d] == 3) return d;
        throw new IllegalArgumentException("no dimension of size 3 in input");
    }

    /**
     * Contracts {@code dims_self} of self with {@code dims_other} of other, pair by pair: the
     * remaining dims of self, then of other, as numpy's and ATen's tensordot; one matrix product
     * of the two permuted and flattened operands.
     */
    public static final OpOverload TENSORDOT = ComposedOps.define("tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor",
            a -> {
                int[] ds = a.ints(2), dother = a.ints(3);
                if (ds.length != dother.length) throw new IllegalArgumentException("tensordot: both dimension lists should have same length");
                boolean[] seen = new boolean[a.tensor(0).dim()], seenOther = new boolean[a.tensor(1).dim()];
                for (int i = 0; i < ds.length; i++) {
                    int s = Shapes.wrapDim("tensordot", ds[i], a.tensor(0).dim()), o = Shapes.wrapDim("tensordot", dother[i], a.tensor(1).dim());
                    if (seen[s] || seenOther[o]) throw new IllegalArgumentException("tensordot: a dim appears twice in a dimension list");
                    seen[s] = true;
                    seenOther[o] = true;
                    if (a.tensor(0).size(s) != a.tensor(1).size(o)) {
                        throw new IllegalArgumentException("tensordot: contracted dimensions need to match, but first has size " + a.tensor(0).size(s) + " in dim " + ds[i]
                                + " and second has size " + a.tensor(1).size(o) + " in dim " + dother[i]);
                    }
                }
            },
            MathOps::tensordot);

    /**
     * Coordinate grids from 0-d or 1-d tensors: output {@code i} holds tensor {@code i}'s values
     * along dim {@code i} ({@code "ij"}), or with the first two dims swapped ({@code "xy"}, numpy's
     * Cartesian indexing). PyTorch returns expanded views; these are contiguous copies of them.
     */
    public static final OpOverload MESHGRID = ComposedOps.define("meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]",
            a -> {
                List<Tensor> ts = a.tensors(0);
                if (ts.isEmpty()) throw new IllegalArgumentException("torch.meshgrid expects a non-empty TensorList");
                for (Tensor t : ts) {
                    if (t.dim() > 1) {
                        throw new IllegalArgumentException("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of shape " + Shapes.format(t.shape()));
                    }
                    if (t.dtype() != ts.get(0).dtype()) throw new IllegalArgumentException("torch.meshgrid: Expected all tensors in the tensor list to have the same dtype.");
                }
                String indexing = a.str(1);
                if (!indexing.equals("ij") && !indexing.equals("xy")) {
                    throw new IllegalArgumentException("torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: " + indexing);
                }
            },
            MathOps::meshgrid);

    // ------------------------------------------------------------------ NaN-aware and paired reductions

    /** sum with NaN counted as 0 (integers and bools have none: their sum). */
    public static final OpOverload NANSUM = ComposedOps.define("nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
            (e, a) -> e.call(ReductionOps.SUM_DIM, withoutNan(e, a[0]), a[1], a[2], a[3]));

    /** The mean of the elements that are not NaN (NaN where all are), as ATen: nansum over the count of non-NaN elements. */
    public static final OpOverload NANMEAN = ComposedOps.define("nanmean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
            a -> {
                if (!a.tensor(0).dtype().isFloatingPoint()) {
                    throw new IllegalArgumentException("nanmean(): expected input to have floating point or complex dtype but got " + a.tensor(0).dtype().scalarTypeName());
                }
            },
            (e, a) -> {
                Object count = e.call(ReductionOps.SUM_DIM, e.call(PointwiseOps.LOGICAL_NOT, e.call(PointwiseOps.ISNAN, a[0])), a[1], a[2]);
                return e.call(PointwiseOps.DIV_TENSOR, e.call(ReductionOps.SUM_DIM, withoutNan(e, a[0]), a[1], a[2], a[3]), count);
            });

    /** {@code (var, mean)} over {@code dim} in one call, each as var.correction and mean.dim compute it. */
    public static final OpOverload VAR_MEAN = ComposedOps.define("var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> (Tensor, Tensor)",
            (e, a) -> List.of(e.call(ReductionOps.VAR, a[0], a[1], a[2], a[3]), e.call(ReductionOps.MEAN_DIM, a[0], a[1], a[3])));

    /** {@code (std, mean)} over {@code dim} in one call, each as std.correction and mean.dim compute it. */
    public static final OpOverload STD_MEAN = ComposedOps.define("std_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> (Tensor, Tensor)",
            (e, a) -> List.of(e.call(ReductionOps.STD, a[0], a[1], a[2], a[3]), e.call(ReductionOps.MEAN_DIM, a[0], a[1], a[3])));

    // ------------------------------------------------------------------ decompositions

    /** A double as ATen's messages print one (C++'s default stream format: 6 significant digits, no trailing zeros): -1, 0.001, 1e-08. */
    private static String cppDouble(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) return Double.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf";
        if (v == 0) return "0";
        int exp = (int) Math.floor(Math.log10(Math.abs(v)));
        if (exp < -5 || exp >= 6) {
            String m = new java.math.BigDecimal(v / Math.pow(10, exp)).round(new java.math.MathContext(6)).stripTrailingZeros().toPlainString();
            return m + "e" + (exp < 0 ? "-" : "+") + (Math.abs(exp) < 10 ? "0" : "") + Math.abs(exp);
        }
        return new java.math.BigDecimal(v).round(new java.math.MathContext(6)).stripTrailingZeros().toPlainString();
    }

    /** ATen's binary float kernels (logaddexp, hypot) take the inputs' promoted dtype and dispatch on floating types only. */
    private static void floatingBinary(Args a, String kernel) {
        DType common = TypePromotion.resultType(a.tensor(0), a.tensor(1));
        if (!common.isFloatingPoint()) throw new IllegalArgumentException("\"" + kernel + "\" not implemented for '" + common.scalarTypeName() + "'");
    }

    /** Both operands in their promoted dtype. */
    private static Object[] promotedPair(OpEmitter e, Object x, Object y) {
        DType common = TypePromotion.resultType(new FakeTensor(e.meta(x)), new FakeTensor(e.meta(y)));
        return new Object[] {converted(e, x, common), converted(e, y, common)};
    }

    private static Object converted(OpEmitter e, Object x, DType dtype) {
        return e.meta(x).dtype() == dtype ? x : e.call(ShapeOps.TO_COPY, x, dtype);
    }

    private static Object logAddExp(OpEmitter e, Object[] a, boolean base2) {
        Object[] xy = promotedPair(e, a[0], a[1]);
        Object x = xy[0], y = xy[1];
        Object larger = e.call(PointwiseOps.MAXIMUM, x, y);
        Object gap = e.call(PointwiseOps.NEG, e.call(PointwiseOps.ABS, e.call(PointwiseOps.SUB_TENSOR, x, y)));
        Object rest = base2
                ? e.call(PointwiseOps.MUL_SCALAR, e.call(PointwiseOps.LOG1P, e.call(PointwiseOps.EXP2, gap)), 1 / Math.log(2))
                : e.call(PointwiseOps.LOG1P, e.call(PointwiseOps.EXP, gap));
        Object sameInfinity = e.call(PointwiseOps.LOGICAL_AND, e.call(PointwiseOps.ISINF, x), e.call(PointwiseOps.EQ_TENSOR, x, y));
        return e.call(PointwiseOps.WHERE_SELF, sameInfinity, x, e.call(PointwiseOps.ADD_TENSOR, larger, rest));
    }

    private static Object hypot(OpEmitter e, Object[] a) {
        Object[] xy = promotedPair(e, a[0], a[1]);
        DType dtype = e.meta(xy[0]).dtype();
        if (dtype == DType.FLOAT32) {
            // float32 squares cannot overflow float64, whose sum rounds once to float32 as C's hypotf's result does
            Object x = e.call(ShapeOps.TO_COPY, xy[0], DType.FLOAT64), y = e.call(ShapeOps.TO_COPY, xy[1], DType.FLOAT64);
            Object sum = e.call(PointwiseOps.ADD_TENSOR, e.call(PointwiseOps.MUL_TENSOR, x, x), e.call(PointwiseOps.MUL_TENSOR, y, y));
            Object root = e.call(ShapeOps.TO_COPY, e.call(PointwiseOps.SQRT, sum), DType.FLOAT32);
            return e.call(PointwiseOps.WHERE_SCALAR_SELF, eitherInfinite(e, xy), Double.POSITIVE_INFINITY, root);
        }
        Object ax = e.call(PointwiseOps.ABS, xy[0]), ay = e.call(PointwiseOps.ABS, xy[1]);
        Object big = e.call(PointwiseOps.MAXIMUM, ax, ay), small = e.call(PointwiseOps.MINIMUM, ax, ay);
        Object zeroOrInf = e.call(PointwiseOps.LOGICAL_OR, e.call(PointwiseOps.EQ_SCALAR, big, 0L), e.call(PointwiseOps.EQ_SCALAR, big, Double.POSITIVE_INFINITY));
        Object ratio = e.call(PointwiseOps.DIV_TENSOR, small, e.call(PointwiseOps.WHERE_SCALAR_SELF, zeroOrInf, 1.0, big));
        Object scaled = e.call(PointwiseOps.MUL_TENSOR, big, e.call(PointwiseOps.SQRT, e.call(PointwiseOps.ADD_SCALAR, e.call(PointwiseOps.MUL_TENSOR, ratio, ratio), 1L)));
        Object finite = e.call(PointwiseOps.WHERE_SELF, e.call(PointwiseOps.EQ_SCALAR, big, 0L), big, scaled);
        return e.call(PointwiseOps.WHERE_SCALAR_SELF, eitherInfinite(e, xy), Double.POSITIVE_INFINITY, finite);
    }

    /** C's hypot is +inf when either side is infinite, even beside NaN (which the arithmetic would propagate). */
    private static Object eitherInfinite(OpEmitter e, Object[] xy) {
        return e.call(PointwiseOps.LOGICAL_OR, e.call(PointwiseOps.ISINF, xy[0]), e.call(PointwiseOps.ISINF, xy[1]));
    }

    private static Object xlogy(OpEmitter e, Object x, Object y, DType promoted) {
        DType common = TypePromotion.toFloating(promoted);
        x = converted(e, x, common);
        y = converted(e, y, common);
        Object product = e.call(PointwiseOps.MUL_TENSOR, x, e.call(PointwiseOps.LOG, y));
        Object atZero = e.call(PointwiseOps.WHERE_SCALAR_SELF, e.call(PointwiseOps.EQ_SCALAR, x, 0L), 0.0, product);
        return e.call(PointwiseOps.WHERE_SCALAR_SELF, e.call(PointwiseOps.ISNAN, y), Double.NaN, atZero);
    }

    private static Object isclose(OpEmitter e, Object[] a) {
        Object x = a[0], y = a[1];
        double rtol = ((Number) a[2]).doubleValue(), atol = ((Number) a[3]).doubleValue();
        boolean equalNan = (Boolean) a[4];
        boolean floating = e.meta(x).dtype().isFloatingPoint();
        Object close = e.call(PointwiseOps.EQ_TENSOR, x, y);
        if (equalNan && floating) {
            close = e.call(PointwiseOps.LOGICAL_OR, close, e.call(PointwiseOps.LOGICAL_AND, e.call(PointwiseOps.ISNAN, x), e.call(PointwiseOps.ISNAN, y)));
        }
        if (rtol == 0 && atol == 0) return close;
        if (e.meta(x).dtype() == DType.BOOL) {
            x = e.call(ShapeOps.TO_COPY, x, Defaults.dtype());
            y = e.call(ShapeOps.TO_COPY, y, Defaults.dtype());
        }
        Object allowed = e.call(PointwiseOps.ADD_SCALAR, e.call(PointwiseOps.ABS, e.call(PointwiseOps.MUL_SCALAR, y, rtol)), atol);
        Object actual = e.call(PointwiseOps.ABS, e.call(PointwiseOps.SUB_TENSOR, x, y));
        Object within = e.call(PointwiseOps.LOGICAL_AND, e.call(PointwiseOps.ISFINITE, actual), e.call(PointwiseOps.LE_TENSOR, actual, allowed));
        return e.call(PointwiseOps.LOGICAL_OR, close, within);
    }

    private static Object diff(OpEmitter e, Object[] a) {
        int n = ((Number) a[1]).intValue();
        int d = Shapes.wrapDim("diff", ((Number) a[2]).intValue(), e.meta(a[0]).dim());
        Object x = a[0];
        if (a[3] != null || a[4] != null) {
            List<Object> parts = new ArrayList<>();
            if (a[3] != null) parts.add(a[3]);
            parts.add(x);
            if (a[4] != null) parts.add(a[4]);
            x = e.call(ShapeOps.CAT, parts, (long) d);
        }
        boolean bool = e.meta(x).dtype() == DType.BOOL;
        if (n == 0) return x;
        for (int i = 0; i < n; i++) {
            int len = e.meta(x).shape()[d];
            int shorter = Math.max(0, len - 1);
            Object later = e.call(ShapeOps.NARROW, x, (long) d, (long) Math.min(1, len), (long) shorter);
            Object earlier = e.call(ShapeOps.NARROW, x, (long) d, 0L, (long) shorter);
            x = e.call(bool ? PointwiseOps.NE_TENSOR : PointwiseOps.SUB_TENSOR, later, earlier);
        }
        return x;
    }

    private static Object cross(OpEmitter e, Object[] a) {
        Object[] xy = promotedPair(e, a[0], a[1]);
        int[] shape = Shapes.broadcast("linalg.cross", e.meta(xy[0]).shape(), e.meta(xy[1]).shape());
        int d = Shapes.wrapDim("linalg.cross", ((Number) a[2]).intValue(), shape.length);
        Object[] u = new Object[3], v = new Object[3];
        for (int i = 0; i < 3; i++) {
            u[i] = e.call(ShapeOps.NARROW, xy[0], (long) d, (long) i, 1L);
            v[i] = e.call(ShapeOps.NARROW, xy[1], (long) d, (long) i, 1L);
        }
        List<Object> parts = new ArrayList<>(3);
        for (int i = 0; i < 3; i++) {
            int j = (i + 1) % 3, k = (i + 2) % 3;
            parts.add(e.call(PointwiseOps.SUB_TENSOR, e.call(PointwiseOps.MUL_TENSOR, u[j], v[k]), e.call(PointwiseOps.MUL_TENSOR, u[k], v[j])));
        }
        return e.call(ShapeOps.CAT, parts, (long) d);
    }

    private static Object tensordot(OpEmitter e, Object[] a) {
        TensorMeta x = e.meta(a[0]), y = e.meta(a[1]);
        int[] cs = Composites.toInts(a[2]), co = Composites.toInts(a[3]);
        int[] contractX = new int[cs.length], contractY = new int[co.length];
        for (int i = 0; i < cs.length; i++) {
            contractX[i] = Shapes.wrapDim("tensordot", cs[i], x.dim());
            contractY[i] = Shapes.wrapDim("tensordot", co[i], y.dim());
        }
        int[] freeX = others(x.dim(), contractX), freeY = others(y.dim(), contractY);
        int k = 1;
        for (int d : contractX) k *= x.shape()[d];
        int rows = 1, cols = 1;
        List<Integer> outShape = new ArrayList<>();
        for (int d : freeX) { rows *= x.shape()[d]; outShape.add(x.shape()[d]); }
        for (int d : freeY) { cols *= y.shape()[d]; outShape.add(y.shape()[d]); }
        Object left = e.call(ShapeOps.RESHAPE, e.call(ShapeOps.PERMUTE, a[0], concat(freeX, contractX)), new int[] {rows, k});
        Object right = e.call(ShapeOps.RESHAPE, e.call(ShapeOps.PERMUTE, a[1], concat(contractY, freeY)), new int[] {k, cols});
        return e.call(ShapeOps.RESHAPE, e.call(LinalgOps.MM, left, right), outShape.stream().mapToInt(Integer::intValue).toArray());
    }

    private static int[] others(int rank, int[] dims) {
        boolean[] used = new boolean[rank];
        for (int d : dims) used[d] = true;
        int[] out = new int[rank - dims.length];
        for (int d = 0, i = 0; d < rank; d++) if (!used[d]) out[i++] = d;
        return out;
    }

    private static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static Object meshgrid(OpEmitter e, Object[] a) {
        List<?> ts = (List<?>) a[0];
        boolean xy = a[1].equals("xy") && ts.size() >= 2;
        int n = ts.size();
        int[] shape = new int[n];
        for (int i = 0; i < n; i++) shape[i] = Math.toIntExact(e.meta(ts.get(i)).numel());
        if (xy) {
            int t = shape[0];
            shape[0] = shape[1];
            shape[1] = t;
        }
        List<Object> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int position = xy && i < 2 ? 1 - i : i;
            int[] view = new int[n];
            Arrays.fill(view, 1);
            view[position] = shape[position];
            Object grid = e.call(ShapeOps.EXPAND, e.call(ShapeOps.RESHAPE, ts.get(i), view), shape);
            out.add(e.call(ShapeOps.CLONE, grid));
        }
        return out;
    }

    private static Object withoutNan(OpEmitter e, Object x) {
        if (!e.meta(x).dtype().isFloatingPoint()) return x;
        return e.call(PointwiseOps.WHERE_SCALAR_SELF, e.call(PointwiseOps.ISNAN, x), 0.0, x);
    }
}
