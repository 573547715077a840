package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

/**
 * numpy-style numerical ops PyTorch programs call: deg2rad, rad2deg, float_power, ldexp,
 * trapezoid, cumulative_trapezoid, cov and corrcoef. Each is a composite written as ATen writes it
 * (so dtypes promote as ATen's do, and gradients come through the ops it is made of), with ATen's
 * refusals.
 */
public final class NumericOps {
    private NumericOps() {}

    /** Degrees to radians, {@code self · π/180}; integers and bools give the default float dtype (a Python-scalar product). */
    public static final OpOverload DEG2RAD = ComposedOps.define("deg2rad(Tensor self) -> Tensor",
            (e, a) -> e.call(PointwiseOps.MUL_SCALAR, a[0], Math.PI / 180));

    /** Radians to degrees, {@code self · 180/π}. */
    public static final OpOverload RAD2DEG = ComposedOps.define("rad2deg(Tensor self) -> Tensor",
            (e, a) -> e.call(PointwiseOps.MUL_SCALAR, a[0], 180 / Math.PI));

    /** deg2rad and rad2deg in place: self's dtype must hold the float result, as ATen's in-place ops require. */
    public static final OpOverload DEG2RAD_ = PointwiseOps.composedInPlace("deg2rad_(Tensor(a!) self) -> Tensor(a!)", DEG2RAD);
    public static final OpOverload RAD2DEG_ = PointwiseOps.composedInPlace("rad2deg_(Tensor(a!) self) -> Tensor(a!)", RAD2DEG);

    /** {@code pow} computed in float64 whatever the inputs' dtypes (ATen's float_power; complex aside). */
    public static final OpOverload FLOAT_POWER_TENSOR_TENSOR = ComposedOps.define("float_power.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
            (e, a) -> e.call(PointwiseOps.POW_TENSOR_TENSOR, toDouble(e, a[0]), toDouble(e, a[1])));

    public static final OpOverload FLOAT_POWER_TENSOR_SCALAR = ComposedOps.define("float_power.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
            (e, a) -> e.call(PointwiseOps.POW_TENSOR_SCALAR, toDouble(e, a[0]), ((Number) a[1]).doubleValue()));

    public static final OpOverload FLOAT_POWER_SCALAR = ComposedOps.define("float_power.Scalar(Scalar self, Tensor exponent) -> Tensor",
            (e, a) -> {
                Object base = e.call(CreationOps.FULL, e.meta(a[1]).shape(), ((Number) a[0]).doubleValue(), DType.FLOAT64);
                return e.call(PointwiseOps.POW_TENSOR_TENSOR, base, toDouble(e, a[1]));
            });

    /**
     * float_power in place: self must already be float64, the dtype of float_power's result
     * (ATen's float_power_ checks this first, with its own message, rather than casting).
     */
    public static final OpOverload FLOAT_POWER__SCALAR = floatPowerInPlace("float_power_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)", FLOAT_POWER_TENSOR_SCALAR);
    public static final OpOverload FLOAT_POWER__TENSOR = floatPowerInPlace("float_power_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)", FLOAT_POWER_TENSOR_TENSOR);

    private static OpOverload floatPowerInPlace(String schema, OpOverload functional) {
        return PointwiseOps.composedInPlace(schema, functional, a -> {
            DType base = a.tensor(0).dtype();
            if (base != DType.FLOAT64) {
                throw new IllegalArgumentException("the base given to float_power_ has dtype " + base.scalarTypeName()
                        + " but the operation's result requires dtype Double");
            }
        });
    }


    /** {@code self · 2^other} (ATen's ldexp: a product with {@code exp2(other)}, dtypes promoted as that product's). */
    public static final OpOverload LDEXP = ComposedOps.define("ldexp.Tensor(Tensor self, Tensor other) -> Tensor",
            (e, a) -> e.call(PointwiseOps.MUL_TENSOR, a[0], e.call(PointwiseOps.EXP2, a[1])));

