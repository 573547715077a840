package dev.ember.ops;

import dev.ember.ops.eager.Copy;
import dev.ember.ops.eager.ReduceArg;
import dev.ember.ops.eager.ReduceFold;
import dev.ember.ops.eager.ReducePlan;
import dev.ember.ops.eager.ReduceProduct;
import dev.ember.ops.eager.ReduceSoftmax;
import dev.ember.tensor.DType;
import dev.ember.tensor.Defaults;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;
import java.util.List;

/**
 * Reductions — sum, prod, mean, amax, amin, argmax, argmin, var, std — and softmax, log_softmax,
 * with ATen's dtype rules: sum and prod of integers or bools give int64 unless a dtype is asked for
 * (the input is then converted to it first), mean, var and std take floating inputs only, extrema
 * keep the input's dtype, arg-reductions give int64 positions.
 *
 * <p>An empty or absent dim list reduces every dimension; negative dims count from the end; a 0-d
 * tensor accepts dim 0 and -1. Reducing nothing gives sum 0, prod 1 and mean/var nan, while amax,
 * amin, argmax and argmin of nothing are errors.
 *
 * <p>all, any, logsumexp, norm and count_nonzero are composites of these ({@link ComposedOps}).
 */
public final class ReductionOps {
    private ReductionOps() {}

    public static final OpOverload SUM = OpOverload.define("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor")
            .tags(Tag.REDUCTION)
            .meta(a -> reductionMeta("sum", a.tensor(0), null, false, sumDtype(a.tensor(0), a.optDtype(1))))
            .kernel((a, m) -> sum(a.tensor(0), null, (TensorMeta) m))
            .decomposition((e, a) -> e.call(ReductionOps.SUM_DIM, a[0], null, false, a[1]))
            .derivative(g -> new Object[] {g.call(ShapeOps.EXPAND, g.grad(), g.argMeta(0).shape())})
            .register();

    public static final OpOverload SUM_DIM = OpOverload.define("sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor")
            .tags(Tag.REDUCTION)
            .meta(a -> reductionMeta("sum", a.tensor(0), a.optInts(1), a.bool(2), sumDtype(a.tensor(0), a.optDtype(3))))
            .kernel((a, m) -> sum(a.tensor(0), a.optInts(1), (TensorMeta) m))
            .derivative(g -> new Object[] {g.expandReduced(g.grad(), g.argMeta(0), g.reducedDims(g.argMeta(0), g.value(1)), (Boolean) g.value(2))})
            .register();

    public static final OpOverload MEAN = OpOverload.define("mean(Tensor self, *, ScalarType? dtype=None) -> Tensor")
            .tags(Tag.REDUCTION)
            .meta(a -> reductionMeta("mean", a.tensor(0), null, false, meanDtype(a.tensor(0), a.optDtype(1))))
            .kernel((a, m) -> mean(a.tensor(0), null, (TensorMeta) m))
            .decomposition((e, a) -> e.call(ReductionOps.MEAN_DIM, a[0], null, false, a[1]))
            .derivative(g -> new Object[] {g.div(g.call(ShapeOps.EXPAND, g.grad(), g.argMeta(0).shape()), (double) g.argMeta(0).numel())})
            .register();

    public static final OpOverload MEAN_DIM = OpOverload.define("mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor")
            .tags(Tag.REDUCTION)
            .meta(a -> reductionMeta("mean", a.tensor(0), a.optInts(1), a.bool(2), meanDtype(a.tensor(0), a.optDtype(3))))
            .kernel((a, m) -> mean(a.tensor(0), a.optInts(1), (TensorMeta) m))
            .decomposition((e, a) -> {
                Object x = a[3] == null ? a[0] : e.call(ShapeOps.TO_COPY, a[0], a[3]);
                if (!e.meta(x).dtype().isFloatingPoint()) return null;
                return Composites.mean(e, x, Composites.dims(e, x, a[1]), (Boolean) a[2]);
            })
            .derivative(ReductionOps::meanBackward)
            .register();

    /** The product of every element; the full reduction is prod over the one dim of the flattened input. */
    public static final OpOverload PROD = OpOverload.define("prod(Tensor self, *, ScalarType? dtype=None) -> Tensor")
            .tags(Tag.REDUCTION)
            .meta(a -> reductionMeta("prod", a.tensor(0), null, false, sumDtype(a.tensor(0), a.optDtype(1))))
            .kernel((a, m) -> prod(a.tensor(0), null, (TensorMeta) m))
            .decomposition((e, a) -> e.call(ReductionOps.PROD_DIM, e.call(ShapeOps.RESHAPE, a[0], new int[] {-1}), 0, false, a[1]))
            .derivative(g -> prodBackward(g, g.reducedDims(g.argMeta(0), null), false, g.value(1)))
            .register();

