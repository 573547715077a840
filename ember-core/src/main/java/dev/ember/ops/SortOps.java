package dev.ember.ops;

import dev.ember.ops.eager.Sort;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.List;

/**
 * sort, argsort and topk along one dimension: values and their int64 positions, NaN sorting above
 * every number as in ATen. Ember's sort is always stable, so {@code stable=True} and the default
 * agree, and topk's ties come out in their original order (ATen leaves that order unspecified).
 *
 * <p>The order statistics median, nanmedian and kthvalue are defined by their decomposition: the
 * sorted slice's element at the statistic's position (which NaNs move), gathered with its index,
 * so eager, autograd (through sort and gather) and the compiler compute one thing. Among equal
 * values the index is the one the stable sort puts at that position, and nanmedian's of an all-NaN slice is 0: ATen's
 * nth_element leaves both unspecified (for 5 NaNs libtorch gives 2). mode has a kernel of its own
 * (runs of a sorted slice).
 */
public final class SortOps {
    private SortOps() {}

    public static final OpOverload SORT = OpOverload.define("sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)")
            .meta(a -> sortedMeta(a.tensor(0), dim(a, 1), sliceSize(a.tensor(0), dim(a, 1))))
            .kernel((a, m) -> sorted(a.tensor(0), dim(a, 1), a.bool(2), sliceSize(a.tensor(0), dim(a, 1))))
            .derivative(g -> selectedBackward(g, 1))
            .register();

    public static final OpOverload SORT_STABLE = OpOverload.define(
                    "sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)")
            .meta(a -> sortedMeta(a.tensor(0), dim(a, 2), sliceSize(a.tensor(0), dim(a, 2))))
            .kernel((a, m) -> sorted(a.tensor(0), dim(a, 2), a.bool(3), sliceSize(a.tensor(0), dim(a, 2))))
            .derivative(g -> selectedBackward(g, 2))
            .register();

    public static final OpOverload ARGSORT = OpOverload.define("argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor")
            .meta(a -> sortedMeta(a.tensor(0), dim(a, 1), sliceSize(a.tensor(0), dim(a, 1))).get(1))
            .kernel((a, m) -> positions(a.tensor(0), dim(a, 1), a.bool(2), sliceSize(a.tensor(0), dim(a, 1))))
            .register();

    public static final OpOverload TOPK = OpOverload.define(
                    "topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)")
            .meta(a -> {
                Tensor self = a.tensor(0);
                int dim = dim(a, 2);
                long k = a.lng(1);
                if (k < 0 || k > sliceSize(self, dim)) throw new IllegalArgumentException("topk: selected index k out of range");
                if (self.dtype() == DType.BOOL) throw new IllegalArgumentException("topk: \"topk_cpu\" not implemented for 'Bool'");
                return sortedMeta(self, dim, (int) k);
            })
            .kernel((a, m) -> sorted(a.tensor(0), dim(a, 2), a.bool(3), a.integer(1)))
            .derivative(g -> selectedBackward(g, 2))
            .register();

    /**
     * The lower median of each slice along dim (for an even count the lower of the two middle
     * values) and its index; a slice holding NaN gives NaN, at its first NaN's index.
     */
    public static final OpOverload MEDIAN_DIM = ComposedOps.define("median.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
            a -> checkStatistic(a, "median"), (e, a) -> orderStatistic(e, a[0], (Number) a[1], (Boolean) a[2], Statistic.MEDIAN, 0));

    /** median ignoring NaN: the lower median of the numbers of each slice; NaN only where a slice is all NaN. */
    public static final OpOverload NANMEDIAN_DIM = ComposedOps.define("nanmedian.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
            a -> checkStatistic(a, "nanmedian"), (e, a) -> orderStatistic(e, a[0], (Number) a[1], (Boolean) a[2], Statistic.NANMEDIAN, 0));

    /** The k-th smallest element (k from 1) of each slice along dim and its index; NaN ranks above every number. */
    public static final OpOverload KTHVALUE = ComposedOps.define("kthvalue(Tensor self, SymInt k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)",
            SortOps::checkKthvalue, (e, a) -> orderStatistic(e, a[0], (Number) a[2], (Boolean) a[3], Statistic.KTH, ((Number) a[1]).longValue()));

