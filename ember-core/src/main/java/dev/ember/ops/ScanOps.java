package dev.ember.ops;

import dev.ember.ops.eager.Copy;
import dev.ember.ops.eager.Scan;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;

/**
 * cumsum (and its out= form) and cumprod, with ATen's dtype rule: the input is converted to the
 * result dtype first, which is {@code dtype} when given, else int64 for integer and bool inputs and
 * the input's own dtype for floating ones — and, for the out= form, out's dtype when no dtype is given.
 */
public final class ScanOps {
    private ScanOps() {}

    public static final OpOverload CUMSUM = OpOverload.define("cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor")
            .meta(a -> scanMeta("cumsum", a))
            .kernel((a, m) -> cumsum(a.tensor(0), a.integer(1), Tensor.allocate((TensorMeta) m)))
            .derivative(ScanOps::cumsumBackward)
            .register();

    /** Running products; {@link #cumprodBackward} is right where the input has zeros. */
    public static final OpOverload CUMPROD = OpOverload.define("cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor")
            .meta(a -> scanMeta("cumprod", a))
            .kernel((a, m) -> {
                Tensor self = a.tensor(0), out = Tensor.allocate((TensorMeta) m);
                Scan.cumprod(converted(self, out.dtype()), out, Shapes.wrapDim("cumprod", a.integer(1), self.dim()));
                return out;
            })
            .derivative(ScanOps::cumprodBackward)
            .register();

    /** Running maxima along dim and where each was found (the last of equal values; a NaN once met), as ATen's cummax. */
    public static final OpOverload CUMMAX = OpOverload.define("cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)")
            .meta(a -> cumExtremumMeta("cummax", a))
            .kernel((a, m) -> cumExtremum("cummax", a, true))
            .derivative(ScanOps::cumExtremumBackward)
            .register();

    /** Running minima along dim and where each was found, as {@link #CUMMAX}. */
    public static final OpOverload CUMMIN = OpOverload.define("cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)")
            .meta(a -> cumExtremumMeta("cummin", a))
            .kernel((a, m) -> cumExtremum("cummin", a, false))
            .derivative(ScanOps::cumExtremumBackward)
            .register();