    public static final OpOverload PROD_DIM = OpOverload.define("prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor")
            .tags(Tag.REDUCTION)
            .meta(a -> reductionMeta("prod", a.tensor(0), new int[] {a.integer(1)}, a.bool(2), sumDtype(a.tensor(0), a.optDtype(3))))
            .kernel((a, m) -> prod(a.tensor(0), new int[] {a.integer(1)}, (TensorMeta) m))
            .derivative(g -> prodBackward(g, g.reducedDims(g.argMeta(0), new int[] {g.intValue(1)}), (Boolean) g.value(2), g.value(3)))
            .register();

    public static final OpOverload AMAX = OpOverload.define("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor")
            .tags(Tag.REDUCTION)
            .meta(a -> extremumMeta("amax", a.tensor(0), a.ints(1), a.bool(2)))
            .kernel((a, m) -> extremum(a.tensor(0), a.ints(1), (TensorMeta) m, ReduceFold.Op.MAX))
            .derivative(ReductionOps::extremumBackward)
            .register();

    public static final OpOverload AMIN = OpOverload.define("amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor")
            .tags(Tag.REDUCTION)
            .meta(a -> extremumMeta("amin", a.tensor(0), a.ints(1), a.bool(2)))
            .kernel((a, m) -> extremum(a.tensor(0), a.ints(1), (TensorMeta) m, ReduceFold.Op.MIN))
            .derivative(ReductionOps::extremumBackward)
            .register();

    public static final OpOverload ARGMAX = OpOverload.define("argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor")
            .tags(Tag.REDUCTION)
            .meta(a -> argMeta("argmax", a.tensor(0), a.optInteger(1), a.bool(2)))
            .kernel((a, m) -> arg(a.tensor(0), a.optInteger(1), (TensorMeta) m, true))
            .register();

    public static final OpOverload ARGMIN = OpOverload.define("argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor")
            .tags(Tag.REDUCTION)
            .meta(a -> argMeta("argmin", a.tensor(0), a.optInteger(1), a.bool(2)))
            .kernel((a, m) -> arg(a.tensor(0), a.optInteger(1), (TensorMeta) m, false))
            .register();

    /**
     * torch's {@code x.max(dim)}: the largest value along {@code dim} and its index (the first one;
     * NaN is the largest, as ATen's). Its gradient goes to that index alone (ATen's
     * {@code value_selecting_reduction_backward}), unlike {@code amax}'s, which ties share: the
     * values are gathered at argmax's indices.
     */
    public static final OpOverload MAX_DIM = ComposedOps.define("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
            (e, a) -> selectedAlong(e, a, ReductionOps.ARGMAX));

    /** torch's {@code x.min(dim)}: the smallest value along {@code dim} and its index, as {@link #MAX_DIM}. */
    public static final OpOverload MIN_DIM = ComposedOps.define("min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
            (e, a) -> selectedAlong(e, a, ReductionOps.ARGMIN));

    private static Object selectedAlong(OpEmitter e, Object[] a, OpOverload arg) {
        long dim = ((Number) a[1]).longValue();
        boolean keepdim = (Boolean) a[2];
        Object index = e.call(arg, a[0], dim, true);
        Object values = e.call(IndexingOps.GATHER, a[0], dim, index);
        if (keepdim || e.meta(a[0]).dim() == 0) return List.of(values, index);
        return List.of(e.call(ShapeOps.SQUEEZE_DIM, values, dim), e.call(ShapeOps.SQUEEZE_DIM, index, dim));
    }

    public static final OpOverload ARGMAX_OUT = OutForms.of("argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)", ARGMAX);
    public static final OpOverload ARGMIN_OUT = OutForms.of("argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)", ARGMIN);

    public static final OpOverload VAR = OpOverload.define("var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor")
            .tags(Tag.REDUCTION)
            .meta(a -> varianceMeta("var", a.tensor(0), a.optInts(1), a.bool(3)))
            .kernel((a, m) -> variance(a.tensor(0), a.optInts(1), a.optDbl(2), (TensorMeta) m, false))
            .decomposition((e, a) -> Composites.variance(e, a[0], a[1], a[2], (Boolean) a[3]))
            .derivative(g -> varianceBackward(g, false))
            .register();

    public static final OpOverload STD = OpOverload.define("std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor")
            .tags(Tag.REDUCTION)
            .meta(a -> varianceMeta("std", a.tensor(0), a.optInts(1), a.bool(3)))
            .kernel((a, m) -> variance(a.tensor(0), a.optInts(1), a.optDbl(2), (TensorMeta) m, true))
            .decomposition((e, a) -> {
                Object var = Composites.variance(e, a[0], a[1], a[2], (Boolean) a[3]);
                return var == null ? null : e.call(PointwiseOps.SQRT, var);
            })
            .derivative(g -> varianceBackward(g, true))
            .register();