    /**
     * The lower median of all elements, 0-d (NaN if any is NaN). Its gradient is shared evenly by
     * the elements equal to the median, as ATen's evenly_distribute_backward, not sent to one of them.
     */
    public static final OpOverload MEDIAN = ComposedOps.composed("median(Tensor self) -> Tensor",
                    a -> wholeStatisticMeta(a, "median"), (e, a) -> wholeStatistic(e, a[0], MEDIAN_DIM))
            .derivative(SortOps::evenlyDistributedBackward)
            .register();

    /** nanmedian of all elements, 0-d. */
    public static final OpOverload NANMEDIAN = ComposedOps.composed("nanmedian(Tensor self) -> Tensor",
                    a -> wholeStatisticMeta(a, "nanmedian"), (e, a) -> wholeStatistic(e, a[0], NANMEDIAN_DIM))
            .derivative(SortOps::evenlyDistributedBackward)
            .register();

    /**
     * The most frequent value of each slice along dim, the smallest among equally frequent ones, and
     * an index where it occurs: the last one in the slice, as libtorch's CPU kernel gives for slices
     * of up to 16 elements (beyond that its index is any occurrence: std::sort is not stable).
     * NaN equals nothing, so each NaN counts once.
     */
    public static final OpOverload MODE = OpOverload.define("mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)")
            .meta(a -> {
                Tensor self = a.tensor(0);
                int dim = dim(a, 1);
                if (self.dim() > 0 && self.size(dim) == 0) {
                    throw new IndexOutOfBoundsException("mode(): Expected reduction dim " + dim + " to have non-zero size.");
                }
                int[] shape = reducedShape(self, dim, a.bool(2));
                return List.of(TensorMeta.contiguous(self.dtype(), shape), TensorMeta.contiguous(DType.INT64, shape));
            })
            .kernel((a, m) -> mode(a.tensor(0), dim(a, 1), (List<?>) m))
            .derivative(g -> selectedReductionBackward(g, g.intValue(1), (Boolean) g.value(2)))
            .register();

    private enum Statistic { MEDIAN, NANMEDIAN, KTH }

    private static void checkStatistic(Args a, String op) {
        Tensor self = notBool(a.tensor(0), op, "median_out");
        int dim = dim(a, 1);
        if (self.dim() > 0 && self.size(dim) == 0) {
            throw new IndexOutOfBoundsException(op + "(): Expected reduction dim " + dim + " to have non-zero size.");
        }
    }

    private static void checkKthvalue(Args a) {
        Tensor self = notBool(a.tensor(0), "kthvalue", "kthvalue_cpu");
        int dim = dim(a, 2);
        long k = a.lng(1);
        if (k < 1 || k > sliceSize(self, dim)) throw new IndexOutOfBoundsException("kthvalue(): selected number k out of range for dimension " + dim);
    }

    private static TensorMeta wholeStatisticMeta(Args a, String op) { return TensorMeta.contiguous(notBool(a.tensor(0), op, "median_cpu").dtype()); }

    /** ATen's refusal of a bool input, naming the kernel (nanmedian's is median's). */
    private static Tensor notBool(Tensor self, String op, String kernel) {
        if (self.dtype() == DType.BOOL) throw new IllegalArgumentException(op + ": \"" + kernel + "\" not implemented for 'Bool'");
        return self;
    }

    /**
     * median() and nanmedian(): the statistic of the flattened tensor. No elements give NaN, as
     * ATen, which an integer tensor holds as libtorch's conversion of NaN leaves it: the type's
     * smallest value (x86's cvttsd2si).
     */
    private static Object wholeStatistic(OpEmitter e, Object self, OpOverload statistic) {
        TensorMeta m = e.meta(self);
        if (m.numel() == 0) {
            Object nan = switch (m.dtype()) {
                case INT64 -> Long.MIN_VALUE;
                case INT32 -> (long) Integer.MIN_VALUE;
                default -> Double.NaN;
            };
            return e.call(CreationOps.FULL, new int[0], nan, m.dtype());
        }
        List<?> out = (List<?>) e.call(statistic, e.call(ShapeOps.RESHAPE, self, new int[] {-1}), 0L, false);
        return out.getFirst();
    }

