package dev.ember.ops;

import dev.ember.ops.eager.CephesFunctions;
import dev.ember.ops.eager.OrthogonalPolynomials;
import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;

/**
 * torch.special's functions of Cephes descent ({@link CephesFunctions}): ndtri, the Hurwitz zeta
 * (and its Scalar overloads), the regularized incomplete gamma functions igamma/gammainc and
 * igammac/gammaincc, mvlgamma/multigammaln and the Bessel family; xlogy's and xlog1py's Scalar
 * overloads; the in-place i0_, igamma_, igammac_, mvlgamma_ and bernoulli_ with a tensor of
 * probabilities; and torch.special's aliases of existing ops. Each computes in float64 and rounds
 * once to its result dtype (integers promote to the default float, as ATen's). Gradients are
 * derivatives.yaml's: igamma, igammac and zeta refuse their first argument's ("not implemented"),
 * and the Bessel functions are non-differentiable there. Under Ember.compile the kernels run as
 * they are (extern calls) and the aliases are their targets.
 */
public final class SpecialFunctionOps {
    private SpecialFunctionOps() {}

    // ------------------------------------------------------------------ one argument

    /** The inverse of the normal distribution function (torch.special.ndtri); d/dy = √(2π)·e^(x²/2). */
    public static final OpOverload SPECIAL_NDTRI = MathOps.special("special_ndtri(Tensor self) -> Tensor", CephesFunctions::ndtri,
            g -> new Object[] {g.mul(g.grad(), g.mul(g.call(PointwiseOps.EXP, g.div(g.mul(g.result(), g.result()), 2.0)), Math.sqrt(2 * Math.PI)))});

    public static final OpOverload SPECIAL_BESSEL_J0 = nonDifferentiable("special_bessel_j0(Tensor self) -> Tensor", CephesFunctions::besselJ0);
    public static final OpOverload SPECIAL_BESSEL_J1 = nonDifferentiable("special_bessel_j1(Tensor self) -> Tensor", CephesFunctions::besselJ1);
    public static final OpOverload SPECIAL_BESSEL_Y0 = nonDifferentiable("special_bessel_y0(Tensor self) -> Tensor", CephesFunctions::besselY0);
    public static final OpOverload SPECIAL_BESSEL_Y1 = nonDifferentiable("special_bessel_y1(Tensor self) -> Tensor", CephesFunctions::besselY1);
    public static final OpOverload SPECIAL_MODIFIED_BESSEL_I0 = nonDifferentiable("special_modified_bessel_i0(Tensor self) -> Tensor",
            CephesFunctions::modifiedBesselI0);
    public static final OpOverload SPECIAL_MODIFIED_BESSEL_I1 = nonDifferentiable("special_modified_bessel_i1(Tensor self) -> Tensor",
            CephesFunctions::modifiedBesselI1);
    public static final OpOverload SPECIAL_MODIFIED_BESSEL_K0 = nonDifferentiable("special_modified_bessel_k0(Tensor self) -> Tensor",
            x -> CephesFunctions.modifiedBesselK0(x, false));
    public static final OpOverload SPECIAL_MODIFIED_BESSEL_K1 = nonDifferentiable("special_modified_bessel_k1(Tensor self) -> Tensor",
            x -> CephesFunctions.modifiedBesselK1(x, false));
    public static final OpOverload SPECIAL_SCALED_MODIFIED_BESSEL_K0 = nonDifferentiable("special_scaled_modified_bessel_k0(Tensor x) -> Tensor",
            x -> CephesFunctions.modifiedBesselK0(x, true));
    public static final OpOverload SPECIAL_SCALED_MODIFIED_BESSEL_K1 = nonDifferentiable("special_scaled_modified_bessel_k1(Tensor x) -> Tensor",
            x -> CephesFunctions.modifiedBesselK1(x, true));

    public static final OpOverload SPECIAL_AIRY_AI = nonDifferentiable("special_airy_ai(Tensor x) -> Tensor", CephesFunctions::airyAi);
    public static final OpOverload SPECIAL_SPHERICAL_BESSEL_J0 = nonDifferentiable("special_spherical_bessel_j0(Tensor x) -> Tensor",
            CephesFunctions::sphericalBesselJ0);