    public static final OpOverload SOFTMAX = OpOverload.define("_softmax(Tensor self, int dim, bool half_to_float) -> Tensor")
            .meta(a -> softmaxMeta("softmax", a.tensor(0), a.integer(1), a.bool(2)))
            .kernel((a, m) -> softmax(a.tensor(0), a.integer(1), (TensorMeta) m, false))
            // A tensor with no elements is its own softmax: the max-shift formula's amax would refuse
            // an empty reduction dim, where the kernel returns an empty result.
            .decomposition((e, a) -> {
                if (e.meta(a[0]).numel() == 0) return e.call(ShapeOps.CLONE, a[0]);
                int[] dim = {Composites.wrap(e, a[0], a[1])};
                Object max = e.call(ReductionOps.AMAX, a[0], dim, true);
                Object exp = e.call(PointwiseOps.EXP, e.call(PointwiseOps.SUB_TENSOR, a[0], max));
                // the eager kernel multiplies by the sum's reciprocal (one division a row), so compiled code does too
                return e.call(PointwiseOps.MUL_TENSOR, exp, e.call(PointwiseOps.RECIPROCAL, e.call(ReductionOps.SUM_DIM, exp, dim, true)));
            })
            .derivative(ReductionOps::softmaxBackward)
            .register();

    public static final OpOverload LOG_SOFTMAX = OpOverload.define("_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor")
            .meta(a -> softmaxMeta("log_softmax", a.tensor(0), a.integer(1), a.bool(2)))
            .kernel((a, m) -> softmax(a.tensor(0), a.integer(1), (TensorMeta) m, true))
            .decomposition((e, a) -> {
                if (e.meta(a[0]).numel() == 0) return e.call(ShapeOps.CLONE, a[0]);
                int[] dim = {Composites.wrap(e, a[0], a[1])};
                Object shifted = e.call(PointwiseOps.SUB_TENSOR, a[0], e.call(ReductionOps.AMAX, a[0], dim, true));
                Object sumExp = e.call(ReductionOps.SUM_DIM, e.call(PointwiseOps.EXP, shifted), dim, true);
                return e.call(PointwiseOps.SUB_TENSOR, shifted, e.call(PointwiseOps.LOG, sumExp));
            })
            .derivative(ReductionOps::logSoftmaxBackward)
            .register();

    public static final OpOverload SOFTMAX_INT = OpOverload.define("softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor")
            .meta(a -> SOFTMAX.inferMeta(SOFTMAX.bind(converted(a), a.get(1), false)))
            .kernel((a, m) -> SOFTMAX.callTensor(converted(a), a.get(1), false))
            .derivative(ReductionOps::softmaxBackward)
            .register();

    /** {@code _log_softmax} after converting to {@code dtype} when one is given (ATen's CPU path). */
    public static final OpOverload LOG_SOFTMAX_INT = OpOverload.define("log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor")
            .meta(a -> LOG_SOFTMAX.inferMeta(LOG_SOFTMAX.bind(converted(a), a.get(1), false)))
            .kernel((a, m) -> LOG_SOFTMAX.callTensor(converted(a), a.get(1), false))
            .derivative(ReductionOps::logSoftmaxBackward)
            .register();

    // ------------------------------------------------------------------ composites (defined by their decompositions)

    /** Whether every element is nonzero (NaN counts as nonzero); a bool 0-d tensor, true for no elements. */
    public static final OpOverload ALL = ComposedOps.define("all(Tensor self) -> Tensor", (e, a) -> allOrAny(e, a[0], null, false, true));

    public static final OpOverload ALL_DIM = ComposedOps.define("all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
            a -> Shapes.wrapDim("all", a.integer(1), a.tensor(0).dim()), (e, a) -> allOrAny(e, a[0], a[1], (Boolean) a[2], true));

    /** Whether any element is nonzero; a bool 0-d tensor, false for no elements. */
    public static final OpOverload ANY = ComposedOps.define("any(Tensor self) -> Tensor", (e, a) -> allOrAny(e, a[0], null, false, false));

    public static final OpOverload ANY_DIM = ComposedOps.define("any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
            a -> Shapes.wrapDim("any", a.integer(1), a.tensor(0).dim()), (e, a) -> allOrAny(e, a[0], a[1], (Boolean) a[2], false));

    /**
     * {@code log Σ exp(x)} over {@code dim}, shifted by the max as ATen computes it: {@code log Σ exp(x − m) + m},
     * with m taken as 0 where it is infinite (a slice all −inf gives −inf, one with +inf gives +inf,
     * rather than the NaN of inf − inf). Integer and bool inputs are converted to the default dtype first.
     */
    public static final OpOverload LOGSUMEXP = ComposedOps.define("logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor",
            a -> reducedDims("logsumexp", a.ints(1), a.tensor(0).dim()), ReductionOps::logsumexp);

    /** The 2-norm of all elements (or the p-norm: {@link #NORM_DIM}). */
    public static final OpOverload NORM = ComposedOps.define("norm.Scalar(Tensor self, Scalar p=2) -> Tensor",
            a -> checkNorm(a.tensor(0), a.scalar(1), null), (e, a) -> norm(e, a[0], a[1], null, false));