    /**
     * {@code log(Σ_{i≤j} exp(x_i))} along dim without overflow (a running logaddexp in double, as
     * ATen's CPU kernel). Its derivative is ATen's: {@code Σ_{j≥i} grad_j · exp(x_i − y_j)}, computed
     * in log space with the gradient's positive and negative parts apart (each a reversed
     * logcumsumexp), so neither overflows.
     */
    public static final OpOverload LOGCUMSUMEXP = OpOverload.define("logcumsumexp(Tensor self, int dim) -> Tensor")
            .meta(a -> {
                Tensor self = a.tensor(0);
                Shapes.wrapDim("logcumsumexp", a.integer(1), self.dim());
                if (!self.dtype().isFloatingPoint()) throw PointwiseOps.notImplemented("logcumsumexp", "logcumsumexp_out_cpu", self.dtype());
                return TensorMeta.contiguous(self.dtype(), self.shape());
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0), out = Tensor.allocate((TensorMeta) m);
                Scan.logcumsumexp(converted(self, self.dtype()), out, Shapes.wrapDim("logcumsumexp", a.integer(1), self.dim()));
                return out;
            })
            .derivative(ScanOps::logcumsumexpBackward)
            .register();

    private static java.util.List<TensorMeta> cumExtremumMeta(String op, Args a) {
        Tensor self = a.tensor(0);
        Shapes.wrapDim(op, a.integer(1), self.dim());
        return java.util.List.of(TensorMeta.contiguous(self.dtype(), self.shape()), TensorMeta.contiguous(DType.INT64, self.shape()));
    }

    private static java.util.List<Tensor> cumExtremum(String op, Args a, boolean max) {
        Tensor self = a.tensor(0);
        Tensor values = Tensor.allocate(self.dtype(), self.shape()), indices = Tensor.allocate(DType.INT64, self.shape());
        Scan.cumExtremum(converted(self, self.dtype()), values, indices, Shapes.wrapDim(op, a.integer(1), self.dim()), max);
        return java.util.List.of(values, indices);
    }

    /** Each running extremum's gradient goes to the element it came from: zeros with grad scatter-added at the indices (ATen's cummaxmin_backward). */
    private static Object[] cumExtremumBackward(Grad g) {
        TensorMeta x = g.argMeta(0);
        if (x.dim() == 0) return new Object[] {g.grad()};
        return new Object[] {g.call(ScatterOps.SCATTER_ADD, g.zeros(x), g.value(1), g.result(1), g.grad())};
    }

    private static Object[] logcumsumexpBackward(Grad g) {
        TensorMeta x = g.argMeta(0);
        if (x.dim() == 0) return new Object[] {g.grad()};
        int d = Shapes.wrapDim("logcumsumexp", g.intValue(1), x.dim());
        // the most negative finite value, not -inf: -inf - (-inf) would be NaN
        double lowest = x.dtype() == DType.FLOAT32 ? -Float.MAX_VALUE : -Double.MAX_VALUE;
        Object grad = g.grad();
        Object logAbs = g.call(PointwiseOps.LOG, g.call(PointwiseOps.ABS, grad));
        Object logPositive = g.where(g.call(PointwiseOps.GT_SCALAR, grad, 0L), logAbs, lowest);
        Object logNegative = g.where(g.call(PointwiseOps.LT_SCALAR, grad, 0L), logAbs, lowest);
        Object positive = g.call(PointwiseOps.EXP, g.add(reversedLogcumsumexp(g, g.sub(logPositive, g.result()), d), g.arg(0)));
        Object negative = g.call(PointwiseOps.EXP, g.add(reversedLogcumsumexp(g, g.sub(logNegative, g.result()), d), g.arg(0)));
        return new Object[] {g.sub(positive, negative)};
    }

    private static Object reversedLogcumsumexp(Grad g, Object t, int dim) {
        int[] dims = {dim};
        return g.call(ShapeOps.FLIP, g.call(LOGCUMSUMEXP, g.call(ShapeOps.FLIP, t, dims), (long) dim), dims);
    }

    public static final OpOverload CUMSUM_OUT = OpOverload.define("cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)")
            .meta(a -> {
                Tensor self = a.tensor(0), out = a.tensor(3);
                Shapes.wrapDim("cumsum", a.integer(1), self.dim());
                DType d = a.optDtype(2);
                if (d != null && d != out.dtype()) {
                    throw new IllegalArgumentException("cumsum: Expected out tensor to have dtype " + PointwiseOps.typeMetaName(d) + ", but got "
                            + PointwiseOps.typeMetaName(out.dtype()) + " instead");
                }
                if (!Arrays.equals(out.shape(), self.shape())) {
                    throw new IllegalArgumentException("cumsum: the out tensor has shape " + Shapes.format(out.shape()) + " but the result has shape "
                            + Shapes.format(self.shape()) + "; Ember does not resize out (ATen would, with a warning): pass an out of shape " + Shapes.format(self.shape()));
                }
                return out.meta();
            })
            .kernel((a, m) -> {
                Tensor out = a.tensor(3);
                if (out.isContiguous() && out.storageOffset() == 0 && out.storage() != a.tensor(0).storage()) cumsum(a.tensor(0), a.integer(1), out);
                else Copy.copy(cumsum(a.tensor(0), a.integer(1), Tensor.allocate(out.dtype(), out.shape())), out);
                out.bumpVersion();
                return out;
            })
            .register();

    /** cumsum's and cumprod's result: self's shape, in {@code dtype}, or int64 for integers and bools, or self's floating dtype. */
    private static TensorMeta scanMeta(String op, Args a) {
        Tensor self = a.tensor(0);
        Shapes.wrapDim(op, a.integer(1), self.dim());
        DType d = a.optDtype(2) != null ? a.optDtype(2) : self.dtype().isFloatingPoint() ? self.dtype() : DType.INT64;
        return TensorMeta.contiguous(d, self.shape());
    }

    /** Sums {@code self}, converted to {@code out}'s dtype, into {@code out} (contiguous, offset 0). */
    private static Tensor cumsum(Tensor self, int dim, Tensor out) {
        Scan.cumsum(converted(self, out.dtype()), out, Shapes.wrapDim("cumsum", dim, self.dim()));
        return out;
    }

    /** {@code self} as the scan kernels take it: contiguous, in {@code dtype} (a copy when it is not already). */
    private static Tensor converted(Tensor self, DType dtype) {
        if (self.dtype() == dtype && self.isContiguous()) return self;
        Tensor x = Tensor.allocate(dtype, self.shape());
        Copy.copy(self, x);
        return x;
    }

    /** x_i feeds every y_j with j ≥ i: the reversed cumulative sum, as total − cumsum + grad. */
    private static Object[] cumsumBackward(Grad g) {
        TensorMeta x = g.argMeta(0);
        if (x.dim() == 0) return new Object[] {g.grad()};
        int d = Shapes.wrapDim("cumsum", g.intValue(1), x.dim());
        Object grad = g.grad();
        Object total = g.sumDims(grad, new int[] {d}, true);
        return new Object[] {g.add(g.sub(total, g.call(CUMSUM, grad, d)), grad)};
    }

    /**
     * ATen's cumprod_backward, without its branch on the data (a graph cannot branch on values):
     * x_k reaches y_j = x_0·…·x_j (j ≥ k) through the product of the others, Π_{i≤j, i≠k} x_i. With
     * the zeros replaced by 1 (x̃), c = cumprod(x̃) and z the running count of zeros, that product is
     * c_j / x̃_k when x_k is the only zero up to j or there is none, else 0. So an element before the
     * slice's first zero gets Σ_{j≥k, z_j=0} grad_j·c_j / x_k (ATen's reversed cumsum of grad·y over
     * x), the first zero gets Σ_{j≥k, z_j=1} grad_j·c_j, and every element after it 0. The simple
     * formula, reversed cumsum of grad·y over x, divides by zero at a zero.
     */
    private static Object[] cumprodBackward(Grad g) {
        TensorMeta x = g.argMeta(0);
        if (x.numel() <= 1) return new Object[] {g.grad()};
        int d = Shapes.wrapDim("cumprod", g.intValue(1), x.dim());
        Object isZero = g.call(PointwiseOps.EQ_SCALAR, g.arg(0), 0L);
        Object nonzero = g.where(isZero, 1.0, g.arg(0));
        Object zerosSoFar = g.call(CUMSUM, isZero, d);
        Object weighted = g.mul(g.grad(), g.call(CUMPROD, nonzero, d, g.value(2)));
        Object beforeFirstZero = g.call(PointwiseOps.EQ_SCALAR, zerosSoFar, 0L), upToSecondZero = g.call(PointwiseOps.EQ_SCALAR, zerosSoFar, 1L);
        Object fromBefore = reversedCumsum(g, g.where(beforeFirstZero, weighted, 0.0), d);
        Object fromFirstZero = reversedCumsum(g, g.where(upToSecondZero, weighted, 0.0), d);
        Object atFirstZero = g.call(PointwiseOps.LOGICAL_AND, isZero, upToSecondZero);
        return new Object[] {g.where(beforeFirstZero, g.div(fromBefore, nonzero), g.where(atFirstZero, fromFirstZero, 0.0))};
    }

    /** {@code out_k = Σ_{j≥k} t_j} along {@code dim}, summed from the end (no cancellation of a total). */
    private static Object reversedCumsum(Grad g, Object t, int dim) {
        int[] dims = {dim};
        return g.call(ShapeOps.FLIP, g.call(CUMSUM, g.call(ShapeOps.FLIP, t, dims), dim), dims);
    }
}