    /**
     * The element at the statistic's position in each ascending sorted slice (NaNs last), and its
     * index: a constant position for kthvalue and for numbers that cannot be NaN, otherwise one
     * read from each slice's NaN count: median takes the first NaN when there is one, nanmedian
     * the lower median of the numbers before them.
     */
    private static List<Object> orderStatistic(OpEmitter e, Object self, Number dimArg, boolean keepdim, Statistic statistic, long k) {
        TensorMeta m = e.meta(self);
        int dim = Shapes.wrapDim(statistic == Statistic.KTH ? "kthvalue" : "median", dimArg.intValue(), m.dim());
        long n = m.dim() == 0 ? 1 : m.shape()[dim];
        if (m.dim() == 0) return List.of(e.call(ShapeOps.CLONE, self), e.call(CreationOps.ZEROS, new int[0], DType.INT64));
        List<?> sorted = (List<?>) e.call(SORT, self, (long) dim, false);
        Object values, indices;
        if (statistic == Statistic.KTH || !m.dtype().isFloatingPoint()) {
            long at = statistic == Statistic.KTH ? k - 1 : (n - 1) / 2;
            values = e.call(ShapeOps.NARROW, sorted.get(0), (long) dim, at, 1L);
            indices = e.call(ShapeOps.NARROW, sorted.get(1), (long) dim, at, 1L);
        } else {
            Object nans = e.call(ReductionOps.SUM_DIM, e.call(PointwiseOps.ISNAN, self), new int[] {dim}, true);
            Object numbers = e.call(PointwiseOps.RSUB_SCALAR, nans, n);
            Object at = statistic == Statistic.MEDIAN
                    ? e.call(PointwiseOps.WHERE_SCALAR_OTHER, e.call(PointwiseOps.GT_SCALAR, nans, 0L), numbers, (n - 1) / 2)
                    // an all-NaN slice: (0 - 1) / 2 floors to -1, and its first NaN is at 0
                    : e.call(PointwiseOps.CLAMP, e.call(PointwiseOps.FLOOR_DIVIDE_SCALAR, e.call(PointwiseOps.SUB_SCALAR, numbers, 1L), 2L), 0L, null);
            values = e.call(IndexingOps.GATHER, sorted.get(0), (long) dim, at);
            indices = e.call(IndexingOps.GATHER, sorted.get(1), (long) dim, at);
        }
        if (!keepdim && m.dim() > 0) {
            values = e.call(ShapeOps.SQUEEZE_DIM, values, (long) dim);
            indices = e.call(ShapeOps.SQUEEZE_DIM, indices, (long) dim);
        }
        return List.of(values, indices);
    }

    /** ATen's evenly_distribute_backward: the gradient shared by the elements equal to the result (NaN: the NaN elements). */
    private static Object[] evenlyDistributedBackward(Grad g) {
        TensorMeta self = g.argMeta(0);
        Object x = g.arg(0), result = g.result();
        Object hit = g.where(g.call(PointwiseOps.ISNAN, result), g.call(PointwiseOps.ISNAN, x), g.call(PointwiseOps.EQ_TENSOR, x, result));
        Object share = g.div(g.grad(), g.call(ReductionOps.SUM, hit));
        return new Object[] {g.mul(g.call(ShapeOps.TO_COPY, hit, self.dtype()), share)};
    }

    /** A (values, indices) reduction's gradient: values' gradient to the selected index, zero elsewhere (ATen's value_selecting_reduction_backward). */
    private static Object[] selectedReductionBackward(Grad g, int dimArg, boolean keepdim) {
        TensorMeta self = g.argMeta(0);
        if (self.dim() == 0) return new Object[] {g.grad(0)};
        int dim = Shapes.wrapDim(g.op().schema().name(), dimArg, self.dim());
        Object grad = g.grad(0), indices = g.result(1);
        if (!keepdim) {
            grad = g.call(ShapeOps.UNSQUEEZE, grad, (long) dim);
            indices = g.call(ShapeOps.UNSQUEEZE, indices, (long) dim);
        }
        return new Object[] {g.call(ScatterOps.SCATTER_SRC, g.zeros(self), (long) dim, indices, grad)};
    }