    /** derivatives.yaml marks the Bessel family {@code non_differentiable}: their results carry no gradient. */
    private static OpOverload nonDifferentiable(String schema, DoubleUnaryOperator fn) {
        return OpOverload.define(schema)
                .meta(a -> TensorMeta.contiguous(TypePromotion.toFloating(a.tensor(0).dtype()), a.tensor(0).shape()))
                .kernel((a, m) -> MathOps.elementwise(a.tensor(0), (TensorMeta) m, fn))
                .nonDifferentiableOutputs(0)
                .register();
    }

    /**
     * The multivariate log-gamma {@code Σ_{j<p} lgamma(x − j/2) + p(p−1)/4·log π} (torch.mvlgamma,
     * torch.special.multigammaln), bools refused as ATen refuses them (which no longer checks that
     * x exceeds (p − 1)/2: below it the sum is what lgamma gives). d/dx = {@code Σ_{j<p} digamma(x − j/2)}.
     */
    public static final OpOverload MVLGAMMA = OpOverload.define("mvlgamma(Tensor self, int p) -> Tensor")
            .meta(a -> {
                if (a.tensor(0).dtype() == DType.BOOL) throw new IllegalArgumentException("The input tensor may not be a boolean tensor.");
                if (a.lng(1) < 1) throw new IllegalArgumentException("p has to be greater than or equal to 1");
                return TensorMeta.contiguous(TypePromotion.toFloating(a.tensor(0).dtype()), a.tensor(0).shape());
            })
            .kernel((a, m) -> {
                long p = a.lng(1);
                double constant = p * (p - 1) * Math.log(Math.PI) / 4;
                return MathOps.elementwise(a.tensor(0), (TensorMeta) m, v -> {
                    double sum = 0;
                    for (long j = 0; j < p; j++) sum += dev.ember.ops.eager.Special.lgamma(v - 0.5 * j);
                    return sum + constant;
                });
            })
            .derivative(g -> {
                long p = ((Number) g.value(1)).longValue();
                Object sum = null;
                for (long j = 0; j < p; j++) {
                    Object term = g.call(MathOps.DIGAMMA, j == 0 ? g.arg(0) : g.sub(g.arg(0), 0.5 * j));
                    sum = sum == null ? term : g.add(sum, term);
                }
                return new Object[] {g.mul(g.grad(), sum), null};
            })
            .register();

    public static final OpOverload SPECIAL_MULTIGAMMALN = alias("special_multigammaln(Tensor self, int p) -> Tensor", MVLGAMMA);

    // ------------------------------------------------------------------ two arguments

    /** The Hurwitz zeta ζ(x, q) = Σ_k (k + q)^(−x) (torch.special.zeta); ∂/∂q = −x·ζ(x + 1, q); ∂/∂x is not implemented, as in ATen. */
    public static final OpOverload SPECIAL_ZETA = binary("special_zeta(Tensor self, Tensor other) -> Tensor", null, CephesFunctions::zeta,
            g -> {
                if (g.needs(0)) throw new UnsupportedOperationException("the derivative for 'zeta' is not implemented.");
                return new Object[] {null, g.mul(g.grad(), g.neg(g.mul(g.arg(0), g.call(SpecialFunctionOps.SPECIAL_ZETA, g.add(g.arg(0), 1.0), g.arg(1)))))};
            });

    public static final OpOverload SPECIAL_ZETA_SELF_SCALAR = ComposedOps.define("special_zeta.self_scalar(Scalar self, Tensor other) -> Tensor",
            (e, a) -> {
                DType common = TypePromotion.toFloating(TypePromotion.resultType(a[0], new FakeTensor(e.meta(a[1]))));
                return e.call(SPECIAL_ZETA, e.call(CreationOps.FULL, new int[0], a[0], common), a[1]);
            });

    public static final OpOverload SPECIAL_ZETA_OTHER_SCALAR = ComposedOps.define("special_zeta.other_scalar(Tensor self, Scalar other) -> Tensor",
            (e, a) -> {
                DType common = TypePromotion.toFloating(TypePromotion.resultType(new FakeTensor(e.meta(a[0])), a[1]));
                return e.call(SPECIAL_ZETA, a[0], e.call(CreationOps.FULL, new int[0], a[1], common));
            });