    /**
     * The vector p-norm over {@code dim}: Σ|x|^p^(1/p) for finite p, the largest |x| for p = inf, the
     * smallest for -inf, the count of nonzeros for p = 0 (p None is 2; torch.norm's "fro" is p = 2).
     */
    public static final OpOverload NORM_DIM = ComposedOps.define("norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor",
            a -> checkNorm(a.tensor(0), a.get(1) == null ? 2L : a.scalar(1), a.ints(2)), (e, a) -> norm(e, a[0], a[1], a[2], (Boolean) a[3]));

    /** How many elements are nonzero, over all dims; int64. */
    public static final OpOverload COUNT_NONZERO = ComposedOps.define("count_nonzero(Tensor self, int? dim=None) -> Tensor",
            a -> { if (a.get(1) != null) Shapes.wrapDim("count_nonzero", a.integer(1), a.tensor(0).dim()); },
            (e, a) -> countNonzero(e, a[0], a[1]));

    /** How many elements are nonzero over {@code dim} (all dims when empty); int64. */
    public static final OpOverload COUNT_NONZERO_DIMS = ComposedOps.define("count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor",
            a -> reducedDims("count_nonzero", a.ints(1), a.tensor(0).dim()), (e, a) -> countNonzero(e, a[0], a[1]));

    /** all: no element is zero (the count of zeros is 0); any: some element is nonzero. */
    private static Object allOrAny(OpEmitter e, Object x, Object dim, boolean keepdim, boolean all) {
        Object hits = e.call(all ? PointwiseOps.EQ_SCALAR : PointwiseOps.NE_SCALAR, x, 0L);
        Object count = e.call(SUM_DIM, hits, dim == null ? null : new int[] {((Number) dim).intValue()}, keepdim);
        return e.call(all ? PointwiseOps.EQ_SCALAR : PointwiseOps.NE_SCALAR, count, 0L);
    }

    private static Object countNonzero(OpEmitter e, Object x, Object dims) {
        return e.call(SUM_DIM, e.call(PointwiseOps.NE_SCALAR, x, 0L), dims == null ? null : Composites.toInts(dims), false);
    }

    private static Object logsumexp(OpEmitter e, Object[] a) {
        Object x = a[0];
        if (!e.meta(x).dtype().isFloatingPoint()) x = e.call(ShapeOps.TO_COPY, x, Defaults.dtype());
        int[] dims = Composites.dims(e, x, a[1]);
        boolean keepdim = (Boolean) a[2];
        // no max of nothing: ATen sums the exponentials unshifted (log 0 = -inf)
        if (e.meta(x).numel() == 0) return e.call(PointwiseOps.LOG, e.call(SUM_DIM, e.call(PointwiseOps.EXP, x), dims, keepdim));
        Object max = e.call(AMAX, x, dims, true);
        max = e.call(PointwiseOps.MASKED_FILL_SCALAR, max, e.call(PointwiseOps.EQ_SCALAR, e.call(PointwiseOps.ABS, max), Double.POSITIVE_INFINITY), 0L);
        Object sum = e.call(SUM_DIM, e.call(PointwiseOps.EXP, e.call(PointwiseOps.SUB_TENSOR, x, max)), dims, keepdim);
        Object shift = keepdim ? max : e.call(ShapeOps.RESHAPE, max, e.meta(sum).shape());
        return e.call(PointwiseOps.ADD_TENSOR, e.call(PointwiseOps.LOG, sum), shift);
    }

    private static void checkNorm(Tensor t, Object p, int[] dims) {
        if (!t.dtype().isFloatingPoint()) {
            throw new IllegalArgumentException("norm: norm(): input dtype should be either floating point or complex. Got " + t.dtype().scalarTypeName() + " instead.");
        }
        boolean[] reduced = reducedDims("norm", dims, t.dim());
        if (!Double.isInfinite(((Number) p).doubleValue())) return;
        for (int d = 0; d < t.dim(); d++) {
            if (reduced[d] && t.size(d) == 0) {
                throw new IllegalArgumentException("norm: linalg.vector_norm cannot compute the inf norm on the dimension " + d
                        + " because this dimension is empty and the operation does not have an identity");
            }
        }
    }

    /** torch.norm with a number p is linalg.vector_norm (as ATen's norm is), whose gradient at a zero slice is 0. */
    private static Object norm(OpEmitter e, Object x, Object pArg, Object dimArg, boolean keepdim) {
        return e.call(DistanceOps.LINALG_VECTOR_NORM, x, pArg == null ? 2L : pArg, Composites.dims(e, x, dimArg), keepdim);
    }

    /** softmax.int's input in its {@code dtype} argument (metadata only for fake tensors). */
    private static Tensor converted(Args a) {
        Tensor self = a.tensor(0);
        DType d = a.optDtype(2);
        return d == null || d == self.dtype() ? self : self.to(d);
    }