    private static int[] reducedShape(Tensor self, int dim, boolean keepdim) {
        if (self.dim() == 0) return new int[0];
        int[] shape = self.shape();
        if (keepdim) {
            shape[dim] = 1;
            return shape;
        }
        int[] out = new int[shape.length - 1];
        for (int d = 0, j = 0; d < shape.length; d++) if (d != dim) out[j++] = shape[d];
        return out;
    }

    /** mode's kernel: each sorted slice's longest run of equal values (the first such run: the smallest value). */
    private static List<Tensor> mode(Tensor self, int dim, List<?> metas) {
        TensorMeta indicesMeta = (TensorMeta) metas.get(1);
        Tensor x = self.dim() == 0 ? self.reshape(1) : self;
        int d = self.dim() == 0 ? 0 : dim;
        List<Tensor> sorted = SORT.callList(x, (long) d, false);
        // slices as rows: the sorted values and their positions, each slice contiguous
        Tensor values = sorted.get(0).movedim(d, -1).contiguous(), positions = sorted.get(1).movedim(d, -1).contiguous();
        int n = x.size(d), rows = n == 0 ? 0 : values.numel() / n;
        long[] at = positions.toLongArray(), picked = new long[rows];
        boolean floating = self.dtype().isFloatingPoint();
        double[] reals = floating ? values.toDoubleArray() : null;
        long[] integers = floating ? null : values.toLongArray();
        for (int r = 0; r < rows; r++) {
            int base = r * n, best = 0, run = 0;
            long bestAt = 0;
            for (int i = 0; i < n; i++) {
                run++;
                boolean ends = i == n - 1 || (floating ? reals[base + i] != reals[base + i + 1] : integers[base + i] != integers[base + i + 1]);
                if (!ends) continue;
                if (run > best) {
                    best = run;
                    bestAt = at[base + i];   // the run's last element: the stable sort keeps equal values in their order
                }
                run = 0;
            }
            picked[r] = bestAt;
        }
        Tensor indices = Tensor.of(picked, indicesMeta.shape());
        Tensor kept = self.dim() == 0 ? indices : indices.reshape(keptShape(self.shape(), dim));
        Tensor modeValues = self.dim() == 0 ? self.clone() : self.gather(dim, kept).reshape(indicesMeta.shape());
        return List.of(modeValues.contiguous(), indices);
    }

    private static int[] keptShape(int[] shape, int dim) {
        int[] out = shape.clone();
        out[dim] = 1;
        return out;
    }

    /**
     * sort's and topk's values came from self at the positions output 1 names: their gradient goes
     * back there, zero elsewhere (ATen's value_selecting_reduction_backward).
     */
    private static Object[] selectedBackward(Grad g, int dimArg) {
        TensorMeta self = g.argMeta(0);
        if (self.dim() == 0) return new Object[] {g.grad(0)};
        return new Object[] {g.call(ScatterOps.SCATTER_SRC, g.zeros(self), g.value(dimArg), g.result(1), g.grad(0))};
    }

    private static int dim(Args a, int i) { return Shapes.wrapDim(a.op().schema().name(), a.integer(i), a.tensor(0).dim()); }

    private static int sliceSize(Tensor t, int dim) { return t.dim() == 0 ? 1 : t.size(dim); }

    private static List<TensorMeta> sortedMeta(Tensor self, int dim, int k) {
        int[] shape = self.shape();
        if (shape.length > 0) shape[dim] = k;
        return List.of(TensorMeta.contiguous(self.dtype(), shape), TensorMeta.contiguous(DType.INT64, shape));
    }

    /** The first {@code k} of each sorted slice: its values (gathered from self) and their positions. */
    private static List<Tensor> sorted(Tensor self, int dim, boolean descending, int k) {
        Tensor indices = positions(self, dim, descending, k);
        return List.of(self.gather(dim, indices), indices);
    }