    /**
     * The regularized lower incomplete gamma P(a, x) (torch.igamma, torch.special.gammainc): floating
     * inputs only, as ATen's kernel. ∂/∂x = {@code e^((a−1)·log x − x − lgamma(a))}; ∂/∂a is not
     * implemented, as in ATen.
     */
    public static final OpOverload IGAMMA = binary("igamma(Tensor self, Tensor other) -> Tensor", "igamma_cpu", CephesFunctions::igamma,
            g -> {
                if (g.needs(0)) throw new UnsupportedOperationException("the derivative for 'igamma: input' is not implemented.");
                return new Object[] {null, g.mul(g.grad(), gammaDensity(g))};
            });

    /** The regularized upper incomplete gamma Q(a, x) = 1 − P(a, x) (torch.igammac, torch.special.gammaincc); ∂/∂x is igamma's negated. */
    public static final OpOverload IGAMMAC = binary("igammac(Tensor self, Tensor other) -> Tensor", "igammac_cpu", CephesFunctions::igammac,
            g -> {
                if (g.needs(0)) throw new UnsupportedOperationException("the derivative for 'igammac: input' is not implemented.");
                return new Object[] {null, g.neg(g.mul(g.grad(), gammaDensity(g)))};
            });

    /** {@code e^((a−1)·log x − x − lgamma(a))}, derivatives.yaml's igamma other-gradient factor. */
    private static Object gammaDensity(Grad g) {
        Object a = g.arg(0), x = g.arg(1);
        Object exponent = g.sub(g.sub(g.mul(g.sub(a, 1.0), g.call(PointwiseOps.LOG, x)), x), g.call(MathOps.LGAMMA, a));
        return g.call(PointwiseOps.EXP, exponent);
    }

    public static final OpOverload SPECIAL_GAMMAINC = alias("special_gammainc(Tensor self, Tensor other) -> Tensor", IGAMMA);
    public static final OpOverload SPECIAL_GAMMAINCC = alias("special_gammaincc(Tensor self, Tensor other) -> Tensor", IGAMMAC);

    /** A function of two broadcast tensors in their promoted dtype (floating required when {@code floatingKernel} names ATen's kernel, else integers promote to the default float). */
    private static OpOverload binary(String schema, String floatingKernel, DoubleBinaryOperator fn, Derivative derivative) {
        return OpOverload.define(schema)
                .meta(a -> {
                    DType common = TypePromotion.resultType(a.tensor(0), a.tensor(1));
                    if (floatingKernel != null && !common.isFloatingPoint()) {
                        throw new IllegalArgumentException("\"" + floatingKernel + "\" not implemented for '" + common.scalarTypeName() + "'");
                    }
                    return TensorMeta.contiguous(TypePromotion.toFloating(common), Shapes.broadcast(a.op().schema().name(), a.tensor(0).shape(), a.tensor(1).shape()));
                })
                .kernel((a, m) -> {
                    TensorMeta meta = (TensorMeta) m;
                    // both in the result's dtype first, as ATen's TensorIterator casts them
                    double[] x = a.tensor(0).to(meta.dtype()).expand(meta.shape()).toDoubleArray(), y = a.tensor(1).to(meta.dtype()).expand(meta.shape()).toDoubleArray();
                    for (int i = 0; i < x.length; i++) x[i] = fn.applyAsDouble(x[i], y[i]);
                    return LuOps.result(x, meta);
                })
                .derivative(derivative)
                .register();
    }

    // ------------------------------------------------------------------ orthogonal polynomials

    /** A polynomial's value at x for degree n (truncated as {@link OrthogonalPolynomials#degree}); {@code float32}: the result is float32 (Hermite's limit). */
    @FunctionalInterface
    private interface Polynomial { double at(double x, long n, boolean float32); }