    // ------------------------------------------------------------------ dims and shapes

    /** Which dims a dim list reduces: all when it is null or empty; ATen's range and duplicate errors. */
    static boolean[] reducedDims(String op, int[] dims, int ndim) {
        boolean[] mask = new boolean[ndim];
        if (dims == null || dims.length == 0) {
            Arrays.fill(mask, true);
            return mask;
        }
        boolean[] seen = new boolean[Math.max(ndim, 1)];
        for (int d : dims) {
            int w = Shapes.wrapDim(op, d, ndim);
            if (seen[w]) throw new IllegalArgumentException(op + ": dim " + w + " appears multiple times in the list of dims " + Arrays.toString(dims));
            seen[w] = true;
            if (ndim > 0) mask[w] = true;
        }
        return mask;
    }

    private static int[] reducedShape(int[] shape, boolean[] mask, boolean keepdim) {
        int n = 0;
        int[] out = new int[shape.length];
        for (int d = 0; d < shape.length; d++) {
            if (!mask[d]) out[n++] = shape[d];
            else if (keepdim) out[n++] = 1;
        }
        return Arrays.copyOf(out, n);
    }

    private static TensorMeta reductionMeta(String op, Tensor t, int[] dims, boolean keepdim, DType dtype) {
        return TensorMeta.contiguous(dtype, reducedShape(t.shape(), reducedDims(op, dims, t.dim()), keepdim));
    }


    // ------------------------------------------------------------------ sum and mean

    /** sum's and prod's result dtype (ATen's get_dtype_from_self with promote_integers). */
    private static DType sumDtype(Tensor t, DType requested) {
        if (requested != null) return requested;
        return t.dtype().isFloatingPoint() ? t.dtype() : DType.INT64;
    }

    private static DType meanDtype(Tensor t, DType requested) {
        DType d = requested != null ? requested : t.dtype();
        if (!d.isFloatingPoint()) {
            String what = requested != null ? "Optional" : "Input";
            throw new IllegalArgumentException("mean(): could not infer output dtype. " + what
                    + " dtype must be either a floating point or complex dtype. Got: " + d.scalarTypeName());
        }
        return d;
    }

    private static Tensor sum(Tensor t, int[] dims, TensorMeta meta) {
        Tensor out = Tensor.allocateUninitialized(meta);
        boolean[] mask = reducedDims("sum", dims, t.dim());
        if (meta.dtype().isFloatingPoint()) {
            Tensor x = converted(t, meta.dtype());
            write(out, ReduceFold.floating(x, ReducePlan.of(x, mask, false), ReduceFold.Op.SUM, null));
        } else {
            // Convert to the result dtype first (ATen sums in it), then widen exactly to int64 to fold.
            Tensor x = converted(converted(t, meta.dtype()), DType.INT64);
            write(out, ReduceFold.integral(x, ReducePlan.of(x, mask, false), ReduceFold.Op.SUM));
        }
        return out;
    }

    /** Products in the terms' logical order, as the inductor's generated loop multiplies them ({@link ReduceProduct}). */
    private static Tensor prod(Tensor t, int[] dims, TensorMeta meta) {
        Tensor out = Tensor.allocateUninitialized(meta);
        boolean[] mask = reducedDims("prod", dims, t.dim());
        if (meta.dtype().isFloatingPoint()) {
            Tensor x = converted(t, meta.dtype());
            write(out, ReduceProduct.floating(x, ReducePlan.of(x, mask, true)));
        } else {
            // in the result dtype first (int32 wraps there), then widened exactly to int64 to multiply
            Tensor x = converted(converted(t, meta.dtype()), DType.INT64);
            write(out, ReduceProduct.integral(x, ReducePlan.of(x, mask, true)));
        }
        return out;
    }

    private static Tensor mean(Tensor t, int[] dims, TensorMeta meta) {
        Tensor out = Tensor.allocateUninitialized(meta);
        Tensor x = converted(t, meta.dtype());
        ReducePlan plan = ReducePlan.of(x, reducedDims("mean", dims, t.dim()), false);
        double[] sums = ReduceFold.floating(x, plan, ReduceFold.Op.SUM, null);
        for (int i = 0; i < sums.length; i++) sums[i] /= plan.redNumel();
        write(out, sums);
        return out;
    }

    // ------------------------------------------------------------------ amax, amin, argmax, argmin

    private static TensorMeta extremumMeta(String op, Tensor t, int[] dims, boolean keepdim) {
        boolean[] mask = reducedDims(op, dims, t.dim());
        if (t.numel() == 0) {
            if (dims.length == 0) {
                throw new IllegalArgumentException(op + "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument. (input of size "
                        + Shapes.format(t.shape()) + ")");
            }
            for (int d : dims) {
                if (t.size(d) == 0) throw new IndexOutOfBoundsException(op + "(): Expected reduction dim " + d + " to have non-zero size. (input of size " + Shapes.format(t.shape()) + ")");
            }
        }
        return TensorMeta.contiguous(t.dtype(), reducedShape(t.shape(), mask, keepdim));
    }