    private static Tensor positions(Tensor self, int dim, boolean descending, int k) {
        int[] shape = self.shape();
        if (shape.length > 0) shape[dim] = k;
        return Tensor.of(Sort.order(self, dim, descending, k), shape);
    }

    // ------------------------------------------------------------------ quantiles (session 34, ops8)

    /**
     * The q-th quantiles over {@code dim} (of all elements when None), ATen's algorithm: sort (NaN
     * last), rank {@code q · (n − 1)}, then the value at the rank's floor, ceiling or nearest
     * position, or between the two ("linear", "midpoint"). A slice holding NaN gives NaN. A 1-d q
     * puts its quantiles on a new first dim.
     */
    public static final OpOverload QUANTILE = ComposedOps.define(
            "quantile(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, str interpolation='linear') -> Tensor",
            a -> checkQuantile(a, "quantile"), (e, a) -> quantile(e, a, false));

    public static final OpOverload QUANTILE_SCALAR = ComposedOps.define(
            "quantile.scalar(Tensor self, float q, int? dim=None, bool keepdim=False, *, str interpolation='linear') -> Tensor",
            a -> checkQuantile(a, "quantile"), (e, a) -> quantile(e, a, false));

    /** quantile ignoring NaN: each slice ranked among its non-NaN values (NaN where it has none). */
    public static final OpOverload NANQUANTILE = ComposedOps.define(
            "nanquantile(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, str interpolation='linear') -> Tensor",
            a -> checkQuantile(a, "nanquantile"), (e, a) -> quantile(e, a, true));

    public static final OpOverload NANQUANTILE_SCALAR = ComposedOps.define(
            "nanquantile.scalar(Tensor self, float q, int? dim=None, bool keepdim=False, *, str interpolation='linear') -> Tensor",
            a -> checkQuantile(a, "nanquantile"), (e, a) -> quantile(e, a, true));

    private static final List<String> INTERPOLATIONS = List.of("linear", "lower", "higher", "midpoint", "nearest");

    /** ATen's quantile checks, in its order; q's values are checked where they are known (not while tracing). */
    private static void checkQuantile(Args a, String op) {
        Tensor self = a.tensor(0);
        Tensor q = a.get(1) instanceof Tensor t ? t : null;
        if (self.numel() == 0) throw new IllegalArgumentException(op + ": quantile() input tensor must be non-empty");
        if (q != null && q.dim() > 1) throw new IllegalArgumentException(op + ": quantile() q must be a scalar or 1D tensor");
        if (!self.dtype().isFloatingPoint()) throw new IllegalArgumentException(op + ": quantile() input tensor must be either float or double dtype");
        if (q != null && q.dtype() != self.dtype()) throw new IllegalArgumentException(op + ": quantile() q tensor must be same dtype as the input tensor");
        if (!INTERPOLATIONS.contains(a.str(4))) {
            throw new IllegalArgumentException(op + ": quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got " + a.str(4));
        }
        if (a.get(2) != null) Shapes.wrapDim(op, a.integer(2), Math.max(self.dim(), 1));
        if (q == null) {
            double v = a.dbl(1);
            if (!(v >= 0 && v <= 1)) throw new IllegalArgumentException(op + ": quantile() q must be in the range [0, 1] but got " + v);
        } else if (!(q instanceof dev.ember.tensor.FakeTensor)) {
            for (double v : q.toDoubleArray()) {
                if (!(v >= 0 && v <= 1)) throw new IllegalArgumentException(op + ": quantile() q values must be in the range [0, 1]");
            }
        }
    }

