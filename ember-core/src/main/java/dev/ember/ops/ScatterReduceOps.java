package dev.ember.ops;

import dev.ember.ops.eager.Copy;
import dev.ember.ops.eager.Scatter;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

/**
 * scatter_reduce and index_reduce: src's elements (scatter_reduce, one index per element) or
 * slices (index_reduce, one index per slice) combined into a copy of self, or into self in place,
 * by "sum" (scatter_reduce only), "prod", "mean", "amax" or "amin". With {@code include_self=False}
 * the written positions start from the reduction's identity instead of self's value (and a mean
 * counts only what was written there). As ATen's CPU kernels: sums and products accumulate in the
 * dtype in src's row-major order, a NaN wins amax and amin, an integer mean rounds down. Derivatives
 * are PyTorch's (FunctionsManual's scatter_reduce_backward and index_reduce_backward); compiled,
 * both run as extern kernels.
 */
public final class ScatterReduceOps {
    private ScatterReduceOps() {}

    public static final OpOverload SCATTER_REDUCE = define(
            "scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor", false, Along.SCATTER);
    public static final OpOverload SCATTER_REDUCE_ = define(
            "scatter_reduce_.two(Tensor(a!) self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor(a!)", true, Along.SCATTER);
    public static final OpOverload INDEX_REDUCE = define(
            "index_reduce(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, bool include_self=True) -> Tensor", false, Along.INDEX);
    public static final OpOverload INDEX_REDUCE_ = define(
            "index_reduce_(Tensor(a!) self, int dim, Tensor index, Tensor source, str reduce, *, bool include_self=True) -> Tensor(a!)", true, Along.INDEX);

    /** The reductions, by their names in the {@code reduce} argument. */
    enum Reduce {
        SUM, PROD, MEAN, AMAX, AMIN;

        static Reduce of(String op, String name, Along along) {
            for (Reduce r : values()) if (r.name().toLowerCase().equals(name) && (r != SUM || along == Along.SCATTER)) return r;
            // ATen's reduction enum takes "max" and "min" for scatter_reduce too (index_reduce checks its names first)
            if (along == Along.SCATTER && name.equals("max")) return AMAX;
            if (along == Along.SCATTER && name.equals("min")) return AMIN;
            throw new IllegalArgumentException(along == Along.SCATTER
                    ? op + ": reduce argument must be either sum, prod, mean, amax or amin, got " + name
                    : op + "(): Expected reduce to be one of prod, mean, amax or amin but got " + name + ".");
        }
    }

    /**
     * How src's elements meet self's positions, and the three ops the derivatives need for it: read
     * the result at src's positions, add src-shaped values into self-shaped ones, zero the written
     * positions (gather, scatter_add, scatter for scatter_reduce; index_select, index_add, index_fill for index_reduce).
     */
    private enum Along {
        SCATTER, INDEX;

        Object select(Grad g, Object t) {
            return this == SCATTER ? g.call(IndexingOps.GATHER, t, g.value(1), g.arg(2)) : g.call(IndexingOps.INDEX_SELECT, t, g.value(1), g.arg(2));
        }

        Object addInto(Grad g, Object base, Object t) {
            return this == SCATTER ? g.call(ScatterOps.SCATTER_ADD, base, g.value(1), g.arg(2), t) : g.call(ScatterOps.INDEX_ADD, base, g.value(1), g.arg(2), t);
        }

        Object zeroWritten(Grad g, Object t) {
            return this == SCATTER ? g.call(ScatterOps.SCATTER_VALUE, t, g.value(1), g.arg(2), 0.0) : g.call(IndexingOps.INDEX_FILL_SCALAR, t, g.value(1), g.arg(2), 0.0);
        }
    }

    private static OpOverload define(String schema, boolean inPlace, Along along) {
        return OpOverload.define(schema)
                .tags(inPlace ? new Tag[] {Tag.INPLACE} : new Tag[0])
                .derivative(inPlace ? null : g -> backward(g, along))
                .meta(a -> {
                    check(a, along);
                    return inPlace ? a.tensor(0).meta() : TensorMeta.contiguous(a.tensor(0).dtype(), a.tensor(0).shape());
                })
                .kernel((a, m) -> {
                    Tensor self = a.tensor(0), index = a.tensor(2);
                    Tensor out = inPlace ? self : Tensor.allocate((TensorMeta) m);
                    int dim = dim(a);
                    Reduce reduce = Reduce.of(opName(a), a.str(4), along);
                    Tensor source = ScatterOps.separate(a.tensor(3), out);
                    // every index is checked (as the positions are made) before anything is written
                    Scatter.Positions p = along == Along.SCATTER
                            ? Scatter.scatter(opName(a), out, dim, index, source)
                            : Scatter.indexed(out, dim, ScatterOps.checkedIndices(opName(a) + "(): index ", index, dim, self.dim() == 0 ? 1 : self.size(dim)), source);
                    if (out != self) Copy.copy(self, out);
                    reduceInto(out, source, p, reduce, a.bool(5));
                    if (inPlace) out.bumpVersion();
                    return out;
                })
                .register();
    }