    private static Tensor extremum(Tensor t, int[] dims, TensorMeta meta, ReduceFold.Op op) {
        Tensor out = Tensor.allocateUninitialized(meta);
        boolean[] mask = reducedDims(op == ReduceFold.Op.MAX ? "amax" : "amin", dims, t.dim());
        if (t.dtype().isFloatingPoint()) {
            write(out, ReduceFold.floating(t, ReducePlan.of(t, mask, false), op, null));
        } else {
            Tensor x = converted(t, DType.INT64);
            write(out, ReduceFold.integral(x, ReducePlan.of(x, mask, false), op));
        }
        return out;
    }

    private static TensorMeta argMeta(String op, Tensor t, Integer dim, boolean keepdim) {
        if (t.dtype() == DType.BOOL) throw new IllegalArgumentException(op + ": \"" + op + "_cpu\" not implemented for 'Bool'");
        boolean[] mask = new boolean[t.dim()];
        if (dim != null) {
            int w = Shapes.wrapDim(op, dim, t.dim());
            if (t.dim() > 0) {
                if (t.shape()[w] == 0) throw new IndexOutOfBoundsException(op + "(): Expected reduction dim " + w + " to have non-zero size. (input of size " + Shapes.format(t.shape()) + ")");
                mask[w] = true;
            }
        } else {
            if (t.numel() == 0) throw new IndexOutOfBoundsException(op + "(): Expected reduction dim to be specified for input.numel() == 0. (input of size " + Shapes.format(t.shape()) + ")");
            Arrays.fill(mask, true);
        }
        return TensorMeta.contiguous(DType.INT64, reducedShape(t.shape(), mask, keepdim));
    }

    private static Tensor arg(Tensor t, Integer dim, TensorMeta meta, boolean max) {
        Tensor out = Tensor.allocate(meta);
        boolean[] mask = new boolean[t.dim()];
        if (dim == null) Arrays.fill(mask, true);
        else if (t.dim() > 0) mask[Shapes.wrapDim(max ? "argmax" : "argmin", dim, t.dim())] = true;
        Tensor x = t.dtype().isFloatingPoint() ? t : converted(t, DType.INT64);
        long[] at = ReduceArg.positions(x, ReducePlan.of(x, mask, true), max);
        System.arraycopy(at, 0, out.storage().longs(), 0, at.length);
        return out;
    }

    // ------------------------------------------------------------------ var and std

    private static TensorMeta varianceMeta(String op, Tensor t, int[] dims, boolean keepdim) {
        if (!t.dtype().isFloatingPoint()) {
            throw new IllegalArgumentException(op + ": std and var only support floating point and complex dtypes, but got " + t.dtype());
        }
        return reductionMeta(op, t, dims, keepdim, t.dtype());
    }

    /** Two passes in double: the mean, then squared deviations around it, over {@code max(0, N - correction)} (nan when N is 0). */
    private static Tensor variance(Tensor t, int[] dims, Double correction, TensorMeta meta, boolean sqrt) {
        Tensor out = Tensor.allocate(meta);
        ReducePlan plan = ReducePlan.of(t, reducedDims(sqrt ? "std" : "var", dims, t.dim()), false);
        int n = plan.redNumel();
        double[] means = ReduceFold.floating(t, plan, ReduceFold.Op.SUM, null);
        for (int i = 0; i < means.length; i++) means[i] /= n;
        double[] v = ReduceFold.floating(t, plan, ReduceFold.Op.SQUARED_DEVIATIONS, means);
        double dof = Math.max(0, n - (correction == null ? 1 : correction));
        for (int i = 0; i < v.length; i++) {
            double var = n == 0 ? Double.NaN : v[i] / dof;
            v[i] = sqrt ? Math.sqrt(var) : var;
        }
        write(out, v);
        return out;
    }

    // ------------------------------------------------------------------ softmax

    private static TensorMeta softmaxMeta(String op, Tensor t, int dim, boolean halfToFloat) {
        if (halfToFloat) throw new IllegalArgumentException("_" + op + ": softmax with half to float conversion is not supported on CPU (input " + t.dtype() + ")");
        int w = Shapes.wrapDim("_" + op, dim, t.dim());
        if (!t.dtype().isFloatingPoint()) {
            // ATen's kernel names: log_softmax shares softmax's kernel except along the last dim
            String kernel = w == Math.max(t.dim(), 1) - 1 ? op + "_lastdim_kernel_impl" : "softmax_kernel_impl";
            throw new IllegalArgumentException("_" + op + ": \"" + kernel + "\" not implemented for '" + t.dtype().scalarTypeName()
                    + "' (" + op + " needs a floating point input)");
        }
        return TensorMeta.contiguous(t.dtype(), t.shape());
    }