    private static Object quantile(OpEmitter e, Object[] a, boolean ignoreNan) {
        TensorMeta x = e.meta(a[0]);
        DType dtype = x.dtype();
        boolean scalarQ = !(a[1] instanceof Number) && e.meta(a[1]).dim() == 0 || a[1] instanceof Number;
        Object qs = a[1] instanceof Number v ? e.call(CreationOps.FULL, new int[] {1}, v, dtype) : e.call(ShapeOps.RESHAPE, a[1], new int[] {-1});
        int qn = e.meta(qs).shape()[0];
        boolean keepdim = (Boolean) a[3];
        Object moved;
        int[] reduced;
        if (a[2] == null) {
            moved = e.call(ShapeOps.RESHAPE, a[0], new int[] {-1});
            reduced = new int[keepdim ? x.dim() : 0];
            java.util.Arrays.fill(reduced, 1);
        } else {
            int d = Shapes.wrapDim("quantile", ((Number) a[2]).intValue(), Math.max(x.dim(), 1));
            moved = x.dim() == 0 ? e.call(ShapeOps.RESHAPE, a[0], new int[] {1}) : e.call(ShapeOps.MOVEDIM, a[0], new int[] {d}, new int[] {-1});
            int[] shape = x.shape();
            if (keepdim) {
                reduced = shape;
                if (reduced.length > 0) reduced[d] = 1;
            } else {
                reduced = new int[Math.max(shape.length - 1, 0)];
                for (int i = 0, j = 0; i < shape.length; i++) if (i != d) reduced[j++] = shape[i];
            }
        }
        Object sorted = ((List<?>) e.call(SORT, moved, -1L, false)).get(0);   // NaN sorts last
        int[] rows = e.meta(sorted).shape();
        int n = rows[rows.length - 1];
        rows[rows.length - 1] = qn;
        Object ranks;
        if (ignoreNan) {
            // ranked among the non-NaN values; a slice of NaN only gets rank 0, whose value is NaN
            Object count = e.call(ReductionOps.SUM_DIM, e.call(PointwiseOps.LOGICAL_NOT, e.call(PointwiseOps.ISNAN, sorted)), new int[] {-1}, true);
            ranks = e.call(PointwiseOps.MUL_TENSOR, qs, e.call(PointwiseOps.SUB_SCALAR, count, 1L));
            ranks = e.call(PointwiseOps.MASKED_FILL_SCALAR, ranks, e.call(PointwiseOps.LT_SCALAR, ranks, 0L), 0L);
        } else {
            // a slice holding NaN gets the last rank, whose value is NaN
            Object anyNan = e.call(ReductionOps.ANY_DIM, e.call(PointwiseOps.ISNAN, sorted), -1L, true);
            ranks = e.call(ShapeOps.EXPAND, e.call(PointwiseOps.MUL_SCALAR, qs, (long) (n - 1)), rows);
            ranks = e.call(PointwiseOps.MASKED_FILL_SCALAR, ranks, anyNan, (long) (n - 1));
        }
        String mode = (String) a[4];
        switch (mode) {
            case "lower" -> ranks = e.call(PointwiseOps.FLOOR, ranks);
            case "higher" -> ranks = e.call(PointwiseOps.CEIL, ranks);
            case "nearest" -> ranks = e.call(PointwiseOps.ROUND, ranks);
            default -> { }
        }
        Object below = e.call(ShapeOps.TO_COPY, ranks, DType.INT64);
        Object values = e.call(IndexingOps.GATHER, sorted, -1L, below);
        if (mode.equals("linear") || mode.equals("midpoint")) {
            Object weights = mode.equals("midpoint") ? e.call(CreationOps.FULL, e.meta(ranks).shape(), 0.5, dtype)
                    : e.call(PointwiseOps.SUB_TENSOR, ranks, below);
            Object above = e.call(IndexingOps.GATHER, sorted, -1L, e.call(ShapeOps.TO_COPY, e.call(PointwiseOps.CEIL, ranks), DType.INT64));
            values = e.call(PointwiseOps.LERP_TENSOR, values, above, weights);
        }
        if (scalarQ) return e.call(ShapeOps.RESHAPE, values, reduced);
        int[] out = new int[reduced.length + 1];
        out[0] = qn;
        System.arraycopy(reduced, 0, out, 1, reduced.length);
        return e.call(ShapeOps.RESHAPE, e.call(ShapeOps.MOVEDIM, values, new int[] {-1}, new int[] {0}), out);
    }
}