    /**
     * ldexp in place: {@code self · 2^other} written into self. ATen writes it as
     * {@code mul_out(self, self, pow(2, other))}, an out= call, which autograd refuses whenever self
     * or other requires grad (a leaf or not); so it is refused here too, with ATen's text, rather
     * than differentiated: a program that trains through it in Ember would fail in PyTorch.
     */
    public static final OpOverload LDEXP_ = PointwiseOps.composedInPlace("ldexp_(Tensor(a!) self, Tensor other) -> Tensor(a!)", LDEXP, a -> {
        if (dev.ember.autograd.Autograd.records(a)) {
            throw new IllegalArgumentException("mul(): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad."
                    + " (ldexp_ is ATen's mul_out(self, self, 2^other): call ldexp, or run ldexp_ inside Ember.noGrad())");
        }
    });

    /**
     * self as {@code mantissa · 2^exponent} with |mantissa| in [0.5, 1) (C's frexp, element by
     * element; zeros, infinities and NaN keep themselves with exponent 0); the exponent is int32.
     * The mantissa's gradient is derivatives.yaml's {@code grad / 2^exponent}.
     */
    public static final OpOverload FREXP = OpOverload.define("frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)")
            .meta(a -> {
                Tensor self = a.tensor(0);
                if (!self.dtype().isFloatingPoint()) throw new IllegalArgumentException("torch.frexp() only supports floating-point dtypes");
                return java.util.List.of(TensorMeta.contiguous(self.dtype(), self.shape()), TensorMeta.contiguous(DType.INT32, self.shape()));
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0);
                double[] v = self.toDoubleArray(), mantissa = new double[v.length];
                int[] exponent = new int[v.length];
                for (int i = 0; i < v.length; i++) {
                    double x = v[i];
                    if (x == 0 || Double.isNaN(x) || Double.isInfinite(x)) {
                        mantissa[i] = x;
                        continue;
                    }
                    int e = Math.getExponent(x) == Double.MIN_EXPONENT - 1 ? Math.getExponent(x * 0x1p54) - 54 : Math.getExponent(x);   // subnormals scaled up first
                    exponent[i] = e + 1;
                    mantissa[i] = Math.scalb(x, -(e + 1));
                }
                Tensor man = Tensor.of(mantissa, self.shape());
                return java.util.List.of(self.dtype() == DType.FLOAT64 ? man : man.to(self.dtype()), Tensor.of(exponent, self.shape()));
            })
            .derivative(g -> new Object[] {g.div(g.grad(0), g.call(PointwiseOps.EXP2, g.result(1)))})
            .register();

    private static Object toDouble(OpEmitter e, Object x) { return e.meta(x).dtype() == DType.FLOAT64 ? x : e.call(ShapeOps.TO_COPY, x, DType.FLOAT64); }

    // ------------------------------------------------------------------ trapezoid rule

    /** The integral of y over x along dim by the trapezoid rule: {@code Σ (x[i+1] − x[i]) · (y[i+1] + y[i]) / 2}. */
    public static final OpOverload TRAPEZOID_X = ComposedOps.define("trapezoid.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor",
            a -> checkSamples("trapezoid", a.tensor(0), a.tensor(1), a.integer(2)),
            (e, a) -> {
                int dim = Shapes.wrapDim("trapezoid", ((Number) a[2]).intValue(), Math.max(e.meta(a[0]).dim(), 1));
                if (e.meta(a[0]).shape()[dim] == 0) return zerosWithout(e, a[0], dim);
                Object dx = spacing(e, a[0], a[1], dim);
                Object pairs = e.call(PointwiseOps.ADD_TENSOR, slice(e, a[0], dim, 1L, null), slice(e, a[0], dim, 0L, -1L));
                return e.call(PointwiseOps.DIV_SCALAR, e.call(ReductionOps.SUM_DIM, e.call(PointwiseOps.MUL_TENSOR, dx, pairs), new int[] {dim}, false), 2.0);
            });

    /** The trapezoid rule with evenly spaced samples {@code dx} apart: {@code (Σ y − (y[0] + y[−1]) / 2) · dx}. */
    public static final OpOverload TRAPEZOID_DX = ComposedOps.define("trapezoid.dx(Tensor y, *, Scalar dx=1, int dim=-1) -> Tensor",
            a -> checkSpacing("trapezoid", a.tensor(0), a.get(1), a.integer(2)),
            (e, a) -> {
                int dim = Shapes.wrapDim("trapezoid", ((Number) a[2]).intValue(), Math.max(e.meta(a[0]).dim(), 1));
                if (e.meta(a[0]).shape()[dim] == 0) return zerosWithout(e, a[0], dim);
                Object ends = e.call(PointwiseOps.ADD_TENSOR, e.call(ShapeOps.SELECT, a[0], (long) dim, 0L), e.call(ShapeOps.SELECT, a[0], (long) dim, -1L));
                Object inner = e.call(PointwiseOps.SUB_TENSOR, e.call(ReductionOps.SUM_DIM, a[0], new int[] {dim}, false), e.call(PointwiseOps.MUL_SCALAR, ends, 0.5));
                return e.call(PointwiseOps.MUL_SCALAR, inner, ((Number) a[1]).doubleValue());
            });

    /** torch.trapz, ATen's older name of {@link #TRAPEZOID_X}. */
    public static final OpOverload TRAPZ_X = ComposedOps.define("trapz.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor",
            (e, a) -> e.call(TRAPEZOID_X, a[0], a[1], a[2]));

    /** torch.trapz with evenly spaced samples, ATen's older name of {@link #TRAPEZOID_DX}. */
    public static final OpOverload TRAPZ_DX = ComposedOps.define("trapz.dx(Tensor y, *, float dx=1, int dim=-1) -> Tensor",
            (e, a) -> e.call(TRAPEZOID_DX, a[0], a[1], a[2]));

    /** The running trapezoid integral along dim: one fewer element than y there, the last the whole integral. */
    public static final OpOverload CUMULATIVE_TRAPEZOID_X = ComposedOps.define("cumulative_trapezoid.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor",
            a -> checkSamples("cumulative_trapezoid", a.tensor(0), a.tensor(1), a.integer(2)),
            (e, a) -> {
                int dim = Shapes.wrapDim("cumulative_trapezoid", ((Number) a[2]).intValue(), Math.max(e.meta(a[0]).dim(), 1));
                Object halfDx = e.call(PointwiseOps.DIV_SCALAR, spacing(e, a[0], a[1], dim), 2.0);
                return e.call(ScanOps.CUMSUM, e.call(PointwiseOps.MUL_TENSOR, halfDx, pairSums(e, a[0], dim)), (long) dim);
            });

    public static final OpOverload CUMULATIVE_TRAPEZOID_DX = ComposedOps.define("cumulative_trapezoid.dx(Tensor y, *, Scalar dx=1, int dim=-1) -> Tensor",
            a -> checkSpacing("cumulative_trapezoid", a.tensor(0), a.get(1), a.integer(2)),
            (e, a) -> {
                int dim = Shapes.wrapDim("cumulative_trapezoid", ((Number) a[2]).intValue(), Math.max(e.meta(a[0]).dim(), 1));
                Object scaled = e.call(PointwiseOps.MUL_SCALAR, pairSums(e, a[0], dim), ((Number) a[1]).doubleValue() / 2.0);
                return e.call(ScanOps.CUMSUM, scaled, (long) dim);
            });

    private static Object pairSums(OpEmitter e, Object y, int dim) {
        return e.call(PointwiseOps.ADD_TENSOR, slice(e, y, dim, 0L, -1L), slice(e, y, dim, 1L, null));
    }

    private static Object slice(OpEmitter e, Object t, int dim, Long start, Long end) { return e.call(ShapeOps.SLICE, t, (long) dim, start, end, 1L); }

    /**
     * The sample spacings {@code x[i+1] − x[i]} along dim, x shaped to broadcast with y's pairs as
     * ATen shapes it: a 1-d x lies along dim, a lower-rank x gets leading 1s, then the differences
     * are taken (numpy broadcasts dx and dy after differencing, not x with y).
     */
    private static Object spacing(OpEmitter e, Object y, Object x, int dim) {
        int yRank = e.meta(y).dim();
        int[] xs = e.meta(x).shape();
        Object viewed = x;
        if (xs.length == 1) {
            int[] along = new int[yRank];
            java.util.Arrays.fill(along, 1);
            along[dim] = xs[0];
            viewed = e.call(ShapeOps.RESHAPE, x, along);
        } else if (xs.length < yRank) {
            int[] padded = new int[yRank];
            java.util.Arrays.fill(padded, 1);
            System.arraycopy(xs, 0, padded, yRank - xs.length, xs.length);
            viewed = e.call(ShapeOps.RESHAPE, x, padded);
        }
        return e.call(PointwiseOps.SUB_TENSOR, slice(e, viewed, dim, 1L, null), slice(e, viewed, dim, 0L, -1L));
    }

    /** ATen's zeros_like_except: zeros of y's shape without dim, in y's dtype (the integral over no samples). */
    private static Object zerosWithout(OpEmitter e, Object y, int dim) {
        TensorMeta m = e.meta(y);
        int[] shape = new int[m.dim() - 1];
        for (int i = 0, j = 0; i < m.dim(); i++) if (i != dim) shape[j++] = m.shape()[i];
        return e.call(CreationOps.ZEROS, shape, m.dtype());
    }

    private static void checkSamples(String op, Tensor y, Tensor x, int dim) {
        int d = Shapes.wrapDim(op, dim, Math.max(y.dim(), 1));
        if (op.equals("trapezoid") && y.dim() > 0 && y.size(d) == 0) return;   // ATen answers zeros before its checks
        if (y.dtype() == DType.BOOL || x.dtype() == DType.BOOL) {
            throw new IllegalArgumentException(op + ": received a bool input for `x` or `y`, but bool is not supported");
        }
        if (x.dim() == 1 && x.size(0) != (y.dim() == 0 ? 1 : y.size(d))) {
            throw new IllegalArgumentException(op + ": There must be one `x` value for each sample point");
        }
    }

    private static void checkSpacing(String op, Tensor y, Object dx, int dim) {
        int d = Shapes.wrapDim(op, dim, Math.max(y.dim(), 1));
        if (op.equals("trapezoid") && y.dim() > 0 && y.size(d) == 0) return;
        if (y.dtype() == DType.BOOL) throw new IllegalArgumentException(op + ": received a bool input for `y`, but bool is not supported");
        if (dx instanceof Boolean) throw new IllegalArgumentException(op + ": Currently, we only support dx as a real number.");
    }

    // ------------------------------------------------------------------ covariance

    /**
     * The covariance of the rows of self (variables) over its columns (observations), as ATen's
     * cov: optional integer frequency weights and float observation weights, {@code correction}
     * subtracted from the (weighted) count; a count ≤ correction divides by 0, as ATen's.
     */
    public static final OpOverload COV = ComposedOps.define("cov(Tensor self, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None) -> Tensor",
            a -> checkCov(a.tensor(0), a.optTensor(2), a.optTensor(3)),
            NumericOps::cov);

    /** Pearson's correlation coefficients of the rows of self: cov normalized by the standard deviations, clipped to [−1, 1]. */
    public static final OpOverload CORRCOEF = ComposedOps.define("corrcoef(Tensor self) -> Tensor",
            a -> {
                if (a.tensor(0).dim() > 2) {
                    throw new IllegalArgumentException("corrcoef(): expected input to have two or fewer dimensions but got an input with " + a.tensor(0).dim() + " dimensions");
                }
                checkCov(a.tensor(0), null, null);
            },
            (e, a) -> {
                Object c = e.call(COV, a[0], 1L, null, null);
                if (e.meta(c).dim() == 0) return e.call(PointwiseOps.DIV_TENSOR, c, c);   // NaN for a covariance of 0, inf or NaN, else 1
                Object stddev = e.call(PointwiseOps.SQRT, e.call(ShapeOps.DIAGONAL, c, 0L, 0L, 1L));
                c = e.call(PointwiseOps.DIV_TENSOR, c, e.call(ShapeOps.RESHAPE, stddev, new int[] {-1, 1}));
                c = e.call(PointwiseOps.DIV_TENSOR, c, e.call(ShapeOps.RESHAPE, stddev, new int[] {1, -1}));
                return e.call(PointwiseOps.CLAMP, c, -1L, 1L);
            });

    private static Object cov(OpEmitter e, Object[] a) {
        TensorMeta self = e.meta(a[0]);
        Object in = self.dim() < 2 ? e.call(ShapeOps.RESHAPE, a[0], new int[] {1, -1}) : a[0];
        int observations = e.meta(in).shape()[1];
        long correction = ((Number) a[1]).longValue();
        Object w = a[2];
        if (a[3] != null) w = w == null ? a[3] : e.call(PointwiseOps.MUL_TENSOR, w, a[3]);
        Object wSum = w == null ? e.call(CreationOps.FULL, new int[0], (long) observations, DType.INT64) : e.call(ReductionOps.SUM, w);
        Object weighted = w == null ? in : e.call(PointwiseOps.MUL_TENSOR, in, w);
        Object avg = e.call(PointwiseOps.DIV_TENSOR, e.call(ReductionOps.SUM_DIM, weighted, new int[] {1}, false), wSum);
        Object norm;
        if (w != null && a[3] != null && correction != 0) {
            Object spread = e.call(PointwiseOps.DIV_TENSOR, e.call(PointwiseOps.MUL_SCALAR, e.call(ReductionOps.SUM, e.call(PointwiseOps.MUL_TENSOR, w, a[3])), correction), wSum);
            norm = e.call(PointwiseOps.SUB_TENSOR, wSum, spread);
        } else {
            norm = e.call(PointwiseOps.SUB_SCALAR, wSum, correction);
        }
        // ATen warns and divides by 0 where the degrees of freedom are not positive
        norm = e.call(PointwiseOps.WHERE_SCALAR_SELF, e.call(PointwiseOps.LE_SCALAR, norm, 0L), 0L, norm);
        Object centered = e.call(PointwiseOps.SUB_TENSOR, in, e.call(ShapeOps.UNSQUEEZE, avg, 1L));
        Object right = w == null ? centered : e.call(PointwiseOps.MUL_TENSOR, centered, w);
        Object c = e.call(LinalgOps.MM, centered, e.call(ShapeOps.T, right));
        return e.call(ShapeOps.SQUEEZE, e.call(PointwiseOps.DIV_TENSOR, c, norm));
    }

    /** ATen's cov checks; the weights' signs and sum where they hold data (eager calls). */
    private static void checkCov(Tensor self, Tensor fweights, Tensor aweights) {
        if (self.dim() > 2) throw new IllegalArgumentException("cov(): expected input to have two or fewer dimensions but got an input with " + self.dim() + " dimensions");
        if (self.dtype() == DType.BOOL) throw new IllegalArgumentException("cov(): bool dtype is not supported for input");
        int observations = self.dim() < 2 ? self.numel() : self.size(1);
        if (fweights != null) {
            if (fweights.dim() > 1) throw new IllegalArgumentException("cov(): expected fweights to have one or fewer dimensions but got fweights with " + fweights.dim() + " dimensions");
            if (fweights.dtype().isFloatingPoint() || fweights.dtype() == DType.BOOL) {
                throw new IllegalArgumentException("cov(): expected fweights to have integral dtype but got fweights with " + fweights.dtype().scalarTypeName() + " dtype");
            }
            if (fweights.numel() != observations) {
                throw new IllegalArgumentException("cov(): expected fweights to have the same numel as there are observations in the input but got "
                        + fweights.numel() + " != " + observations);
            }
            if (!fweights.isFake() && observations > 0 && min(fweights) < 0) throw new IllegalArgumentException("cov(): fweights cannot be negative");
        }
        if (aweights != null) {
            if (aweights.dim() > 1) throw new IllegalArgumentException("cov(): expected aweights to have one or fewer dimensions but got aweights with " + aweights.dim() + " dimensions");
            if (!aweights.dtype().isFloatingPoint()) {
                throw new IllegalArgumentException("cov(): expected aweights to have floating point dtype but got aweights with " + aweights.dtype().scalarTypeName() + " dtype");
            }
            if (aweights.numel() != observations) {
                throw new IllegalArgumentException("cov(): expected aweights to have the same numel as there are observations in the input but got "
                        + aweights.numel() + " != " + observations);
            }
            if (!aweights.isFake() && observations > 0 && min(aweights) < 0) throw new IllegalArgumentException("cov(): aweights cannot be negative");
        }
        if (fweights == null && aweights == null || fweights != null && fweights.isFake() || aweights != null && aweights.isFake()) return;
        double[] f = fweights == null ? null : fweights.toDoubleArray(), aw = aweights == null ? null : aweights.toDoubleArray();
        double sum = 0;
        for (int i = 0; i < observations; i++) sum += (f == null ? 1 : f[i]) * (aw == null ? 1 : aw[i]);
        if (sum == 0) throw new IllegalArgumentException("cov(): weights sum to zero, can't be normalized");
    }

    private static double min(Tensor t) {
        double m = Double.POSITIVE_INFINITY;
        for (double v : t.toDoubleArray()) m = Math.min(m, v);
        return m;
    }
}