    public static final OpOverload SPECIAL_CHEBYSHEV_POLYNOMIAL_T = polynomial("special_chebyshev_polynomial_t", (x, n, f) -> OrthogonalPolynomials.chebyshevT(x, n));
    public static final OpOverload SPECIAL_CHEBYSHEV_POLYNOMIAL_U = polynomial("special_chebyshev_polynomial_u", (x, n, f) -> OrthogonalPolynomials.chebyshevU(x, n));
    public static final OpOverload SPECIAL_CHEBYSHEV_POLYNOMIAL_V = polynomial("special_chebyshev_polynomial_v", (x, n, f) -> OrthogonalPolynomials.chebyshevV(x, n));
    public static final OpOverload SPECIAL_CHEBYSHEV_POLYNOMIAL_W = polynomial("special_chebyshev_polynomial_w", (x, n, f) -> OrthogonalPolynomials.chebyshevW(x, n));
    public static final OpOverload SPECIAL_SHIFTED_CHEBYSHEV_POLYNOMIAL_T = polynomial("special_shifted_chebyshev_polynomial_t",
            (x, n, f) -> OrthogonalPolynomials.shiftedChebyshevT(x, n));
    public static final OpOverload SPECIAL_SHIFTED_CHEBYSHEV_POLYNOMIAL_U = polynomial("special_shifted_chebyshev_polynomial_u",
            (x, n, f) -> OrthogonalPolynomials.shiftedChebyshevU(x, n));
    public static final OpOverload SPECIAL_SHIFTED_CHEBYSHEV_POLYNOMIAL_V = polynomial("special_shifted_chebyshev_polynomial_v",
            (x, n, f) -> OrthogonalPolynomials.shiftedChebyshevV(x, n));
    public static final OpOverload SPECIAL_SHIFTED_CHEBYSHEV_POLYNOMIAL_W = polynomial("special_shifted_chebyshev_polynomial_w",
            (x, n, f) -> OrthogonalPolynomials.shiftedChebyshevW(x, n));
    public static final OpOverload SPECIAL_HERMITE_POLYNOMIAL_H = polynomial("special_hermite_polynomial_h", OrthogonalPolynomials::hermiteH);
    public static final OpOverload SPECIAL_HERMITE_POLYNOMIAL_HE = polynomial("special_hermite_polynomial_he", OrthogonalPolynomials::hermiteHe);
    public static final OpOverload SPECIAL_LAGUERRE_POLYNOMIAL_L = polynomial("special_laguerre_polynomial_l", (x, n, f) -> OrthogonalPolynomials.laguerreL(x, n));
    public static final OpOverload SPECIAL_LEGENDRE_POLYNOMIAL_P = polynomial("special_legendre_polynomial_p", (x, n, f) -> OrthogonalPolynomials.legendreP(x, n));

    /**
     * {@code name(Tensor x, Tensor n)} (x and n broadcast, in their promoted floating dtype; no
     * gradient, derivatives.yaml's non_differentiable) and its {@code .x_scalar} and {@code .n_scalar}
     * overloads, a number for x or for n.
     */
    private static OpOverload polynomial(String name, Polynomial fn) {
        OpOverload op = OpOverload.define(name + "(Tensor x, Tensor n) -> Tensor")
                .meta(a -> TensorMeta.contiguous(TypePromotion.toFloating(TypePromotion.resultType(a.tensor(0), a.tensor(1))),
                        Shapes.broadcast(name, a.tensor(0).shape(), a.tensor(1).shape())))
                .kernel((a, m) -> {
                    TensorMeta meta = (TensorMeta) m;
                    boolean float32 = meta.dtype() == DType.FLOAT32;
                    double[] x = a.tensor(0).to(meta.dtype()).expand(meta.shape()).toDoubleArray(), n = a.tensor(1).to(meta.dtype()).expand(meta.shape()).toDoubleArray();
                    for (int i = 0; i < x.length; i++) x[i] = fn.at(x[i], OrthogonalPolynomials.degree(n[i]), float32);
                    return LuOps.result(x, meta);
                })
                .nonDifferentiableOutputs(0)
                .register();
        ComposedOps.define(name + ".x_scalar(Scalar x, Tensor n) -> Tensor", (e, a) -> e.call(op, scalarBeside(e, a[0], a[1]), a[1]));
        ComposedOps.define(name + ".n_scalar(Tensor x, Scalar n) -> Tensor", (e, a) -> e.call(op, a[0], scalarBeside(e, a[1], a[0])));
        return op;
    }