    private static Tensor softmax(Tensor t, int dim, TensorMeta meta, boolean log) {
        Tensor out = Tensor.allocateUninitialized(meta);
        int w = t.dim() == 0 ? 0 : Shapes.wrapDim("softmax", dim, t.dim());
        ReduceSoftmax.run(t.contiguous(), out, w, log);
        return out;
    }

    // ------------------------------------------------------------------ helpers

    /** {@code t} itself when already of dtype {@code d}, else a contiguous converted copy (C-style casts). */
    private static Tensor converted(Tensor t, DType d) {
        if (t.dtype() == d) return t;
        Tensor c = Tensor.allocateUninitialized(TensorMeta.contiguous(d, t.shape()));
        Copy.copy(t, c);
        return c;
    }

    private static void write(Tensor out, double[] values) {
        Storage s = out.storage();
        switch (s.dtype()) {
            case FLOAT64 -> System.arraycopy(values, 0, s.doubles(), 0, values.length);
            case FLOAT32 -> {
                float[] f = s.floats();
                for (int i = 0; i < values.length; i++) f[i] = (float) values[i];
            }
            default -> {
                for (int i = 0; i < values.length; i++) s.writeDouble(i, values[i]);
            }
        }
    }

    private static void write(Tensor out, long[] values) {
        Storage s = out.storage();
        for (int i = 0; i < values.length; i++) s.writeLong(i, values[i]);
    }

    // ------------------------------------------------------------------ derivatives

    /**
     * ATen's prod_backward, without its branch on the data (a graph cannot branch on values): each
     * element gets the gradient times the product of the other elements of its slice. With the
     * zeros replaced by 1 (x̃) and counted per slice (z), that product is prod(x̃) / x̃ in a slice
     * without zeros (ATen's result / input), prod(x̃) at the zero of a slice with one (0 elsewhere
     * in it), and 0 everywhere in a slice with two or more.
     */
    private static Object[] prodBackward(Grad g, int[] dims, boolean keepdim, Object dtype) {
        TensorMeta x = g.argMeta(0);
        if (x.dim() == 0) return new Object[] {g.grad()};
        Object isZero = g.call(PointwiseOps.EQ_SCALAR, g.arg(0), 0L);
        Object nonzero = g.where(isZero, 1.0, g.arg(0));
        Object zeros = g.sumDims(isZero, dims, true);
        Object others = dims.length == 1 ? g.call(PROD_DIM, nonzero, dims[0], true, dtype) : g.call(PROD, nonzero, dtype);
        Object atTheOneZero = g.call(PointwiseOps.LOGICAL_AND, isZero, g.call(PointwiseOps.EQ_SCALAR, zeros, 1L));
        Object ofOthers = g.where(g.call(PointwiseOps.EQ_SCALAR, zeros, 0L), g.div(others, nonzero), g.where(atTheOneZero, others, 0.0));
        return new Object[] {g.mul(g.expandReduced(g.grad(), x, dims, keepdim), ofOthers)};
    }

    private static Object[] meanBackward(Grad g) {
        TensorMeta x = g.argMeta(0);
        int[] dims = g.reducedDims(x, g.value(1));
        double n = 1;
        for (int d : dims) n *= x.shape()[d];
        return new Object[] {g.div(g.expandReduced(g.grad(), x, dims, (Boolean) g.value(2)), n)};
    }

    /**
     * amax/amin: the gradient is shared evenly by the elements equal to the extremum. The extremum
     * is taken again from the saved input rather than read from the result: compiled code may
     * compute the input once inside the reduction's kernel and once for the saved copy, rounding
     * the two apart by an ulp, and then no element would equal the result (training fuzzer, seed
     * 7000138: amin of a division got no gradient).
     */
    private static Object[] extremumBackward(Grad g) {
        TensorMeta x = g.argMeta(0);
        int[] dims = g.reducedDims(x, g.value(1));
        boolean keepdim = (Boolean) g.value(2);
        Object extremum = g.call(g.op(), g.arg(0), dims, true);
        Object hit = g.call(ShapeOps.TO_COPY, g.call(PointwiseOps.EQ_TENSOR, g.arg(0), g.call(ShapeOps.EXPAND, extremum, x.shape())), x.dtype());
        Object count = g.sumDims(hit, dims, true);
        Object share = g.div(g.expandReduced(g.grad(), x, dims, keepdim), count);
        return new Object[] {g.mul(share, hit)};
    }

    /** var: grad · 2(x − mean) / (n − c); std: grad · (x − mean) / ((n − c) · std). */
    private static Object[] varianceBackward(Grad g, boolean std) {
        TensorMeta x = g.argMeta(0);
        int[] dims = g.reducedDims(x, g.value(1));
        boolean keepdim = (Boolean) g.value(3);
        double n = 1;
        for (int d : dims) n *= x.shape()[d];
        double c = g.value(2) == null ? 1 : ((Number) g.value(2)).doubleValue();
        Object centered = g.sub(g.arg(0), g.call(MEAN_DIM, g.arg(0), dims, true));
        Object grad = std ? g.div(g.grad(), g.result()) : g.mul(g.grad(), 2.0);
        return new Object[] {g.div(g.mul(g.expandReduced(grad, x, dims, keepdim), centered), n - c)};
    }