    private static String opName(Args a) { return a.op().schema().name(); }

    private static int dim(Args a) { return Shapes.wrapDim(opName(a), a.integer(1), a.tensor(0).dim()); }

    private static void check(Args a, Along along) {
        Tensor self = a.tensor(0), index = a.tensor(2), src = a.tensor(3);
        int dim = dim(a);
        if (along == Along.SCATTER) {
            Reduce.of(opName(a), a.str(4), along);
            ScatterOps.checkScatter(opName(a), self, dim, index, src);
        } else {
            ScatterOps.checkIndexed("index_reduce_", self, dim, index, src);
            Reduce.of("index_reduce", a.str(4), along);
        }
        if (self.dtype() == DType.BOOL && along == Along.INDEX) {
            // ATen's index_reduce kernel dispatches over the numeric dtypes only
            throw new IllegalArgumentException("\"index_func_\" not implemented for 'Bool'");
        }
        if (self.dtype() == DType.BOOL && a.str(4).equals("mean")) {
            // nor does scatter_reduce's mean (a bool has no average)
            throw new IllegalArgumentException("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'");
        }
    }

    // ------------------------------------------------------------------ kernel

    /**
     * Combines {@code source[p.source[k]]} into {@code out[p.out[k]]} for every k in order. Floating
     * values go through doubles, rounded back to the dtype at each step (so float32 rounds as float32
     * arithmetic does); integers through longs, narrowed at each step (so int32 wraps as in C++, and
     * bool sums and maxima are or, products and minima and).
     */
    static void reduceInto(Tensor out, Tensor source, Scatter.Positions p, Reduce reduce, boolean includeSelf) {
        int[] po = p.out(), ps = p.source();
        Storage o = out.storage(), s = source.storage();
        boolean floating = out.dtype().isFloatingPoint();
        if (!includeSelf) {
            for (int at : po) {
                if (floating) o.writeDouble(at, identity(reduce));
                else o.writeLong(at, integerIdentity(reduce, out.dtype()));
            }
        }
        int[] counts = reduce == Reduce.MEAN ? new int[o.length()] : null;
        for (int k = 0; k < po.length; k++) {
            int at = po[k];
            if (counts != null) counts[at]++;
            if (floating) {
                double x = o.readDouble(at), y = s.readDouble(ps[k]);
                o.writeDouble(at, switch (reduce) {
                    case SUM, MEAN -> x + y;
                    case PROD -> x * y;
                    // std::max/min as ATen calls them: a NaN in self stays, a NaN in src wins
                    case AMAX -> Double.isNaN(y) ? y : x < y ? y : x;
                    case AMIN -> Double.isNaN(y) ? y : y < x ? y : x;
                });
            } else {
                long x = o.readLong(at), y = s.readLong(ps[k]);
                o.writeLong(at, switch (reduce) {
                    case SUM, MEAN -> x + y;
                    case PROD -> x * y;
                    case AMAX -> Math.max(x, y);
                    case AMIN -> Math.min(x, y);
                });
            }
        }
        if (counts == null) return;
        for (int at : po) {
            int n = counts[at] + (includeSelf ? 1 : 0);
            if (n <= 1) continue;             // already divided (counts cleared below), or only self's value
            counts[at] = 0;
            if (floating) o.writeDouble(at, o.readDouble(at) / n);
            else o.writeLong(at, Math.floorDiv(o.readLong(at), (long) n));
        }
    }

    private static double identity(Reduce r) {
        return switch (r) {
            case SUM, MEAN -> 0;
            case PROD -> 1;
            case AMAX -> Double.NEGATIVE_INFINITY;
            case AMIN -> Double.POSITIVE_INFINITY;
        };
    }

    private static long integerIdentity(Reduce r, DType d) {
        if (d == DType.BOOL) return r == Reduce.PROD || r == Reduce.AMIN ? 1 : 0;   // numeric_limits<bool>: lowest false, max true
        boolean int32 = d == DType.INT32;
        return switch (r) {
            case SUM, MEAN -> 0;
            case PROD -> 1;
            case AMAX -> int32 ? Integer.MIN_VALUE : Long.MIN_VALUE;
            case AMIN -> int32 ? Integer.MAX_VALUE : Long.MAX_VALUE;
        };
    }