    // ------------------------------------------------------------------ Scalar overloads of xlogy and xlog1py

    public static final OpOverload XLOGY_SCALAR_SELF = ComposedOps.define("xlogy.Scalar_Self(Scalar self, Tensor other) -> Tensor",
            (e, a) -> e.call(MathOps.XLOGY, scalarBeside(e, a[0], a[1]), a[1]));
    public static final OpOverload SPECIAL_XLOGY = alias("special_xlogy(Tensor self, Tensor other) -> Tensor", MathOps.XLOGY);
    public static final OpOverload SPECIAL_XLOGY_SELF_SCALAR = alias("special_xlogy.self_scalar(Scalar self, Tensor other) -> Tensor", XLOGY_SCALAR_SELF);
    public static final OpOverload SPECIAL_XLOGY_OTHER_SCALAR = alias("special_xlogy.other_scalar(Tensor self, Scalar other) -> Tensor", MathOps.XLOGY_SCALAR_OTHER);
    public static final OpOverload SPECIAL_XLOG1PY_SELF_SCALAR = ComposedOps.define("special_xlog1py.self_scalar(Scalar self, Tensor other) -> Tensor",
            (e, a) -> e.call(MathOps.SPECIAL_XLOG1PY, scalarBeside(e, a[0], a[1]), a[1]));
    public static final OpOverload SPECIAL_XLOG1PY_OTHER_SCALAR = ComposedOps.define("special_xlog1py.other_scalar(Tensor self, Scalar other) -> Tensor",
            (e, a) -> e.call(MathOps.SPECIAL_XLOG1PY, a[0], scalarBeside(e, a[1], a[0])));

    /** A Python number beside a tensor, as a 0-d tensor of the floating dtype they promote to (the number a wrapped scalar). */
    private static Object scalarBeside(OpEmitter e, Object number, Object tensor) {
        DType common = TypePromotion.toFloating(TypePromotion.resultType(new FakeTensor(e.meta(tensor)), number));
        return e.call(CreationOps.FULL, new int[0], number, common);
    }

    // ------------------------------------------------------------------ out=

    public static final OpOverload SPECIAL_NDTRI_OUT = OutForms.pointwise("special_ndtri.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", SPECIAL_NDTRI);
    public static final OpOverload SPECIAL_ZETA_OUT = OutForms.pointwise("special_zeta.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", SPECIAL_ZETA);
    public static final OpOverload IGAMMA_OUT = OutForms.pointwise("igamma.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", IGAMMA);
    public static final OpOverload IGAMMAC_OUT = OutForms.pointwise("igammac.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", IGAMMAC);
    public static final OpOverload SPECIAL_GAMMAINC_OUT = OutForms.pointwise("special_gammainc.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", IGAMMA);
    public static final OpOverload SPECIAL_GAMMAINCC_OUT = OutForms.pointwise("special_gammaincc.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", IGAMMAC);
    public static final OpOverload MVLGAMMA_OUT = OutForms.pointwise("mvlgamma.out(Tensor self, int p, *, Tensor(a!) out) -> Tensor(a!)", MVLGAMMA);
    public static final OpOverload SPECIAL_MULTIGAMMALN_OUT = OutForms.pointwise("special_multigammaln.out(Tensor self, int p, *, Tensor(a!) out) -> Tensor(a!)", MVLGAMMA);
    public static final OpOverload SPECIAL_BESSEL_J0_OUT = OutForms.pointwise("special_bessel_j0.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", SPECIAL_BESSEL_J0);
    public static final OpOverload SPECIAL_BESSEL_J1_OUT = OutForms.pointwise("special_bessel_j1.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", SPECIAL_BESSEL_J1);
    public static final OpOverload SPECIAL_BESSEL_Y0_OUT = OutForms.pointwise("special_bessel_y0.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", SPECIAL_BESSEL_Y0);
    public static final OpOverload SPECIAL_BESSEL_Y1_OUT = OutForms.pointwise("special_bessel_y1.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", SPECIAL_BESSEL_Y1);
    public static final OpOverload SPECIAL_MODIFIED_BESSEL_I0_OUT = OutForms.pointwise("special_modified_bessel_i0.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
            SPECIAL_MODIFIED_BESSEL_I0);
    public static final OpOverload SPECIAL_MODIFIED_BESSEL_I1_OUT = OutForms.pointwise("special_modified_bessel_i1.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
            SPECIAL_MODIFIED_BESSEL_I1);
    public static final OpOverload SPECIAL_MODIFIED_BESSEL_K0_OUT = OutForms.pointwise("special_modified_bessel_k0.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
            SPECIAL_MODIFIED_BESSEL_K0);
    public static final OpOverload SPECIAL_MODIFIED_BESSEL_K1_OUT = OutForms.pointwise("special_modified_bessel_k1.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
            SPECIAL_MODIFIED_BESSEL_K1);
    public static final OpOverload SPECIAL_SCALED_MODIFIED_BESSEL_K0_OUT = OutForms.pointwise("special_scaled_modified_bessel_k0.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)",
            SPECIAL_SCALED_MODIFIED_BESSEL_K0);
    public static final OpOverload SPECIAL_SCALED_MODIFIED_BESSEL_K1_OUT = OutForms.pointwise("special_scaled_modified_bessel_k1.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)",
            SPECIAL_SCALED_MODIFIED_BESSEL_K1);