    /** y · (grad − Σ grad·y), y the softmax. */
    /** ATen's formula, {@code _softmax_backward_data(grad, result, dim, self.dtype)}: the formula has one definition, that op's. */
    private static Object[] softmaxBackward(Grad g) {
        return new Object[] {g.call(SoftmaxInternalOps.SOFTMAX_BACKWARD_DATA, g.grad(), g.result(), g.value(1), g.argMeta(0).dtype())};
    }

    /** grad − exp(y) · Σ grad, y the log-softmax. */
    private static Object[] logSoftmaxBackward(Grad g) {
        Object y = g.result(), grad = g.grad();
        if (g.argMeta(0).dim() == 0) return new Object[] {g.zeros(g.argMeta(0))};
        int[] dim = {g.reducedDims(g.argMeta(0), g.value(1))[0]};
        return new Object[] {g.sub(grad, g.mul(g.call(PointwiseOps.EXP, y), g.sumDims(grad, dim, true)))};
    }

    // ------------------------------------------------------------------ everyday reductions (session 34, ops8)

    /**
     * The minimum and the maximum over {@code dim} (all elements when None), as amin and amax give
     * them; with keepdim and no dim, both of shape [1, …, 1]. An empty reduction is refused, as ATen's.
     * Its gradient is amin's and amax's (ties share it evenly), where libtorch 2.7 has none.
     */
    public static final OpOverload AMINMAX = ComposedOps.define("aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)",
            a -> {
                Tensor t = a.tensor(0);
                if (a.get(1) == null) {
                    if (t.numel() == 0) throw new IllegalArgumentException("aminmax: aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
                } else {
                    int d = Shapes.wrapDim("aminmax", a.integer(1), Math.max(t.dim(), 1));
                    if (t.dim() > 0 && t.size(d) == 0) {
                        throw new IllegalArgumentException("aminmax: aminmax(): Expected reduction dim " + d + " to have non-zero size.");
                    }
                }
            },
            (e, a) -> {
                int[] dims = a[1] == null ? new int[0] : new int[] {((Number) a[1]).intValue()};
                return List.of(e.call(ReductionOps.AMIN, a[0], dims, a[2]), e.call(ReductionOps.AMAX, a[0], dims, a[2]));
            });

    /**
     * Each slice along {@code dim} (self.select(dim, i)) whose p-norm exceeds {@code maxnorm}
     * scaled down to norm {@code maxnorm}: {@code self · (norm > maxnorm ? maxnorm / (norm + 1e-7) : 1)},
     * ATen's formula, so its gradient through the decomposition is ATen's renorm_backward.
     */
    public static final OpOverload RENORM = ComposedOps.define("renorm(Tensor self, Scalar p, int dim, Scalar maxnorm) -> Tensor",
            a -> {
                if (!(a.dbl(1) > 0)) throw new IllegalArgumentException("renorm: non-positive-norm not supported");
                if (!(a.dbl(3) >= 0)) throw new IllegalArgumentException("renorm: expected maxnorm to be >= 0 but got " + a.dbl(3));
                Tensor t = a.tensor(0);
                if (t.dim() <= 1) throw new IllegalArgumentException("renorm: input needs at least 2 dimensions, got " + t.dim() + " dimensions");
                Shapes.wrapDim("renorm", a.integer(2), t.dim());
                if (!t.dtype().isFloatingPoint()) {
                    throw new IllegalArgumentException("renorm: linalg.vector_norm: Expected a floating point or complex tensor as input. Got " + t.dtype().scalarTypeName());
                }
            },
            (e, a) -> {
                TensorMeta x = e.meta(a[0]);
                int d = Shapes.wrapDim("renorm", ((Number) a[2]).intValue(), x.dim());
                int[] others = new int[x.dim() - 1];
                for (int i = 0, j = 0; i < x.dim(); i++) if (i != d) others[j++] = i;
                Object norm = e.call(ReductionOps.NORM_DIM, a[0], a[1], others, true);
                double maxnorm = ((Number) a[3]).doubleValue();
                Object limit = e.call(CreationOps.FULL, new int[0], maxnorm, x.dtype());
                Object shrink = e.call(PointwiseOps.DIV_TENSOR, limit, e.call(PointwiseOps.ADD_SCALAR, norm, 1e-7));
                Object factor = e.call(PointwiseOps.WHERE_SCALAR_OTHER, e.call(PointwiseOps.GT_SCALAR, norm, maxnorm), shrink, 1.0);
                return e.call(PointwiseOps.MUL_TENSOR, a[0], factor);
            });
}