    // ------------------------------------------------------------------ derivative

    /** PyTorch's scatter_reduce_backward and index_reduce_backward, which differ only in {@link Along}. */
    private static Object[] backward(Grad g, Along along) {
        Reduce reduce = Reduce.of(g.op().schema().name(), (String) g.value(4), along);
        boolean includeSelf = (Boolean) g.value(5);
        TensorMeta selfMeta = g.argMeta(0);
        Object grad = g.grad(), self = g.arg(0), src = g.arg(3);
        Object gradSelf, gradSrc;
        switch (reduce) {
            case SUM -> {
                gradSelf = grad;
                gradSrc = g.needs(3) ? along.select(g, grad) : null;
            }
            case MEAN -> {
                Object n = g.call(CreationOps.ONES, selfMeta.shape(), selfMeta.dtype());
                if (!includeSelf) n = g.zeros(selfMeta);
                n = along.addInto(g, n, g.call(CreationOps.ONES, g.argMeta(3).shape(), selfMeta.dtype()));
                n = g.call(PointwiseOps.MASKED_FILL_SCALAR, n, g.call(PointwiseOps.EQ_SCALAR, n, 0.0), 1.0);
                gradSelf = g.div(grad, n);
                gradSrc = g.needs(3) ? g.div(along.select(g, grad), along.select(g, n)) : null;
            }
            case AMAX, AMIN -> {
                Object result = g.result();
                Object selfIsResult = g.call(ShapeOps.TO_COPY, g.call(PointwiseOps.EQ_TENSOR, self, result), selfMeta.dtype());
                Object srcIsResult = g.call(ShapeOps.TO_COPY, g.call(PointwiseOps.EQ_TENSOR, src, along.select(g, result)), selfMeta.dtype());
                // a gradient is shared evenly between the values equal to the extremum
                Object distributed = g.div(grad, along.addInto(g, selfIsResult, srcIsResult));
                gradSelf = g.mul(selfIsResult, distributed);
                gradSrc = g.needs(3) ? g.mul(srcIsResult, along.select(g, distributed)) : null;
            }
            case PROD -> {
                // the product of the others, computed without dividing by a zero
                Object maskedSelf = g.call(PointwiseOps.MASKED_FILL_SCALAR, self, g.call(PointwiseOps.EQ_SCALAR, self, 0.0), 1.0);
                gradSelf = g.div(g.mul(grad, g.call(g.op(), maskedSelf, g.value(1), g.arg(2), src, g.value(4), includeSelf)), maskedSelf);
                gradSrc = g.needs(3) ? prodSourceGrad(g, along, includeSelf) : null;
            }
            default -> throw new IllegalStateException(reduce.toString());
        }
        if (!includeSelf) gradSelf = along.zeroWritten(g, gradSelf);
        return new Object[] {g.needs(0) ? gradSelf : null, null, null, gradSrc};
    }

    /**
     * src's gradient under "prod": grad times the product of the other factors at its position. Where
     * src is the only zero there, that product is the result with src's zero taken as one; elsewhere
     * it is result / src (zero when two or more zeros meet).
     */
    private static Object prodSourceGrad(Grad g, Along along, boolean includeSelf) {
        TensorMeta selfMeta = g.argMeta(0);
        Object grad = g.grad(), self = g.arg(0), src = g.arg(3);
        Object srcZero = g.call(PointwiseOps.EQ_SCALAR, src, 0.0);
        Object zerosThere = along.select(g, along.addInto(g, g.zeros(selfMeta), g.call(ShapeOps.TO_COPY, srcZero, selfMeta.dtype())));
        Object singleZero = g.call(PointwiseOps.LOGICAL_AND, srcZero, g.call(PointwiseOps.EQ_SCALAR, zerosThere, 1.0));
        Object maskedSrc = g.call(PointwiseOps.MASKED_FILL_SCALAR, src, singleZero, 1.0);
        Object othersWhereSingleZero = along.select(g, g.mul(grad, g.call(g.op(), self, g.value(1), g.arg(2), maskedSrc, g.value(4), includeSelf)));
        Object othersElsewhere = g.div(along.select(g, g.mul(grad, g.result())), g.call(PointwiseOps.MASKED_FILL_SCALAR, src, srcZero, 1.0));
        return g.where(singleZero, othersWhereSingleZero, othersElsewhere);
    }
}