    // ------------------------------------------------------------------ in place

    public static final OpOverload I0_ = inPlace("i0_(Tensor(a!) self) -> Tensor(a!)", MathOps.I0);
    public static final OpOverload IGAMMA_ = inPlace("igamma_(Tensor(a!) self, Tensor other) -> Tensor(a!)", IGAMMA);
    public static final OpOverload IGAMMAC_ = inPlace("igammac_(Tensor(a!) self, Tensor other) -> Tensor(a!)", IGAMMAC);
    public static final OpOverload MVLGAMMA_ = inPlace("mvlgamma_(Tensor(a!) self, int p) -> Tensor(a!)", MVLGAMMA);

    /** {@code functional}'s result written into self, which must hold its shape and dtype (ATen's in-place checks). */
    private static OpOverload inPlace(String schema, OpOverload functional) {
        return OpOverload.define(schema)
                .tags(Tag.INPLACE)
                .meta(a -> {
                    TensorMeta result = (TensorMeta) functional.inferMeta(functional.bind(a.toArray()));
                    return PointwiseOps.checkInplace(a.op().schema().name(), a.tensor(0), result.dtype(), result.shape());
                })
                .kernel(OutForms.intoSelf(functional))
                .register();
    }

    /**
     * 1 with probability p (broadcast to self's shape), else 0, in self's dtype: a uniform draw below
     * p, with ATen's refusal of probabilities outside [0, 1] (an assert in the graph, so compiled
     * code refuses them too). Its gradient is zero, as ATen's.
     */
    public static final OpOverload BERNOULLI_TENSOR = ComposedOps.composed("bernoulli.Tensor(Tensor self, Tensor p, *, Generator? generator=None) -> Tensor",
                    a -> {
                        a.tensor(1).expand(a.tensor(0).shape());
                        return TensorMeta.contiguous(a.tensor(0).dtype(), a.tensor(0).shape());
                    },
                    (e, a) -> {
                        TensorMeta m = e.meta(a[0]);
                        Object inRange = e.call(ReductionOps.ALL, e.call(PointwiseOps.LOGICAL_AND, e.call(PointwiseOps.GE_SCALAR, a[1], 0L),
                                e.call(PointwiseOps.LE_SCALAR, a[1], 1L)));
                        e.call(AssertOps.ASSERT_RAISE, inRange, IllegalArgumentException.class.getName(), "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
                        DType pType = e.meta(a[1]).dtype();
                        Object u = e.call(CreationOps.RAND, m.shape(), a[2], pType.isFloatingPoint() ? pType : DType.FLOAT64);
                        return e.call(ShapeOps.TO_COPY, e.call(PointwiseOps.LT_TENSOR, u, a[1]), m.dtype());
                    })
            .tags(Tag.NONDETERMINISTIC)
            .derivative(Derivative.ZERO)
            .register();

    /** self.bernoulli_(p): each element 1 with probability p (a tensor broadcast to self's shape), functionalized as {@link #BERNOULLI_TENSOR}. */
    public static final OpOverload BERNOULLI__TENSOR = OpOverload.define("bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, Generator? generator=None) -> Tensor(a!)")
            .tags(Tag.NONDETERMINISTIC, Tag.INPLACE)
            .meta(a -> (TensorMeta) BERNOULLI_TENSOR.inferMeta(BERNOULLI_TENSOR.bind(a.toArray())))
            .kernel(OutForms.intoSelf(BERNOULLI_TENSOR))
            .register();

    // ------------------------------------------------------------------ torch.special's other names

    public static final OpOverload SPECIAL_EXPIT = alias("special_expit(Tensor self) -> Tensor", PointwiseOps.SIGMOID);
    public static final OpOverload SPECIAL_LOGIT = alias("special_logit(Tensor self, float? eps=None) -> Tensor", MathOps.LOGIT);
    public static final OpOverload SPECIAL_EXP2 = alias("special_exp2(Tensor self) -> Tensor", PointwiseOps.EXP2);
    public static final OpOverload SPECIAL_EXPM1 = alias("special_expm1(Tensor self) -> Tensor", PointwiseOps.EXPM1);
    public static final OpOverload SPECIAL_LOG1P = alias("special_log1p(Tensor self) -> Tensor", PointwiseOps.LOG1P);
    /** round.decimals under torch.special's name, whose ATen kernel takes floating inputs only (round_vml_cpu). */
    public static final OpOverload SPECIAL_ROUND = ComposedOps.define("special_round(Tensor self, *, int decimals=0) -> Tensor",
            a -> {
                DType dtype = a.tensor(0).dtype();
                if (!dtype.isFloatingPoint()) throw new IllegalArgumentException("\"round_vml_cpu\" not implemented for '" + dtype.scalarTypeName() + "'");
            },
            (e, a) -> e.call(PointwiseOps.ROUND_DECIMALS, a));
    public static final OpOverload SPECIAL_SINC = alias("special_sinc(Tensor self) -> Tensor", MathOps.SINC);
    public static final OpOverload SPECIAL_SOFTMAX = alias("special_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", ReductionOps.SOFTMAX_INT);
    public static final OpOverload SPECIAL_LOG_SOFTMAX = alias("special_log_softmax(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
            ReductionOps.LOG_SOFTMAX_INT);
    public static final OpOverload SPECIAL_I0 = alias("special_i0(Tensor self) -> Tensor", MathOps.I0);
    public static final OpOverload SPECIAL_PSI = alias("special_psi(Tensor self) -> Tensor", MathOps.DIGAMMA);
    public static final OpOverload SPECIAL_DIGAMMA = alias("special_digamma(Tensor self) -> Tensor", MathOps.DIGAMMA);
    public static final OpOverload SPECIAL_GAMMALN = alias("special_gammaln(Tensor self) -> Tensor", MathOps.LGAMMA);
    public static final OpOverload SPECIAL_ERF = alias("special_erf(Tensor self) -> Tensor", PointwiseOps.ERF);
    public static final OpOverload SPECIAL_ERFC = alias("special_erfc(Tensor self) -> Tensor", MathOps.ERFC);
    public static final OpOverload SPECIAL_ERFINV = alias("special_erfinv(Tensor self) -> Tensor", MathOps.ERFINV);
    public static final OpOverload SPECIAL_POLYGAMMA = alias("special_polygamma(int n, Tensor self) -> Tensor", MathOps.POLYGAMMA);

    /** Another name of {@code target}, taking the same arguments in the same order: its checks (and words), its decomposition. */
    private static OpOverload alias(String schema, OpOverload target) {
        return ComposedOps.define(schema, a -> target.inferMeta(target.bind(a.toArray())), (e, a) -> e.call(target, a));
    }
}
